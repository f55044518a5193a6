-- Back to 0005's row-level trigger, but without its meridian.bulk_ledger
-- bypass: a roll-back must not reopen a way around the totals.
DROP TRIGGER transactions_totals ON transactions;
DROP FUNCTION ledger_totals_add();

CREATE FUNCTION ledger_totals_add() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    payment boolean := NEW.kind IN ('transfer', 'request');
    cur char(3);
BEGIN
    SELECT currency INTO STRICT cur FROM accounts WHERE id = NEW.account_id;
    INSERT INTO ledger_totals AS l (shard, currency, transactions, transfers, sent, received, net)
    VALUES (pg_backend_pid() % 64, cur, 1,
        CASE WHEN payment AND NEW.transaction_type = 'DEBIT' THEN 1 ELSE 0 END,
        CASE WHEN payment AND NEW.transaction_type = 'DEBIT' THEN NEW.amount ELSE 0 END,
        CASE WHEN payment AND NEW.transaction_type = 'CREDIT' THEN NEW.amount ELSE 0 END,
        CASE NEW.transaction_type WHEN 'CREDIT' THEN NEW.amount ELSE -NEW.amount END)
    ON CONFLICT (shard, currency) DO UPDATE SET
        transactions = l.transactions + EXCLUDED.transactions,
        transfers = l.transfers + EXCLUDED.transfers,
        sent = l.sent + EXCLUDED.sent,
        received = l.received + EXCLUDED.received,
        net = l.net + EXCLUDED.net;
    RETURN NULL;
END $$;
CREATE TRIGGER transactions_totals AFTER INSERT ON transactions
    FOR EACH ROW EXECUTE FUNCTION ledger_totals_add();
