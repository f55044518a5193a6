-- Interest (contract §8), written once: pkg/bank/interest.go runs it.
--
-- Each day an account of a type with a rate accrues its balance at the end
-- of that UTC day x rate / 100 / 365, exact to the 1/10000 of a cent (6
-- decimals, half even), from the day it opened (that day's end-of-day
-- balance included). On the first day of each month the whole cents
-- accrued in the month before, plus the fraction carried from before, are
-- paid as a posting (kind interest: a CREDIT Interest on the account, the
-- bank's interest_expense taking the other side), dated that day at 00:00
-- UTC; the fraction left stays carried. An account accrues each day once
-- (interest_accruals' key), is paid for each day once (interest_payments
-- cover days after the last one's through) and is worked on by one transaction at a time (its interest_cursors
-- row, locked), in the order of its days, however many instances run it and
-- however late: a catch-up of missed days gives the same cents as running
-- every day. Closing an account first pays what it accrued (pkg/bank
-- CloseAccount, p_settle); a closed account accrues no more.

-- interest_pay pays account p_account what it accrued after its last
-- payment through p_through, with the fraction that payment carried: the
-- whole cents as one posting (kind interest, key interest:<account>:<day>)
-- dated p_at (NULL: now), the rest carried. Nothing accrued in those days:
-- nothing is written. Called by interest_accrue only, as the owner.
CREATE OR REPLACE FUNCTION interest_pay(p_account bigint, p_number text, p_through date, p_at timestamptz, p_window interval)
    RETURNS boolean
LANGUAGE plpgsql
SET search_path = pg_catalog, public, pg_temp
AS $$
DECLARE
    last_through date;
    carry numeric;
    total numeric;
    pay numeric;
    posting bigint;
    got record;
BEGIN
    SELECT p.through, p.carried INTO last_through, carry FROM interest_payments p
    WHERE p.account_id = p_account ORDER BY p.through DESC LIMIT 1;
    IF NOT EXISTS (SELECT 1 FROM interest_accruals x WHERE x.account_id = p_account
            AND x.day > coalesce(last_through, '-infinity'::date) AND x.day <= p_through) THEN
        RETURN false;
    END IF;
    total := coalesce(carry, 0) + (SELECT sum(x.accrued) FROM interest_accruals x WHERE x.account_id = p_account
        AND x.day > coalesce(last_through, '-infinity'::date) AND x.day <= p_through);
    pay := trunc(total, 2);
    IF pay >= 0.01 THEN
        SELECT * INTO got FROM post_batch(ARRAY['interest'], ARRAY[NULL::bigint], ARRAY[NULL::text], ARRAY[p_number],
            ARRAY[NULL::bigint], ARRAY[pay], ARRAY['Interest'],
            ARRAY['interest:' || p_account || ':' || p_through],
            ARRAY['interest|' || p_account || '|' || p_through || '|' || pay],
            ARRAY[p_at], p_window, 0, NULL, true);
        IF got.refused IS NOT NULL THEN
            RAISE EXCEPTION 'interest of account % through % refused: %', p_account, p_through, got.refused;
        END IF;
        posting := (got.body::jsonb ->> 'id')::bigint;
    ELSE
        pay := 0;
    END IF;
    INSERT INTO interest_payments (account_id, through, paid, carried, posting_id, paid_at)
    VALUES (p_account, p_through, pay, total - pay, posting, coalesce(p_at, now()));
    RETURN true;
END $$;

-- interest_accrue accrues account p_account day by day through p_through,
-- paying each month as its first day comes, in the caller's transaction;
-- with p_settle, it then pays at once what the account accrued since its
-- last payment (closing an account). Another transaction working on the
-- account: it does nothing (skipped). Returns the days accrued and the
-- payments made.
CREATE OR REPLACE FUNCTION interest_accrue(p_account bigint, p_through date, p_window interval, p_settle boolean)
    RETURNS TABLE (days integer, payments integer, skipped boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
DECLARE
    acc record;
    cur date;
    d date;
    bal numeric;
BEGIN
    days := 0;
    payments := 0;
    skipped := false;
    SELECT a.id, a.account_number, (a.created_at AT TIME ZONE 'UTC')::date AS opened, (a.closed_at AT TIME ZONE 'UTC')::date AS closed,
        coalesce(t.interest_rate, 0) AS rate INTO acc
    FROM accounts a JOIN account_types t ON t.id = a.account_type_id WHERE a.id = p_account AND a.class = 'customer';
    IF NOT FOUND THEN
        RETURN NEXT;
        RETURN;
    END IF;
    INSERT INTO interest_cursors (account_id, accrued_through) VALUES (p_account, acc.opened - 1)
    ON CONFLICT (account_id) DO NOTHING;
    SELECT c.accrued_through INTO cur FROM interest_cursors c WHERE c.account_id = p_account FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        skipped := true; -- another transaction works on it
        RETURN NEXT;
        RETURN;
    END IF;
    d := cur + 1;
    -- The balance at the end of the day before the first to accrue, then
    -- each day's postings added (a payment on the 1st, dated 00:00, counts
    -- in the 1st's balance).
    bal := (SELECT coalesce(sum(e.signed_amount), 0) FROM ledger_entries e
        WHERE e.account_id = p_account AND e.created_at < (d::timestamp AT TIME ZONE 'UTC'));
    WHILE d <= p_through AND (acc.closed IS NULL OR d <= acc.closed) LOOP
        -- The first of a month: the month before is paid before this day
        -- accrues.
        IF extract(day FROM d) = 1 AND interest_pay(p_account, acc.account_number, d - 1, d::timestamp AT TIME ZONE 'UTC', p_window) THEN
            payments := payments + 1;
        END IF;
        bal := bal + (SELECT coalesce(sum(e.signed_amount), 0) FROM ledger_entries e
            WHERE e.account_id = p_account AND e.created_at >= (d::timestamp AT TIME ZONE 'UTC')
                AND e.created_at < ((d + 1)::timestamp AT TIME ZONE 'UTC'));
        IF acc.rate > 0 AND bal > 0 THEN
            INSERT INTO interest_accruals (account_id, day, balance, rate, accrued)
            VALUES (p_account, d, bal, acc.rate, round_half_even(bal * acc.rate / 100 / 365, 6));
        END IF;
        days := days + 1;
        d := d + 1;
    END LOOP;
    IF d - 1 > cur THEN
        UPDATE interest_cursors SET accrued_through = d - 1 WHERE account_id = p_account;
    END IF;
    IF p_settle AND interest_pay(p_account, acc.account_number, d - 1, NULL, p_window) THEN
        payments := payments + 1;
    END IF;
    RETURN NEXT;
END $$;

-- set_interest_rate sets an account type's annual rate (percent, 0 to 100,
-- at most 4 decimals), the only way it changes, and writes the audit row.
-- Accounts of the type start accruing at the new rate from the next day
-- the interest run does: those that accrued none before begin today.
-- Returns the type, or refused: 'account_type_not_found', 'invalid_rate'.
CREATE OR REPLACE FUNCTION set_interest_rate(p_actor bigint, p_type smallint, p_rate numeric)
    RETURNS TABLE (refused text, id smallint, type_name text, currency text, interest_rate numeric)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    t account_types;
BEGIN
    IF p_rate IS NULL OR p_rate < 0 OR p_rate > 100 OR p_rate <> round(p_rate, 4) THEN
        RETURN QUERY SELECT 'invalid_rate'::text, p_type, NULL::text, NULL::text, NULL::numeric;
        RETURN;
    END IF;
    UPDATE account_types a SET interest_rate = p_rate WHERE a.id = p_type RETURNING * INTO t;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'account_type_not_found'::text, p_type, NULL::text, NULL::text, NULL::numeric;
        RETURN;
    END IF;
    IF p_rate > 0 THEN
        INSERT INTO interest_cursors (account_id, accrued_through)
        SELECT a.id, (now() AT TIME ZONE 'UTC')::date - 1 FROM accounts a
        WHERE a.account_type_id = p_type AND a.class = 'customer' AND a.closed_at IS NULL
        ON CONFLICT (account_id) DO NOTHING;
    END IF;
    INSERT INTO audit_log (actor_user_id, action_type, table_name, description)
    VALUES (p_actor, 'INTEREST_RATE', 'account_types', 'Set the interest rate of ' || t.type_name || ' (' || t.currency || ') to '
        || to_char(p_rate, 'FM990.0000') || ' %' || CASE WHEN p_actor IS NULL THEN ' (via CLI)' ELSE '' END);
    RETURN QUERY SELECT NULL::text, t.id, t.type_name, t.currency::text, t.interest_rate;
END $$;
