-- The sign-in throttle. A row is one claim, taken before a password is
-- hashed: kind 'email' limits password checks per email, kind 'address'
-- failed sign-ins per client address. A successful check deletes its claims,
-- so what stays in a window are the failures (and checks under way). key is
-- the SHA-256 (hex) of the lower-cased email or of the address, so no raw
-- client string is kept here. Rows older than the window are purged.
CREATE TABLE signin_attempts (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind       text NOT NULL CHECK (kind IN ('email', 'address')),
    key        text NOT NULL,
    claimed_at timestamptz NOT NULL
);
CREATE INDEX signin_attempts_key_idx ON signin_attempts (kind, key, claimed_at);
CREATE INDEX signin_attempts_claimed_idx ON signin_attempts (claimed_at);

-- A revoked token stays revoked: nothing may clear or move its revoked_at.
CREATE FUNCTION auth_tokens_keep_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'auth token % was revoked and stays revoked', OLD.jti
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;
CREATE TRIGGER auth_tokens_keep_revoked
    BEFORE UPDATE OF revoked_at ON auth_tokens
    FOR EACH ROW
    WHEN (OLD.revoked_at IS NOT NULL AND NEW.revoked_at IS DISTINCT FROM OLD.revoked_at)
    EXECUTE FUNCTION auth_tokens_keep_revoked();
