SET LOCAL lock_timeout = '5s';
-- Webhooks (contract §9, Standard Webhooks). A customer registers an
-- endpoint for some events; what happens to them is written, in the same
-- transaction as the change, to webhook_events by the triggers below (only
-- for users who have an endpoint, so nobody else pays for it), sealed after
-- commit into webhook_feed in commit order by webhook_seal()
-- (migrations/functions/webhook_seal.sql, the way event_seal seals the audit
-- chain), and delivered by serve's dispatcher (pkg/bank/webhooks.go), never
-- inside a money transaction: per endpoint in seq order, at least once,
-- retried with exponential backoff for 24 hours.
CREATE TABLE webhooks (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id         bigint NOT NULL REFERENCES users (id),
    url             text NOT NULL CHECK (length(url) <= 2048),
    events          text[] NOT NULL CHECK (cardinality(events) >= 1),
    sealed_secret   bytea NOT NULL, -- whsec_…, sealed with a key derived from jwt_secret
    created_at      timestamptz NOT NULL DEFAULT now(),
    deleted_at      timestamptz,
    -- Delivery: cursor is the last feed seq this endpoint is done with; the
    -- next event after it is tried at next_attempt_at, attempt times so far.
    status          text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'failing')),
    cursor          bigint NOT NULL,
    attempt         integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    failing_since   timestamptz,
    lease_id        uuid,
    lease_until     timestamptz
);
CREATE INDEX webhooks_user_idx ON webhooks (user_id) WHERE deleted_at IS NULL;

CREATE TABLE webhook_events (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id    bigint NOT NULL,
    type       text NOT NULL,
    data       jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    txid       xid8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX webhook_events_txid_idx ON webhook_events (txid);

CREATE TABLE webhook_feed (
    seq      bigint PRIMARY KEY,
    event_id bigint NOT NULL UNIQUE REFERENCES webhook_events (id),
    user_id  bigint NOT NULL
);
CREATE INDEX webhook_feed_user_idx ON webhook_feed (user_id, seq);

CREATE TABLE webhook_sealer (
    id      smallint PRIMARY KEY CHECK (id = 1),
    horizon xid8 NOT NULL,
    seq     bigint NOT NULL
);
INSERT INTO webhook_sealer VALUES (1, '0', 0);

CREATE TABLE webhook_deliveries (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    webhook_id   bigint NOT NULL REFERENCES webhooks (id),
    event_id     bigint NOT NULL REFERENCES webhook_events (id),
    event        text NOT NULL,
    attempt      integer NOT NULL,
    status_code  integer,
    error        text CHECK (length(error) <= 255),
    delivered_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, id DESC);

-- Redeliveries the owner asked for, done once each by the dispatcher.
CREATE TABLE webhook_redeliveries (
    webhook_id   bigint NOT NULL REFERENCES webhooks (id),
    event_id     bigint NOT NULL REFERENCES webhook_events (id),
    requested_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (webhook_id, event_id)
);

-- The triggers: statement-level, so a batch of postings costs one INSERT.
-- SECURITY DEFINER: the runtime role cannot write events itself.
CREATE FUNCTION webhook_events_from_transactions() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    -- The rows of users with an endpoint first (most batches have none),
    -- then their accounts.
    WITH n AS MATERIALIZED (
        SELECT * FROM new_rows r
        WHERE EXISTS (SELECT 1 FROM webhooks w WHERE w.user_id = r.user_id AND w.deleted_at IS NULL))
    INSERT INTO webhook_events (user_id, type, data)
    SELECT n.user_id, 'transaction.created', jsonb_build_object(
        'id', n.id, 'transaction_date', n.created_at, 'transaction_type', n.transaction_type, 'amount', n.amount,
        'currency', fa.currency, 'account_id', fa.account_number, 'to_account_id', ta.account_number, 'description', n.description)
    FROM n JOIN accounts fa ON fa.id = n.from_account_id JOIN accounts ta ON ta.id = n.to_account_id
    ORDER BY n.id;
    RETURN NULL;
END $$;
CREATE TRIGGER transactions_webhook_events AFTER INSERT ON transactions
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION webhook_events_from_transactions();

-- A money request's event goes to both of its customers.
CREATE FUNCTION webhook_request_data(r money_requests, viewer bigint) RETURNS jsonb
LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT jsonb_build_object('ID', r.id, 'Amount', r.amount, 'currency', ra.currency,
        'requester_id', ra.account_number, 'recipient_id', ca.account_number, 'Status', r.status,
        'RequesteAt', r.created_at, 'ExpiresAt', r.expires_at, 'description', r.description,
        'direction', CASE WHEN viewer = r.recipient_user_id THEN 'incoming' ELSE 'outgoing' END)
    FROM accounts ra, accounts ca WHERE ra.id = r.requester_account_id AND ca.id = r.recipient_account_id
$$;
CREATE FUNCTION webhook_events_from_requests() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO webhook_events (user_id, type, data)
        SELECT u.id, 'money_request.created', webhook_request_data(n, u.id)
        FROM new_rows n CROSS JOIN LATERAL (VALUES (n.requester_user_id), (n.recipient_user_id)) u(id)
        WHERE EXISTS (SELECT 1 FROM webhooks w WHERE w.user_id = u.id AND w.deleted_at IS NULL)
        ORDER BY n.id, u.id;
    ELSE
        INSERT INTO webhook_events (user_id, type, data)
        SELECT u.id, 'money_request.' || CASE n.status WHEN 'ACCEPTED' THEN 'accepted' WHEN 'REJECTED' THEN 'declined' ELSE 'expired' END,
            webhook_request_data(n, u.id)
        FROM new_rows n JOIN old_rows o ON o.id = n.id
        CROSS JOIN LATERAL (VALUES (n.requester_user_id), (n.recipient_user_id)) u(id)
        WHERE o.status = 'PENDING' AND n.status <> 'PENDING'
          AND EXISTS (SELECT 1 FROM webhooks w WHERE w.user_id = u.id AND w.deleted_at IS NULL)
        ORDER BY n.id, u.id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER money_requests_webhook_created AFTER INSERT ON money_requests
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION webhook_events_from_requests();
CREATE TRIGGER money_requests_webhook_resolved AFTER UPDATE ON money_requests
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION webhook_events_from_requests();

CREATE FUNCTION webhook_events_from_runs() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    INSERT INTO webhook_events (user_id, type, data)
    SELECT st.user_id, 'scheduled_transfer.run', jsonb_build_object('scheduled_transfer_id', n.scheduled_id, 'run_at', n.run_at,
        'status', n.status, 'reason', n.reason, 'transaction_id', n.transaction_id)
    FROM new_rows n JOIN scheduled_transfers st ON st.id = n.scheduled_id
    WHERE EXISTS (SELECT 1 FROM webhooks w WHERE w.user_id = st.user_id AND w.deleted_at IS NULL)
    ORDER BY n.id;
    RETURN NULL;
END $$;
CREATE TRIGGER scheduled_transfer_runs_webhook_events AFTER INSERT ON scheduled_transfer_runs
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION webhook_events_from_runs();
