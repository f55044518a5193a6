-- System-wide ledger totals for the admin dashboard, kept in 64 shards so
-- concurrent transfers seldom touch the same row: each backend adds to the
-- shard of its process id. The admin summary sums 64 rows instead of
-- scanning the ledger. A bulk load may set meridian.bulk_ledger = 'on' for
-- its transaction and add its own totals at the end (pkg/bank SeedBulk).
CREATE TABLE ledger_totals (
    shard        smallint PRIMARY KEY,
    transactions bigint NOT NULL DEFAULT 0,
    transfers    bigint NOT NULL DEFAULT 0,
    sent         numeric(24, 2) NOT NULL DEFAULT 0,
    received     numeric(24, 2) NOT NULL DEFAULT 0,
    net          numeric(24, 2) NOT NULL DEFAULT 0 -- CREDIT - DEBIT: the sum of all balances
);
INSERT INTO ledger_totals (shard) SELECT generate_series(0, 63);

CREATE FUNCTION ledger_totals_add() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    payment boolean := NEW.kind IN ('transfer', 'request');
BEGIN
    IF current_setting('meridian.bulk_ledger', true) = 'on' THEN
        RETURN NULL;
    END IF;
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

-- Totals of the rows written before this migration.
UPDATE ledger_totals l SET
    transactions = x.transactions, transfers = x.transfers, sent = x.sent, received = x.received, net = x.net
FROM (
    SELECT count(*) AS transactions,
        count(*) FILTER (WHERE kind IN ('transfer', 'request') AND transaction_type = 'DEBIT') AS transfers,
        COALESCE(sum(amount) FILTER (WHERE kind IN ('transfer', 'request') AND transaction_type = 'DEBIT'), 0) AS sent,
        COALESCE(sum(amount) FILTER (WHERE kind IN ('transfer', 'request') AND transaction_type = 'CREDIT'), 0) AS received,
        COALESCE(sum(CASE transaction_type WHEN 'CREDIT' THEN amount ELSE -amount END), 0) AS net
    FROM transactions) x
WHERE l.shard = 0;
