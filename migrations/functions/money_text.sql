-- money_text writes an amount in its currency, exactly as pkg/money Format
-- does ("$1,250.50", "€12.50", "12.50 CHF"): every text about money that the
-- database writes (post_batch's notifications and audit rows) goes through
-- it. TestMoneyTextMatchesFormat holds the two together. (Created by
-- migrations/0008; kept here since.)
CREATE OR REPLACE FUNCTION money_text(amount numeric, currency text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN amount < 0 THEN '-' ELSE '' END
        || CASE upper(currency) WHEN 'USD' THEN '$' WHEN 'EUR' THEN '€' WHEN 'GBP' THEN '£' ELSE '' END
        || to_char(abs(amount), 'FM999,999,999,999,999,999,990.00')
        || CASE WHEN upper(currency) IN ('USD', 'EUR', 'GBP') OR coalesce(currency, '') = '' THEN '' ELSE ' ' || upper(currency) END
$$;
