DROP TRIGGER auth_tokens_keep_revoked ON auth_tokens;
DROP FUNCTION auth_tokens_keep_revoked();
DROP TABLE signin_attempts;
