-- event_seal seals every committed audit and notification row not sealed
-- yet, in commit order, and returns the newest seq of each feed, the
-- notifications it sealed (JSON, so the process that sealed them can push
-- them without reading them back) and how many links it found that it had
-- not written (foreign_links). Run it in its own transaction at READ
-- COMMITTED (autocommit: SELECT * FROM event_seal()). Created by
-- migrations/0004 (where why this is commit order is explained), made
-- cheaper by 0017; kept here since.
--
-- SECURITY DEFINER: the runtime role may only read the chain and the feed;
-- this function, running as their owner, is the only writer. Its
-- search_path ends with pg_temp, so a caller's temporary table can never
-- stand in for one of its tables.
--
-- A link it did not write (a DBA's, or one a runtime role could insert
-- before it was refused that right) must not stop it for good: it seals
-- after the highest seq there is, chaining onto the chain as it stands, and
-- counts the links above its own head in foreign_links (serve logs them and
-- counts them in /metrics). `audit-log verify` then names the first link
-- that does not verify.
DROP FUNCTION IF EXISTS event_seal();
CREATE FUNCTION event_seal(OUT notif_seq bigint, OUT audit_seq bigint, OUT sealed_notifications json, OUT foreign_links bigint)
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
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
    top     record;
    base    bigint;
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
    foreign_links := 0;
    -- Links above this sealer's head were not written by it.
    SELECT c.seq, c.hash, c.audit_id INTO top FROM audit_chain c ORDER BY c.seq DESC LIMIT 1;
    IF top.seq > n THEN
        foreign_links := top.seq - n;
        n := top.seq;
        h := top.hash;
        last_id := top.audit_id;
    END IF;
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
    -- Nothing new: nothing written. An idle bank then writes no WAL at all,
    -- so archive_timeout archives nothing (a seal a second that only moved
    -- the horizons forced a new 16 MB segment into the archive every
    -- archive_timeout). A horizon left behind only widens the next scan by
    -- rows already sealed.
    IF n <> st.audit_seq THEN
        UPDATE event_sealer SET audit_horizon = greatest(st.audit_horizon, horizon),
            audit_seq = n, audit_hash = h, audit_last_id = last_id WHERE id = 1;
    END IF;

    SELECT pg_snapshot_xmin(pg_current_snapshot()), array_agg(x.id ORDER BY x.id)
      INTO horizon, ids
      FROM notifications x
     WHERE x.txid >= st.notif_horizon
       AND NOT EXISTS (SELECT 1 FROM notification_feed f WHERE f.notification_id = x.id);
    -- Entries of the feed above this sealer's head were not written by it.
    base := coalesce((SELECT max(f.seq) FROM notification_feed f), 0);
    IF base > st.notif_seq THEN
        foreign_links := foreign_links + (base - st.notif_seq);
    ELSE
        base := st.notif_seq;
    END IF;
    notif_seq := base + coalesce(cardinality(ids), 0);
    IF ids IS NOT NULL THEN
        INSERT INTO notification_feed (seq, notification_id)
        SELECT base + u.o, u.id FROM unnest(ids) WITH ORDINALITY AS u(id, o);
        SELECT json_agg(json_build_object('seq', base + u.o, 'id', x.id, 'user_id', x.user_id,
                'message', x.message, 'created_at', x.created_at) ORDER BY u.o)
          INTO sealed_notifications
          FROM unnest(ids) WITH ORDINALITY AS u(id, o) JOIN notifications x ON x.id = u.id;
    END IF;
    IF ids IS NOT NULL OR audit_seq > st.audit_seq THEN
        UPDATE event_sealer SET notif_horizon = greatest(st.notif_horizon, horizon), notif_seq = event_seal.notif_seq,
            sealed_at = now() WHERE id = 1;
    END IF;

    IF notif_seq > st.notif_seq OR audit_seq > st.audit_seq THEN
        PERFORM pg_notify('meridian_sealed', notif_seq || '/' || audit_seq);
    END IF;
END $$;
