SET LOCAL lock_timeout = '5s';
-- Programs as clients (contract §9): personal access tokens and the access
-- tokens of connected apps are rows of auth_tokens, beside the sign-in
-- sessions, so they end exactly as sessions do: revoked (the trigger of
-- 0004 announces it on meridian_revoked, every instance forgets it and its
-- WebSockets close), expired, or with their user's deactivation (which
-- revokes every row of the user).
--
--   kind        session (a sign-in), pat (a personal access token) or oauth
--               (an access token of a connected app, oauth_grants)
--   name        what the owner called a personal access token
--   scopes      what the token may reach; NULL for a session (everything
--               its user's role may)
--   token_hash  SHA-256 of the token's text (mrd_pat_… / mrd_oat_…): the text
--               itself is shown once and never stored. It is 256 random bits,
--               so reading the hash gives nobody the token.
--   grant_id    the connected app's grant an oauth token belongs to
--
-- The columns are new and their checks hold on every existing row (each is
-- a session); the checks are added NOT VALID (no scan under this file's
-- lock) and validated in 0024, whose lock lets sign-ins go on, where the
-- indexes are built too.
ALTER TABLE auth_tokens ADD COLUMN kind text NOT NULL DEFAULT 'session';
ALTER TABLE auth_tokens ADD COLUMN name text;
ALTER TABLE auth_tokens ADD COLUMN scopes text[];
ALTER TABLE auth_tokens ADD COLUMN token_hash bytea;
ALTER TABLE auth_tokens ADD COLUMN grant_id bigint;
ALTER TABLE auth_tokens ADD CONSTRAINT auth_tokens_kind_check CHECK (kind IN ('session', 'pat', 'oauth')) NOT VALID;
ALTER TABLE auth_tokens ADD CONSTRAINT auth_tokens_name_check CHECK (length(name) <= 100) NOT VALID;
ALTER TABLE auth_tokens ADD CONSTRAINT auth_tokens_kind_shape CHECK (
    (kind = 'session' AND token_hash IS NULL AND scopes IS NULL)
    OR (kind = 'pat' AND token_hash IS NOT NULL AND scopes IS NOT NULL AND name IS NOT NULL)
    OR (kind = 'oauth' AND token_hash IS NOT NULL AND scopes IS NOT NULL AND grant_id IS NOT NULL)) NOT VALID;
