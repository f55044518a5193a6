-- Identity: users, their role, their password and their sign-in tokens.
CREATE TABLE roles (
    id   smallint PRIMARY KEY,
    name text NOT NULL UNIQUE
);
INSERT INTO roles (id, name) VALUES (1, 'User'), (2, 'Admin');

CREATE TABLE users (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    full_name    text NOT NULL CHECK (length(full_name) BETWEEN 1 AND 100),
    email        text NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
    phone_number text NOT NULL,
    role_id      smallint NOT NULL DEFAULT 1 REFERENCES roles (id),
    is_active    boolean NOT NULL DEFAULT true,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));
CREATE INDEX users_created_at_idx ON users (created_at);
CREATE INDEX users_active_admins_idx ON users (id) WHERE role_id = 2 AND is_active;

CREATE TABLE credentials (
    user_id       bigint PRIMARY KEY REFERENCES users (id),
    password_hash text NOT NULL,
    updated_at    timestamptz NOT NULL DEFAULT now()
);

-- Every issued token has a row; revoking a token sets revoked_at.
CREATE TABLE auth_tokens (
    jti        uuid PRIMARY KEY,
    user_id    bigint NOT NULL REFERENCES users (id),
    issued_at  timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz
);
CREATE INDEX auth_tokens_user_idx ON auth_tokens (user_id) WHERE revoked_at IS NULL;

CREATE TABLE login_failures (
    id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email     text NOT NULL,
    failed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX login_failures_email_idx ON login_failures (lower(email), failed_at);

-- Accounts and their ledger.
CREATE TABLE account_types (
    id        smallint PRIMARY KEY,
    type_name text NOT NULL,
    currency  char(3) NOT NULL,
    UNIQUE (type_name, currency)
);
INSERT INTO account_types (id, type_name, currency) VALUES
    (1, 'Checking', 'USD'),
    (2, 'Savings', 'USD'),
    (3, 'Euro Savings', 'EUR');

CREATE TABLE accounts (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id         bigint NOT NULL REFERENCES users (id),
    account_number  text NOT NULL UNIQUE CHECK (account_number ~ '^[A-Za-z0-9]{6,34}$'),
    account_type_id smallint NOT NULL REFERENCES account_types (id),
    currency        char(3) NOT NULL,
    balance         numeric(20, 2) NOT NULL DEFAULT 0 CHECK (balance >= 0),
    created_at      timestamptz NOT NULL DEFAULT now(),
    closed_at       timestamptz
);
CREATE INDEX accounts_user_idx ON accounts (user_id, id);

-- kind: transfer (between customers), request (a paid money request),
-- opening (opening balance), adjustment (balance edited by its owner).
CREATE TABLE transactions (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id       bigint NOT NULL REFERENCES accounts (id),
    user_id          bigint NOT NULL REFERENCES users (id),
    transaction_type text NOT NULL CHECK (transaction_type IN ('DEBIT', 'CREDIT')),
    kind             text NOT NULL CHECK (kind IN ('transfer', 'request', 'opening', 'adjustment')),
    amount           numeric(20, 2) NOT NULL CHECK (amount > 0),
    from_account_id  bigint NOT NULL REFERENCES accounts (id),
    to_account_id    bigint NOT NULL REFERENCES accounts (id),
    description      text NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX transactions_account_idx ON transactions (account_id, id DESC);
CREATE INDEX transactions_user_idx ON transactions (user_id, id DESC);

CREATE TABLE money_requests (
    id                   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    requester_account_id bigint NOT NULL REFERENCES accounts (id),
    recipient_account_id bigint NOT NULL REFERENCES accounts (id),
    requester_user_id    bigint NOT NULL REFERENCES users (id),
    recipient_user_id    bigint NOT NULL REFERENCES users (id),
    amount               numeric(20, 2) NOT NULL CHECK (amount > 0),
    description          text NOT NULL DEFAULT '',
    status               text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'ACCEPTED', 'REJECTED', 'EXPIRED')),
    created_at           timestamptz NOT NULL DEFAULT now(),
    expires_at           timestamptz NOT NULL,
    resolved_at          timestamptz,
    CHECK (requester_account_id <> recipient_account_id)
);
CREATE INDEX money_requests_requester_idx ON money_requests (requester_user_id, id DESC);
CREATE INDEX money_requests_recipient_idx ON money_requests (recipient_user_id, id DESC);
CREATE INDEX money_requests_pending_idx ON money_requests (expires_at) WHERE status = 'PENDING';

CREATE TABLE notifications (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id    bigint NOT NULL REFERENCES users (id),
    message    text NOT NULL,
    is_new     boolean NOT NULL DEFAULT true,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notifications_user_idx ON notifications (user_id, id DESC);

-- Durable Idempotency-Key replies, kept 24 hours.
CREATE TABLE idempotency_keys (
    user_id         bigint NOT NULL REFERENCES users (id),
    key             text NOT NULL,
    request_hash    text NOT NULL,
    response_status integer NOT NULL,
    response_body   jsonb NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);

-- The audit log is append-only: the database refuses UPDATE, DELETE and TRUNCATE.
CREATE TABLE audit_log (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    actor_user_id  bigint REFERENCES users (id),
    account_number text,
    action_type    text NOT NULL,
    table_name     text NOT NULL,
    description    text NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_log is append-only' USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER audit_log_no_update_delete BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change();

-- New audit rows are announced for `meridian audit-log tail -f`.
CREATE FUNCTION audit_log_announce() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('meridian_audit', NEW.id::text);
    RETURN NULL;
END $$;
CREATE TRIGGER audit_log_announce AFTER INSERT ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_announce();

-- Every stored notification is announced at commit, for the WebSocket hubs of
-- every serve instance (LISTEN meridian_notifications).
CREATE FUNCTION notifications_announce() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('meridian_notifications', json_build_object(
        'id', NEW.id, 'message', NEW.message, 'user_id', NEW.user_id, 'created_at', NEW.created_at)::text);
    RETURN NULL;
END $$;
CREATE TRIGGER notifications_announce AFTER INSERT ON notifications
    FOR EACH ROW EXECUTE FUNCTION notifications_announce();
