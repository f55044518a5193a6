-- Back to 0002's row-level trigger, but without its meridian.bulk_ledger
-- bypass: a roll-back must not reopen a way around the totals.
DROP TRIGGER transactions_totals ON transactions;
DROP FUNCTION ledger_totals_add();

CREATE FUNCTION ledger_totals_add() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    payment boolean := NEW.kind IN ('transfer', 'request');
BEGIN
    UPDATE ledger_totals SET
        transactions = transactions + 1,
        transfers = transfers + CASE WHEN payment AND NEW.transaction_type = 'DEBIT' THEN 1 ELSE 0 END,
        sent = sent + CASE WHEN payment AND NEW.transaction_type = 'DEBIT' THEN NEW.amount ELSE 0 END,
        received = received + CASE WHEN payment AND NEW.transaction_type = 'CREDIT' THEN NEW.amount ELSE 0 END,
        net = net + CASE NEW.transaction_type WHEN 'CREDIT' THEN NEW.amount ELSE -NEW.amount END
    WHERE shard = pg_backend_pid() % 64;
    RETURN NULL;
END $$;
CREATE TRIGGER transactions_totals AFTER INSERT ON transactions
    FOR EACH ROW EXECUTE FUNCTION ledger_totals_add();
