SET LOCAL lock_timeout = '5s';
DELETE FROM auth_tokens WHERE kind = 'oauth';
DROP TABLE oauth_signing_keys;
DROP TABLE oauth_refresh_tokens;
DROP TABLE oauth_codes;
DROP TABLE oauth_grants;
DROP TABLE oauth_clients;
