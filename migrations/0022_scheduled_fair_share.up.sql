-- meridian:no-transaction
-- Scheduled transfers, fairly (issue 20). The scheduler takes the customers
-- with a due occurrence in turn, one occurrence each per round (pkg/bank
-- scheduled.go), and CreateScheduledTransfer counts a customer's active
-- series against scheduled_max_active: both read one customer's active
-- series in next_run_at order, which this index holds. Built without
-- stopping writes (contract §10).
SET lock_timeout = '5s';
DROP INDEX CONCURRENTLY IF EXISTS scheduled_transfers_user_due_idx;
CREATE INDEX CONCURRENTLY IF NOT EXISTS scheduled_transfers_user_due_idx ON scheduled_transfers (user_id, next_run_at, id) WHERE status = 'active';
