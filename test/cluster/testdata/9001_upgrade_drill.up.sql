-- meridian:no-transaction
-- The upgrade drill's migration (test/cluster TestRollingUpgrade): what a
-- release that adds a column and an index to the hottest tables ships,
-- written by contract §10's rules, applied while the release before serves
-- transfers. The test builds the binary with one more migration by adding
-- this file to migrations/ (go build -overlay).
SET lock_timeout = '5s';
-- A nullable column on the accounts every transfer locks: PostgreSQL needs
-- a moment's exclusive lock, waited for at most lock_timeout; the release
-- before neither reads nor writes it.
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS nickname text;
-- An index on the ledger, built while transfers insert into it.
DROP INDEX CONCURRENTLY IF EXISTS transactions_to_created_idx;
CREATE INDEX CONCURRENTLY IF NOT EXISTS transactions_to_created_idx ON transactions (to_account_id, created_at);
