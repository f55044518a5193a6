SET LOCAL lock_timeout = '5s';
DELETE FROM auth_tokens WHERE kind <> 'session';
ALTER TABLE auth_tokens DROP CONSTRAINT auth_tokens_kind_shape, DROP CONSTRAINT auth_tokens_name_check, DROP CONSTRAINT auth_tokens_kind_check;
ALTER TABLE auth_tokens DROP COLUMN grant_id, DROP COLUMN token_hash, DROP COLUMN scopes, DROP COLUMN name, DROP COLUMN kind;
