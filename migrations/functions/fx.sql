-- Exchange between currencies (contract §8): the rounding rule, the rates
-- and the quotes, written once. pkg/bank/fx.go calls these; post_batch
-- makes the exchange itself from a quote (kind exchange).

-- round_half_even rounds v to places decimals, a tie to the even neighbour
-- (banker's rounding): 0.125 -> 0.12, 0.135 -> 0.14, -0.125 -> -0.12. Every
-- converted amount is rounded with it.
CREATE OR REPLACE FUNCTION round_half_even(v numeric, places integer) RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, public, pg_temp
AS $$
    SELECT CASE WHEN abs(x.s - trunc(x.s)) = 0.5
        THEN round((trunc(x.s) + CASE WHEN mod(trunc(x.s), 2) = 0 THEN 0 ELSE sign(x.s) END) / (10::numeric ^ places), places)
        ELSE round(v, places) END
    FROM (SELECT v * (10::numeric ^ places) AS s) x
$$;

-- fx_rate is the rate that converts p_base into p_quote: the one an
-- administrator set for the pair, or the inverse of the one set for the
-- other way (1 / rate, to 8 decimals, half even); 1 for a currency into
-- itself; NULL when neither is set.
CREATE OR REPLACE FUNCTION fx_rate(p_base text, p_quote text) RETURNS numeric
LANGUAGE sql STABLE
SET search_path = pg_catalog, public, pg_temp
AS $$
    SELECT CASE WHEN upper(p_base) = upper(p_quote) THEN 1::numeric
        ELSE coalesce(
            (SELECT r.rate FROM fx_rates r WHERE r.base = upper(p_base) AND r.quote = upper(p_quote)),
            (SELECT round_half_even(1 / r.rate, 8) FROM fx_rates r WHERE r.base = upper(p_quote) AND r.quote = upper(p_base)))
        END
$$;

-- fx_convert is amount converted at rate, less the bank's spread
-- (spread_bps hundredths of a percent, taken against the customer), to the
-- cent, half even: amount x rate x (1 - spread_bps / 10000).
CREATE OR REPLACE FUNCTION fx_convert(p_amount numeric, p_rate numeric, p_spread_bps integer) RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, public, pg_temp
AS $$
    SELECT round_half_even(p_amount * p_rate * (1 - p_spread_bps::numeric / 10000), 2)
$$;

-- set_fx_rate sets the rate of a pair, the only way a rate changes (the
-- runtime role may only read fx_rates), and writes the audit row. The
-- inverse pair is derived, never stored: setting EUR/USD removes a USD/EUR
-- set before. Both currencies must be ones the bank keeps accounts in.
-- Returns the row, or refused: 'unknown_currency', 'same_currency',
-- 'invalid_rate'.
CREATE OR REPLACE FUNCTION set_fx_rate(p_actor bigint, p_base text, p_quote text, p_rate numeric)
    RETURNS TABLE (refused text, base text, quote text, rate numeric, updated_at timestamptz)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    b text := upper(p_base);
    q text := upper(p_quote);
    r fx_rates;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM accounts a WHERE a.class = 'vault' AND a.currency = b)
        OR NOT EXISTS (SELECT 1 FROM accounts a WHERE a.class = 'vault' AND a.currency = q) THEN
        RETURN QUERY SELECT 'unknown_currency'::text, b, q, NULL::numeric, NULL::timestamptz;
        RETURN;
    END IF;
    IF b = q THEN
        RETURN QUERY SELECT 'same_currency'::text, b, q, NULL::numeric, NULL::timestamptz;
        RETURN;
    END IF;
    IF p_rate IS NULL OR p_rate <= 0 OR p_rate <> round(p_rate, 8) OR p_rate >= 10000000000 THEN
        RETURN QUERY SELECT 'invalid_rate'::text, b, q, NULL::numeric, NULL::timestamptz;
        RETURN;
    END IF;
    DELETE FROM fx_rates x WHERE x.base = q AND x.quote = b;
    INSERT INTO fx_rates AS x (base, quote, rate, updated_at) VALUES (b, q, p_rate, now())
    ON CONFLICT ON CONSTRAINT fx_rates_pkey DO UPDATE SET rate = EXCLUDED.rate, updated_at = EXCLUDED.updated_at
    RETURNING * INTO r;
    INSERT INTO audit_log (actor_user_id, action_type, table_name, description)
    VALUES (p_actor, 'FX_RATE', 'fx_rates', 'Set the rate ' || b || '/' || q || ' to ' || to_char(p_rate, 'FM9999999990.00000000')
        || CASE WHEN p_actor IS NULL THEN ' (via CLI)' ELSE '' END);
    RETURN QUERY SELECT NULL::text, r.base::text, r.quote::text, r.rate, r.updated_at;
END $$;

-- fx_quote fixes, for p_ttl, the rate at which p_user may exchange p_amount
-- from their own open account p_from into the open account p_to (theirs,
-- or any customer's, as in a transfer) held in another currency, and the
-- converted amount (fx_convert, with the bank's spread), at least 1.00: a
-- round trip of smaller amounts could gain a cent by rounding half even
-- (with a spread of 26 bps or more, converting 1.00 or more and back never
-- returns more than was sent: fx_test.go's property). Only this
-- function makes quotes (the runtime role may only read them): the amount a
-- quote promises is the bank's to fix. Returns the quote, or refused:
-- 'account_not_found', 'same_account', 'same_currency', 'account_closed',
-- 'recipient_inactive', 'no_rate', 'amount_too_small'.
CREATE OR REPLACE FUNCTION fx_quote(p_user bigint, p_from text, p_to text, p_amount numeric, p_spread_bps integer, p_ttl interval)
    RETURNS TABLE (refused text, id bigint, from_currency text, to_currency text, rate numeric, amount numeric,
        converted_amount numeric, expires_at timestamptz)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    src record;
    dst record;
    r numeric;
    converted numeric;
    qt fx_quotes;
BEGIN
    IF p_spread_bps IS NULL OR p_spread_bps < 0 OR p_spread_bps >= 10000 OR p_amount IS NULL OR p_amount <= 0
        OR p_ttl IS NULL OR p_ttl <= interval '0' OR p_ttl > interval '1 hour' THEN
        RAISE EXCEPTION 'fx_quote: invalid arguments' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT a.id, a.currency::text AS currency INTO src FROM accounts a
    WHERE a.account_number = p_from AND a.class = 'customer' AND a.user_id = p_user AND a.closed_at IS NULL;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'account_not_found'::text, NULL::bigint, NULL::text, NULL::text, NULL::numeric, NULL::numeric, NULL::numeric, NULL::timestamptz;
        RETURN;
    END IF;
    SELECT a.id, a.currency::text AS currency, a.closed_at IS NOT NULL AS closed, u.is_active INTO dst
    FROM accounts a JOIN users u ON u.id = a.user_id WHERE a.account_number = p_to AND a.class = 'customer';
    refused := CASE
        WHEN dst.id IS NULL THEN 'account_not_found'
        WHEN dst.id = src.id THEN 'same_account'
        WHEN dst.currency = src.currency THEN 'same_currency'
        WHEN dst.closed THEN 'account_closed'
        WHEN NOT dst.is_active THEN 'recipient_inactive' END;
    IF refused IS NULL THEN
        r := fx_rate(src.currency, dst.currency);
        IF r IS NULL THEN
            refused := 'no_rate';
        ELSE
            converted := fx_convert(p_amount, r, p_spread_bps);
            IF converted < 1 THEN
                refused := 'amount_too_small';
            END IF;
        END IF;
    END IF;
    IF refused IS NOT NULL THEN
        RETURN QUERY SELECT refused, NULL::bigint, src.currency, dst.currency, NULL::numeric, NULL::numeric, NULL::numeric, NULL::timestamptz;
        RETURN;
    END IF;
    INSERT INTO fx_quotes (user_id, from_account_id, to_account_id, from_currency, to_currency, rate, spread_bps, amount, converted_amount, expires_at)
    VALUES (p_user, src.id, dst.id, src.currency, dst.currency, r, p_spread_bps, p_amount, converted, now() + p_ttl)
    RETURNING * INTO qt;
    RETURN QUERY SELECT NULL::text, qt.id, qt.from_currency::text, qt.to_currency::text, qt.rate, qt.amount, qt.converted_amount, qt.expires_at;
END $$;
