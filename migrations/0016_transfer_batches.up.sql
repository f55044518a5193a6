-- Transfers in batches: many customers' transfers in one transaction.
--
-- Measured on the 2-core bench machine (pgbench, scripts/bench.sh's data):
-- one transfer_money per transaction did about 2,700 transfers/s with the
-- machine's CPU saturated; the same calls, sixteen to a transaction, did
-- about 5,000/s. What a batch saves is the per-transaction work: the round
-- trip, parse and bind, snapshot, commit record and WAL flush, and the
-- sealer's pass over the new rows, once per batch instead of once per
-- transfer.
--
-- transfer_money_batch runs transfer_money for each entry, so every rule
-- (ownership, state, currency, funds, the daily limit, the key) is the one
-- function's, unchanged. It adds two things:
--   * First it locks every account the batch names, in the order of their
--     ids, in one statement. Two batches (or a batch and a single transfer,
--     which locks its two accounts the same way) then queue instead of
--     deadlocking, whatever accounts they share.
--   * Then it runs the entries in the order of the sender's user id (in
--     arrival order for one user), so the daily-limit rows, the only other
--     rows a transfer locks, are locked in one order by every batch too.
-- A refusal is an answer, as for one transfer: the entry's key is given
-- back and the others go on. An error raised by any entry rolls the whole
-- batch back; pkg/bank then runs its entries one by one, each with its own
-- answer.
--
-- Entry i's answer is the row with ord = i (1-based).
CREATE FUNCTION transfer_money_batch(p_user bigint[], p_from text[], p_to text[], p_amount numeric[], p_description text[],
        p_key text[], p_hash text[], p_now timestamptz[], p_dated timestamptz[], p_window interval, p_daily_limit numeric)
    RETURNS TABLE (ord int, replayed boolean, body text, refused text)
LANGUAGE plpgsql AS $$
DECLARE
    n int := cardinality(p_user);
    i int;
    r record;
BEGIN
    IF cardinality(p_from) <> n OR cardinality(p_to) <> n OR cardinality(p_amount) <> n OR cardinality(p_description) <> n
        OR cardinality(p_key) <> n OR cardinality(p_hash) <> n OR cardinality(p_now) <> n OR cardinality(p_dated) <> n THEN
        RAISE EXCEPTION 'transfer_money_batch: the arrays differ in length';
    END IF;
    PERFORM 1 FROM accounts ac WHERE ac.account_number = ANY (p_from || p_to) ORDER BY ac.id FOR UPDATE;
    FOR i IN SELECT u.o FROM unnest(p_user) WITH ORDINALITY AS u(uid, o) ORDER BY u.uid, u.o LOOP
        SELECT * INTO STRICT r FROM transfer_money(p_user[i], p_from[i], p_to[i], p_amount[i], p_description[i],
            p_key[i], p_hash[i], p_now[i], p_window, p_dated[i], p_daily_limit);
        ord := i;
        replayed := r.replayed;
        body := r.body;
        refused := r.refused;
        RETURN NEXT;
    END LOOP;
END $$;
