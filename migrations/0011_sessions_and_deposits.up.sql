-- Sessions a customer can see and end. Every sign-in token (auth_tokens)
-- now records what signed in (the User-Agent, sanitized, at most 255
-- characters), from where (the client address the server determined, NULL
-- when not over the network) and when it was last used. The jti stays the
-- token's internal key; id is the session's public number in the API, so a
-- listing never hands out the token's own identifier.
--
-- last_seen_at is written by a background flusher (pkg/bank sessions.go),
-- at most once a minute per session and never by the request itself, so
-- the money path writes nothing more than before.
ALTER TABLE auth_tokens ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY;
ALTER TABLE auth_tokens ADD CONSTRAINT auth_tokens_id_key UNIQUE (id);
ALTER TABLE auth_tokens ADD COLUMN user_agent text NOT NULL DEFAULT ''
    CONSTRAINT auth_tokens_user_agent_check CHECK (length(user_agent) <= 255);
ALTER TABLE auth_tokens ADD COLUMN ip inet;
ALTER TABLE auth_tokens ADD COLUMN last_seen_at timestamptz;
UPDATE auth_tokens SET last_seen_at = issued_at;
ALTER TABLE auth_tokens ALTER COLUMN last_seen_at SET NOT NULL;
ALTER TABLE auth_tokens ALTER COLUMN last_seen_at SET DEFAULT now();

-- Money that enters and leaves through the bank: an administrator's deposit
-- (a CREDIT) or withdrawal (a DEBIT) is a ledger row of its own kind, on the
-- account itself (from and to are the account, as an opening balance is).
-- It is no payment between customers: the dashboards' sent and received
-- figures leave it out, the ledger totals' net includes it.
ALTER TABLE transactions DROP CONSTRAINT transactions_kind_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_kind_check
    CHECK (kind IN ('transfer', 'request', 'opening', 'adjustment', 'deposit', 'withdrawal')) NOT VALID;
ALTER TABLE transactions VALIDATE CONSTRAINT transactions_kind_check;
