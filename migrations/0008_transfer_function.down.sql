DROP FUNCTION transfer_money(bigint, text, text, numeric, text, text, text, timestamptz, interval, timestamptz);
DROP FUNCTION transfer_refused(bigint, text, text);
DROP FUNCTION money_text(numeric, text);
