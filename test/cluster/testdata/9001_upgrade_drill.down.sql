-- meridian:no-transaction
SET lock_timeout = '5s';
DROP INDEX CONCURRENTLY IF EXISTS transactions_to_created_idx;
ALTER TABLE accounts DROP COLUMN IF EXISTS nickname;
