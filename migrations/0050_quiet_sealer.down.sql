-- Back to 0017's event_seal: every seal updates event_sealer.
SET LOCAL lock_timeout = '5s';
CREATE OR REPLACE FUNCTION event_seal(OUT notif_seq bigint, OUT audit_seq bigint, OUT sealed_notifications json)
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public
SET plan_cache_mode = force_generic_plan
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
    c_seq   bigint[] := '{}';
    c_id    bigint[] := '{}';
    c_hash  bytea[] := '{}';
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
            c_seq := c_seq || n;
            c_id := c_id || r.id;
            c_hash := c_hash || h;
            last_id := r.id;
        END LOOP;
        -- The links are chained one by one above, and written in one statement.
        INSERT INTO audit_chain (seq, audit_id, hash) SELECT * FROM unnest(c_seq, c_id, c_hash);
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
