-- meridian:no-transaction
SET lock_timeout = '5s';
DROP INDEX CONCURRENTLY IF EXISTS transactions_reverses_key;
DROP INDEX CONCURRENTLY IF EXISTS transactions_posting_idx;
DROP INDEX CONCURRENTLY IF EXISTS accounts_bank_key;
