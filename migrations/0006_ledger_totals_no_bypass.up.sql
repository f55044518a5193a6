-- The ledger totals (0002) without a way around them. 0002's trigger
-- returned early when a session set meridian.bulk_ledger = 'on', a setting
-- any session may set: a way to write ledger rows the totals never see.
-- Now the totals are kept by a statement-level trigger over the inserted
-- rows (a transition table): one UPDATE per INSERT statement, however many
-- rows it writes, so a bulk load needs no bypass, and the hot path (one row
-- per statement) costs about what the row trigger did.
DROP TRIGGER transactions_totals ON transactions;
DROP FUNCTION ledger_totals_add();

CREATE FUNCTION ledger_totals_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE ledger_totals l SET
        transactions = l.transactions + x.transactions,
        transfers = l.transfers + x.transfers,
        sent = l.sent + x.sent,
        received = l.received + x.received,
        net = l.net + x.net
    FROM (
        SELECT count(*) AS transactions,
            count(*) FILTER (WHERE kind IN ('transfer', 'request') AND transaction_type = 'DEBIT') AS transfers,
            COALESCE(sum(amount) FILTER (WHERE kind IN ('transfer', 'request') AND transaction_type = 'DEBIT'), 0) AS sent,
            COALESCE(sum(amount) FILTER (WHERE kind IN ('transfer', 'request') AND transaction_type = 'CREDIT'), 0) AS received,
            COALESCE(sum(CASE transaction_type WHEN 'CREDIT' THEN amount ELSE -amount END), 0) AS net
        FROM new_rows) x
    WHERE l.shard = pg_backend_pid() % 64 AND x.transactions > 0;
    RETURN NULL;
END $$;
CREATE TRIGGER transactions_totals AFTER INSERT ON transactions
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_totals_add();
