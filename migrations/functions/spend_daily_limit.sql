-- spend_daily_limit is the one rule of the daily limit (contract §6), for
-- every payment that counts (post_batch: a transfer to another customer, an
-- accepted money request, a scheduled run): it adds p_amount to what p_user
-- sent in p_currency on the UTC day of p_at and answers true, or, when that
-- would pass the user's limit (p_own, the users.daily_transfer_limit the
-- caller read with the accounts, else p_default), changes nothing and
-- answers false. One statement both locks the day's row and counts: a
-- concurrent payment of the same user and currency waits on the row until
-- this one's transaction ends, then sees its total. Call it after the
-- accounts are locked, and only once the payment is otherwise allowed: the
-- row stays locked until the commit. (Created by migrations/0013; kept here
-- since.)
CREATE OR REPLACE FUNCTION spend_daily_limit(p_user bigint, p_currency text, p_amount numeric, p_at timestamptz, p_own numeric, p_default numeric)
    RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    lim numeric := coalesce(p_own, p_default);
BEGIN
    IF lim IS NULL OR p_amount > lim THEN
        RETURN false;
    END IF;
    INSERT INTO daily_outgoing AS d (user_id, currency, day, total)
    VALUES (p_user, p_currency, (p_at AT TIME ZONE 'UTC')::date, p_amount)
    ON CONFLICT (user_id, currency, day) DO UPDATE SET total = d.total + EXCLUDED.total
        WHERE d.total + EXCLUDED.total <= lim;
    RETURN FOUND;
END $$;
