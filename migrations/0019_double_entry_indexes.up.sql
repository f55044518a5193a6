-- meridian:no-transaction
-- The indexes of double entry (0018), built without stopping writes
-- (contract §10): one bank account per class and currency; a posting's
-- legs by posting_id; a posting reversed at most once (the backstop of
-- post_batch's check, which reads it again once the accounts are locked).
SET lock_timeout = '5s';
DROP INDEX CONCURRENTLY IF EXISTS accounts_bank_key;
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS accounts_bank_key ON accounts (class, currency) WHERE class <> 'customer';
DROP INDEX CONCURRENTLY IF EXISTS transactions_posting_idx;
CREATE INDEX CONCURRENTLY IF NOT EXISTS transactions_posting_idx ON transactions (posting_id) WHERE posting_id IS NOT NULL;
DROP INDEX CONCURRENTLY IF EXISTS transactions_reverses_key;
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS transactions_reverses_key ON transactions (reverses) WHERE reverses IS NOT NULL AND id = posting_id;
