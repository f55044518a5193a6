-- Two-factor sign-in: TOTP (RFC 6238: SHA-1, 6 digits, 30 s steps) with ten
-- one-time backup codes (pkg/bank twofactor.go).
--
-- secret is the TOTP secret sealed with AES-256-GCM (nonce || ciphertext),
-- under a key derived from the server's JWT secret (HKDF-SHA256) and bound
-- to the user's id: a copy of this table alone reveals no secret.
-- enabled_at is NULL while the user has set it up but not confirmed it with
-- a code. last_step is the newest time step a code was accepted for: a code
-- is accepted once, and never one of an older step.
CREATE TABLE two_factor (
    user_id    bigint PRIMARY KEY REFERENCES users (id),
    secret     bytea NOT NULL,
    enabled_at timestamptz,
    last_step  bigint NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Backup codes: only an HMAC-SHA256 of each (keyed like the secrets), each
-- usable once.
CREATE TABLE two_factor_backup_codes (
    id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id   bigint NOT NULL REFERENCES users (id),
    code_hash bytea NOT NULL,
    used_at   timestamptz,
    UNIQUE (user_id, code_hash)
);

-- A sign-in whose password was right and that waits for its second factor:
-- the SHA-256 of the opaque challenge handed to the client, for 5 minutes,
-- used once.
CREATE TABLE two_factor_challenges (
    id_hash    bytea PRIMARY KEY,
    user_id    bigint NOT NULL REFERENCES users (id),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX two_factor_challenges_expires_idx ON two_factor_challenges (expires_at);

-- Whether a user has two-factor sign-in on decides what an administrator may
-- reach (require_2fa_for_admins), and sessions are answered from memory: a
-- change is announced as "role:<id>", which every instance's session cache
-- forgets and the WebSocket hub leaves alone (0007).
CREATE FUNCTION two_factor_announce_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('meridian_revoked', 'role:' || OLD.user_id);
    ELSE
        PERFORM pg_notify('meridian_revoked', 'role:' || NEW.user_id);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER two_factor_changed AFTER INSERT OR DELETE OR UPDATE OF enabled_at ON two_factor
    FOR EACH ROW EXECUTE FUNCTION two_factor_announce_changed();
