-- meridian:no-transaction
SET lock_timeout = '5s';
DROP INDEX CONCURRENTLY IF EXISTS scheduled_transfers_user_due_idx;
