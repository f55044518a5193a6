-- Events in commit order, and a tamper-evident audit log.
--
-- Until now every audit and notification row called pg_notify inside its own
-- transaction. A transaction that has called pg_notify holds a database-wide
-- lock from just before its commit until the commit is flushed, so money
-- commits could not be flushed together (group commit). Followers also read
-- "id > last", and a row that commits after a row with a higher id was
-- skipped for good.
--
-- Now the money path writes its rows and nothing else. A sealer (event_seal,
-- run by serve and by `audit-log tail -f`) numbers committed rows afterwards,
-- in commit order, and announces each batch with one pg_notify:
--   audit_chain        seq -> audit row, with a SHA-256 hash chained to the previous seal
--   notification_feed  seq -> notification row
-- Followers read by seq: every row once, in the order it was sealed.
DROP TRIGGER notifications_announce ON notifications;
DROP FUNCTION notifications_announce();
DROP TRIGGER audit_log_announce ON audit_log;
DROP FUNCTION audit_log_announce();

-- The transaction that wrote each row. Inserting already assigns the
-- transaction its id, so the default costs nothing more. Existing rows get the
-- id of this migration's transaction and are sealed by the first seal.
ALTER TABLE audit_log ADD COLUMN txid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX audit_log_txid_idx ON audit_log (txid);
ALTER TABLE notifications ADD COLUMN txid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX notifications_txid_idx ON notifications (txid);

CREATE TABLE audit_chain (
    seq       bigint PRIMARY KEY,
    audit_id  bigint NOT NULL UNIQUE REFERENCES audit_log (id),
    hash      bytea NOT NULL CHECK (octet_length(hash) = 32),
    sealed_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE notification_feed (
    seq             bigint PRIMARY KEY,
    notification_id bigint NOT NULL UNIQUE REFERENCES notifications (id)
);

-- The sealer's state, one row. A horizon is the xmin of the snapshot the last
-- seal of that table read: every transaction whose id is below it had ended
-- by then, so all of its rows are sealed. The audit head (seq, hash, id) is
-- the last link of the chain: a verifier notices rows removed from its end.
CREATE TABLE event_sealer (
    id            smallint PRIMARY KEY CHECK (id = 1),
    audit_horizon xid8 NOT NULL,
    audit_seq     bigint NOT NULL,
    audit_hash    bytea NOT NULL,
    audit_last_id bigint,
    notif_horizon xid8 NOT NULL,
    notif_seq     bigint NOT NULL,
    sealed_at     timestamptz
);
INSERT INTO event_sealer (id, audit_horizon, audit_seq, audit_hash, notif_horizon, notif_seq)
VALUES (1, '0', 0, '\x0000000000000000000000000000000000000000000000000000000000000000', '0', 0);

-- Sealed rows are append-only, as audit_log is.
CREATE FUNCTION append_only_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER audit_chain_no_update_delete BEFORE UPDATE OR DELETE ON audit_chain
    FOR EACH ROW EXECUTE FUNCTION append_only_refuse();
CREATE TRIGGER audit_chain_no_truncate BEFORE TRUNCATE ON audit_chain
    FOR EACH STATEMENT EXECUTE FUNCTION append_only_refuse();
CREATE TRIGGER notification_feed_no_update_delete BEFORE UPDATE OR DELETE ON notification_feed
    FOR EACH ROW EXECUTE FUNCTION append_only_refuse();
CREATE TRIGGER notification_feed_no_truncate BEFORE TRUNCATE ON notification_feed
    FOR EACH STATEMENT EXECUTE FUNCTION append_only_refuse();
CREATE TRIGGER event_sealer_no_delete BEFORE DELETE ON event_sealer
    FOR EACH ROW EXECUTE FUNCTION append_only_refuse();
CREATE TRIGGER event_sealer_no_truncate BEFORE TRUNCATE ON event_sealer
    FOR EACH STATEMENT EXECUTE FUNCTION append_only_refuse();

-- One link of the audit chain: SHA-256 over the previous link's hash and the
-- row's fields, each encoded without ambiguity:
--   prev (32 bytes) || id (int8, big-endian)
--   || actor_user_id, account_number, action_type, table_name, description:
--      each as its UTF-8 text (actor_user_id in decimal) prefixed by its byte
--      length (int4, big-endian), or the int4 -1 (ff ff ff ff) for NULL
--   || created_at as microseconds since 1970-01-01 00:00 UTC (int8, big-endian).
-- The sealer and the verifier both use this function, so they cannot disagree.
CREATE FUNCTION audit_field(v text) RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN v IS NULL THEN '\xffffffff'::bytea
        ELSE int4send(octet_length(convert_to(v, 'UTF8'))) || convert_to(v, 'UTF8') END
$$;
CREATE FUNCTION audit_digest(prev bytea, id bigint, actor_user_id bigint, account_number text,
    action_type text, table_name text, description text, created_at timestamptz)
RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT sha256(prev || int8send(id) || audit_field(actor_user_id::text) || audit_field(account_number)
        || audit_field(action_type) || audit_field(table_name) || audit_field(description)
        || int8send((extract(epoch FROM created_at) * 1000000)::bigint))
$$;

-- event_seal seals every committed audit and notification row not sealed yet
-- and returns the newest seq of each, and the notifications it sealed (JSON,
-- so the process that sealed them can push them without reading them back).
-- Run it in its own transaction at READ COMMITTED (autocommit: SELECT * FROM
-- event_seal()).
--
-- Why this is commit order: seals run one at a time (the advisory lock, held
-- until commit), and each seal reads the rows visible in one snapshot. A row
-- sealed by seal k was visible to seal k's snapshot, so it had committed
-- before that snapshot was taken. A row sealed by a later seal was not
-- visible to seal k's snapshot, so it committed after it. So every row of a
-- later seal committed after every row of an earlier one, and seq (ordered by
-- id within one seal) never puts a row before one that committed before it
-- in an earlier seal. A reader of "seq > last" never misses a row: seq k+1 is
-- visible only after seq k, because the next seal waits for the previous
-- one's commit.
--
-- Which rows: those whose transaction id is at or above the table's horizon
-- (the previous seal's snapshot xmin) and that are not sealed yet. Every
-- transaction below the horizon had ended before the previous seal's
-- snapshot, so its rows were sealed then, or earlier.
--
-- SECURITY DEFINER: the role serve runs as needs no right to write the chain.
-- The planner settings keep each seal's cost to the rows it seals, whatever
-- the statistics say (a fresh txid column has none): the rows come from the
-- txid index, and each is looked up in the chain by key, never by hashing or
-- scanning the whole chain.
CREATE FUNCTION event_seal(OUT notif_seq bigint, OUT audit_seq bigint, OUT sealed_notifications json)
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public
SET plan_cache_mode = force_custom_plan
SET enable_seqscan = off
SET enable_hashjoin = off
SET enable_mergejoin = off
AS $$
DECLARE
    st      event_sealer;
    horizon xid8;
    ids     bigint[];
    r       record;
    h       bytea;
    n       bigint;
    last_id bigint;
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'event_seal must run at READ COMMITTED, not %', current_setting('transaction_isolation');
    END IF;
    PERFORM pg_advisory_xact_lock(7422002);
    -- At READ COMMITTED each statement below takes a new snapshot, taken
    -- after the lock: it sees the previous seal committed.
    SELECT * INTO STRICT st FROM event_sealer WHERE id = 1;

    -- One statement reads the rows and the xmin of its own snapshot.
    SELECT pg_snapshot_xmin(pg_current_snapshot()), array_agg(l.id ORDER BY l.id)
      INTO horizon, ids
      FROM audit_log l
     WHERE l.txid >= st.audit_horizon
       AND NOT EXISTS (SELECT 1 FROM audit_chain c WHERE c.audit_id = l.id);
    h := st.audit_hash;
    n := st.audit_seq;
    last_id := st.audit_last_id;
    IF ids IS NOT NULL THEN
        FOR r IN SELECT l.id, l.actor_user_id, l.account_number, l.action_type, l.table_name, l.description, l.created_at
                   FROM audit_log l WHERE l.id = ANY (ids) ORDER BY l.id LOOP
            n := n + 1;
            h := audit_digest(h, r.id, r.actor_user_id, r.account_number, r.action_type, r.table_name, r.description, r.created_at);
            INSERT INTO audit_chain (seq, audit_id, hash) VALUES (n, r.id, h);
            last_id := r.id;
        END LOOP;
    END IF;
    audit_seq := n;
    UPDATE event_sealer SET audit_horizon = greatest(st.audit_horizon, horizon),
        audit_seq = n, audit_hash = h, audit_last_id = last_id WHERE id = 1;

    SELECT pg_snapshot_xmin(pg_current_snapshot()), array_agg(x.id ORDER BY x.id)
      INTO horizon, ids
      FROM notifications x
     WHERE x.txid >= st.notif_horizon
       AND NOT EXISTS (SELECT 1 FROM notification_feed f WHERE f.notification_id = x.id);
    notif_seq := st.notif_seq + coalesce(cardinality(ids), 0);
    IF ids IS NOT NULL THEN
        INSERT INTO notification_feed (seq, notification_id)
        SELECT st.notif_seq + u.o, u.id FROM unnest(ids) WITH ORDINALITY AS u(id, o);
        SELECT json_agg(json_build_object('seq', st.notif_seq + u.o, 'id', x.id, 'user_id', x.user_id,
                'message', x.message, 'created_at', x.created_at) ORDER BY u.o)
          INTO sealed_notifications
          FROM unnest(ids) WITH ORDINALITY AS u(id, o) JOIN notifications x ON x.id = u.id;
    END IF;
    UPDATE event_sealer SET notif_horizon = greatest(st.notif_horizon, horizon), notif_seq = event_seal.notif_seq,
        sealed_at = now() WHERE id = 1;

    IF notif_seq > st.notif_seq OR audit_seq > st.audit_seq THEN
        PERFORM pg_notify('meridian_sealed', notif_seq || '/' || audit_seq);
    END IF;
END $$;

-- A revoked token or a deactivated user ends its live connections at once
-- (server/ws.go). Revocations are rare and never inside a money transaction.
CREATE FUNCTION auth_tokens_announce_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('meridian_revoked', NEW.jti::text);
    RETURN NULL;
END $$;
CREATE TRIGGER auth_tokens_revoked AFTER UPDATE OF revoked_at ON auth_tokens
    FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
    EXECUTE FUNCTION auth_tokens_announce_revoked();

CREATE FUNCTION users_announce_deactivated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('meridian_revoked', 'user:' || NEW.id);
    RETURN NULL;
END $$;
CREATE TRIGGER users_deactivated AFTER UPDATE OF is_active ON users
    FOR EACH ROW WHEN (OLD.is_active AND NOT NEW.is_active)
    EXECUTE FUNCTION users_announce_deactivated();

-- Seal the rows written before this migration now, in this transaction,
-- rather than in the first seal of a running serve.
SELECT event_seal();
