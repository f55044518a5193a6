-- meridian:no-transaction
SET lock_timeout = '5s';
DROP INDEX CONCURRENTLY IF EXISTS auth_tokens_grant_idx;
DROP INDEX CONCURRENTLY IF EXISTS auth_tokens_token_hash_key;
