DELETE FROM auth_tokens WHERE kind <> 'session';
ALTER TABLE auth_tokens DROP CONSTRAINT auth_tokens_kind_shape;
DROP INDEX auth_tokens_grant_idx;
ALTER TABLE auth_tokens DROP COLUMN grant_id, DROP COLUMN token_hash, DROP COLUMN scopes, DROP COLUMN name, DROP COLUMN kind;
