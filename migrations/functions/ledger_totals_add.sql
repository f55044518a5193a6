-- The ledger totals (migrations/0002, per currency since 0005, a statement
-- trigger since 0006) that the admin dashboard reads instead of the
-- ledger: kept for the customers' rows only (the bank's accounts, 0018,
-- carry the other side of every deposit, withdrawal, exchange and interest
-- posting, which would cancel the net out). Kept here since 0018.
CREATE OR REPLACE FUNCTION ledger_totals_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO ledger_totals AS l (shard, currency, transactions, transfers, sent, received, net)
    SELECT pg_backend_pid() % 64, a.currency, count(*),
        count(*) FILTER (WHERE n.kind IN ('transfer', 'request') AND n.transaction_type = 'DEBIT'),
        COALESCE(sum(n.amount) FILTER (WHERE n.kind IN ('transfer', 'request') AND n.transaction_type = 'DEBIT'), 0),
        COALESCE(sum(n.amount) FILTER (WHERE n.kind IN ('transfer', 'request') AND n.transaction_type = 'CREDIT'), 0),
        COALESCE(sum(CASE n.transaction_type WHEN 'CREDIT' THEN n.amount ELSE -n.amount END), 0)
    FROM new_rows n JOIN accounts a ON a.id = n.account_id
    WHERE a.class = 'customer'
    GROUP BY a.currency
    ON CONFLICT (shard, currency) DO UPDATE SET
        transactions = l.transactions + EXCLUDED.transactions,
        transfers = l.transfers + EXCLUDED.transfers,
        sent = l.sent + EXCLUDED.sent,
        received = l.received + EXCLUDED.received,
        net = l.net + EXCLUDED.net;
    RETURN NULL;
END $$;
