-- webhook_seal seals every committed webhook event not sealed yet into
-- webhook_feed, in commit order, and returns the feed's newest seq. It is
-- event_seal's method (migrations/functions/event_seal.sql, explained in
-- migrations/0004) applied to webhook_events: seals run one at a time under
-- an advisory lock, each reads the events visible in one snapshot together
-- with that snapshot's xmin (the horizon: every transaction below it had
-- ended), so every event of a later seal committed after every event of an
-- earlier one, and a reader of "seq > last" never misses one. Run it in its
-- own transaction at READ COMMITTED (autocommit: SELECT webhook_seal()).
--
-- Every instance's dispatcher calls it every second and after every seal
-- of the audit chain, so it never waits: when another seal holds the lock
-- it returns NULL at once (that seal, or the next second's, takes what
-- this one would have). A seal that finds nothing writes nothing, so an
-- idle bank writes no WAL for it.
-- Created by migrations/0026; the dispatcher of serve runs it
-- (pkg/bank/webhooks.go).
--
-- SECURITY DEFINER: the runtime role may only read the feed; its
-- search_path ends with pg_temp, so a caller's temporary table can never
-- stand in for one of its tables.
CREATE OR REPLACE FUNCTION webhook_seal() RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    st      webhook_sealer;
    seen_to xid8;
    ids     bigint[];
    base    bigint;
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'webhook_seal must run at READ COMMITTED, not %', current_setting('transaction_isolation');
    END IF;
    IF NOT pg_try_advisory_xact_lock(7422003) THEN
        RETURN NULL;
    END IF;
    SELECT * INTO STRICT st FROM webhook_sealer WHERE id = 1;
    -- One statement reads the events and the xmin of its own snapshot.
    SELECT pg_snapshot_xmin(pg_current_snapshot()), array_agg(e.id ORDER BY e.id)
      INTO seen_to, ids
      FROM webhook_events e
     WHERE e.txid >= st.horizon
       AND NOT EXISTS (SELECT 1 FROM webhook_feed f WHERE f.event_id = e.id);
    base := greatest(st.seq, coalesce((SELECT max(f.seq) FROM webhook_feed f), 0));
    IF ids IS NULL THEN
        -- Nothing new: the horizon left behind only widens the next scan.
        RETURN base;
    END IF;
    INSERT INTO webhook_feed (seq, event_id, user_id)
    SELECT base + u.o, u.id, e.user_id
      FROM unnest(ids) WITH ORDINALITY AS u(id, o) JOIN webhook_events e ON e.id = u.id;
    UPDATE webhook_sealer SET horizon = greatest(st.horizon, seen_to), seq = base + coalesce(cardinality(ids), 0) WHERE id = 1;
    RETURN base + coalesce(cardinality(ids), 0);
END $$;
