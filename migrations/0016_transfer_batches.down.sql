-- Back to 0013: transfer_money runs its statements one by one, claiming
-- the key first and giving it back on a refusal.
DROP FUNCTION transfer_money(bigint, text, text, numeric, text, text, text, timestamptz, interval, timestamptz, numeric);
DROP FUNCTION transfer_money_batch(bigint[], text[], text[], numeric[], text[], text[], text[], timestamptz[], timestamptz[], interval, numeric, integer);

CREATE FUNCTION transfer_refused(p_user bigint, p_key text, p_code text)
    RETURNS TABLE (replayed boolean, body text, refused text)
LANGUAGE plpgsql AS $$
BEGIN
    IF p_key IS NOT NULL THEN
        DELETE FROM idempotency_keys WHERE user_id = p_user AND key = p_key AND response_status = 0;
    END IF;
    RETURN QUERY SELECT false, NULL::text, p_code;
END $$;

CREATE FUNCTION transfer_money(p_user bigint, p_from text, p_to text, p_amount numeric, p_description text,
        p_key text, p_hash text, p_now timestamptz, p_window interval, p_dated timestamptz, p_daily_limit numeric)
    RETURNS TABLE (replayed boolean, body text, refused text)
LANGUAGE plpgsql AS $$
DECLARE
    a record;
    src record;
    dst record;
    have_src boolean := false;
    have_dst boolean := false;
    stored record;
    debit_id bigint;
    debit_at timestamptz;
    reply jsonb;
BEGIN
    IF p_key IS NOT NULL THEN
        INSERT INTO idempotency_keys (user_id, key, request_hash, response_status, response_body, created_at)
        VALUES (p_user, p_key, p_hash, 0, 'null', p_now)
        ON CONFLICT (user_id, key) DO NOTHING;
        IF NOT FOUND THEN
            -- Identical requests racing on one key queue here behind the first.
            SELECT k.request_hash, k.response_body, k.created_at INTO stored
            FROM idempotency_keys k WHERE k.user_id = p_user AND k.key = p_key FOR UPDATE;
            IF stored.created_at < p_now - p_window THEN
                UPDATE idempotency_keys SET request_hash = p_hash, response_status = 0, response_body = 'null', created_at = p_now
                WHERE user_id = p_user AND key = p_key;
            ELSIF stored.request_hash <> p_hash THEN
                -- The key is the first request's: it stays as it is.
                RETURN QUERY SELECT false, NULL::text, 'idempotency_key_reused'::text;
                RETURN;
            ELSE
                RETURN QUERY SELECT true, stored.response_body::text, NULL::text;
                RETURN;
            END IF;
        END IF;
    END IF;

    -- Both accounts, locked in the order of their ids in one statement, so
    -- two transfers that cross (A to B while B to A) queue instead of
    -- deadlocking.
    FOR a IN
        SELECT ac.id, ac.user_id, ac.account_number, ac.currency, ac.balance, ac.closed_at IS NOT NULL AS closed, u.is_active,
            u.daily_transfer_limit
        FROM accounts ac JOIN users u ON u.id = ac.user_id
        WHERE ac.account_number IN (p_from, p_to)
        ORDER BY ac.id
        FOR UPDATE OF ac
    LOOP
        IF a.account_number = p_from THEN
            src := a;
            have_src := true;
        END IF;
        IF a.account_number = p_to THEN
            dst := a;
            have_dst := true;
        END IF;
    END LOOP;
    IF NOT have_src THEN
        RETURN QUERY SELECT * FROM transfer_refused(p_user, p_key, 'account_not_found');
        RETURN;
    END IF;
    IF src.user_id <> p_user OR src.closed THEN
        RETURN QUERY SELECT * FROM transfer_refused(p_user, p_key, 'account_not_found');
        RETURN;
    END IF;
    IF NOT src.is_active THEN -- a deactivated sender, whatever a cached session says
        RETURN QUERY SELECT * FROM transfer_refused(p_user, p_key, 'user_deactivated');
        RETURN;
    END IF;
    IF p_from = p_to THEN
        RETURN QUERY SELECT * FROM transfer_refused(p_user, p_key, 'same_account');
        RETURN;
    END IF;
    IF NOT have_dst THEN
        RETURN QUERY SELECT * FROM transfer_refused(p_user, p_key, 'account_not_found');
        RETURN;
    END IF;
    IF dst.closed THEN
        RETURN QUERY SELECT * FROM transfer_refused(p_user, p_key, 'account_closed');
        RETURN;
    END IF;
    IF NOT dst.is_active THEN
        RETURN QUERY SELECT * FROM transfer_refused(p_user, p_key, 'recipient_inactive');
        RETURN;
    END IF;
    IF src.currency <> dst.currency THEN
        RETURN QUERY SELECT * FROM transfer_refused(p_user, p_key, 'currency_mismatch');
        RETURN;
    END IF;
    IF src.balance < p_amount THEN
        RETURN QUERY SELECT * FROM transfer_refused(p_user, p_key, 'insufficient_funds');
        RETURN;
    END IF;
    -- Last of the checks: the day's row stays locked until the commit.
    IF dst.user_id <> p_user
        AND NOT spend_daily_limit(p_user, src.currency, p_amount, coalesce(p_dated, p_now), src.daily_transfer_limit, p_daily_limit) THEN
        RETURN QUERY SELECT * FROM transfer_refused(p_user, p_key, 'daily_limit_exceeded');
        RETURN;
    END IF;

    -- The CHECK (balance >= 0) stays the backstop of the test above.
    UPDATE accounts SET balance = balance + CASE WHEN id = src.id THEN -p_amount ELSE p_amount END
    WHERE id IN (src.id, dst.id);

    -- Both ledger rows in one statement: the ledger totals' statement
    -- trigger runs once. The DEBIT row is written first, so it has the
    -- smaller id.
    WITH rows AS (
        INSERT INTO transactions (account_id, user_id, transaction_type, kind, amount, from_account_id, to_account_id, description, created_at)
        VALUES (src.id, src.user_id, 'DEBIT', 'transfer', p_amount, src.id, dst.id, p_description, coalesce(p_dated, now())),
               (dst.id, dst.user_id, 'CREDIT', 'transfer', p_amount, src.id, dst.id, p_description, coalesce(p_dated, now()))
        RETURNING id, created_at, transaction_type)
    SELECT r.id, r.created_at INTO STRICT debit_id, debit_at FROM rows r WHERE r.transaction_type = 'DEBIT';

    INSERT INTO notifications (user_id, message)
    VALUES (dst.user_id, 'You received ' || money_text(p_amount, src.currency) || ' from account ' || src.account_number);
    INSERT INTO audit_log (actor_user_id, account_number, action_type, table_name, description)
    VALUES (p_user, src.account_number, 'TRANSFER', 'transactions',
        'Transferred ' || money_text(p_amount, src.currency) || ' from ' || src.account_number || ' to ' || dst.account_number
        || ' (transaction ' || debit_id || ')');

    reply := jsonb_build_object('message', 'Transfer successful', 'transaction', jsonb_build_object(
        'id', debit_id,
        'transaction_date', to_char(debit_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        'transaction_type', 'DEBIT',
        'amount', trim_scale(p_amount),
        'account_id', src.account_number,
        'to_account_id', dst.account_number,
        'description', p_description));
    IF p_key IS NOT NULL THEN
        UPDATE idempotency_keys SET response_status = 201, response_body = reply
        WHERE user_id = p_user AND key = p_key;
    END IF;
    RETURN QUERY SELECT false, reply::text, NULL::text;
END $$;
