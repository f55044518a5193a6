-- meridian:no-transaction
-- The indexes of access tokens (0023), built without stopping sign-ins
-- (contract §10): a token's hash finds its row, once; a grant's tokens.
-- Then 0023's checks are validated (a lock that lets reads and writes go
-- on; validating a valid constraint again does nothing).
SET lock_timeout = '5s';
DROP INDEX CONCURRENTLY IF EXISTS auth_tokens_token_hash_key;
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS auth_tokens_token_hash_key ON auth_tokens (token_hash);
DROP INDEX CONCURRENTLY IF EXISTS auth_tokens_grant_idx;
CREATE INDEX CONCURRENTLY IF NOT EXISTS auth_tokens_grant_idx ON auth_tokens (grant_id) WHERE grant_id IS NOT NULL;
ALTER TABLE IF EXISTS auth_tokens VALIDATE CONSTRAINT auth_tokens_kind_check;
ALTER TABLE IF EXISTS auth_tokens VALIDATE CONSTRAINT auth_tokens_name_check;
ALTER TABLE IF EXISTS auth_tokens VALIDATE CONSTRAINT auth_tokens_kind_shape;
