-- The ledger totals (0002, per currency since 0005) without a way around
-- them. Their row trigger returned early when a session set
-- meridian.bulk_ledger = 'on', a setting any session may set: a way to write
-- ledger rows the totals never see. Now the totals are kept by a
-- statement-level trigger over the inserted rows (a transition table): one
-- statement per INSERT, however many rows it writes, so a bulk load needs no
-- bypass, and a transfer (both its rows in one INSERT) adds to its shard
-- once.
DROP TRIGGER transactions_totals ON transactions;
DROP FUNCTION ledger_totals_add();

CREATE FUNCTION ledger_totals_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO ledger_totals AS l (shard, currency, transactions, transfers, sent, received, net)
    SELECT pg_backend_pid() % 64, a.currency, count(*),
        count(*) FILTER (WHERE n.kind IN ('transfer', 'request') AND n.transaction_type = 'DEBIT'),
        COALESCE(sum(n.amount) FILTER (WHERE n.kind IN ('transfer', 'request') AND n.transaction_type = 'DEBIT'), 0),
        COALESCE(sum(n.amount) FILTER (WHERE n.kind IN ('transfer', 'request') AND n.transaction_type = 'CREDIT'), 0),
        COALESCE(sum(CASE n.transaction_type WHEN 'CREDIT' THEN n.amount ELSE -n.amount END), 0)
    FROM new_rows n JOIN accounts a ON a.id = n.account_id
    GROUP BY a.currency
    ON CONFLICT (shard, currency) DO UPDATE SET
        transactions = l.transactions + EXCLUDED.transactions,
        transfers = l.transfers + EXCLUDED.transfers,
        sent = l.sent + EXCLUDED.sent,
        received = l.received + EXCLUDED.received,
        net = l.net + EXCLUDED.net;
    RETURN NULL;
END $$;
CREATE TRIGGER transactions_totals AFTER INSERT ON transactions
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_totals_add();
