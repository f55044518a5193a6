DROP TABLE account_numbers;

-- Back to one row per shard (0002), all currencies added together.
CREATE TEMP TABLE ledger_totals_0005 ON COMMIT DROP AS
SELECT shard, sum(transactions) AS transactions, sum(transfers) AS transfers,
    sum(sent) AS sent, sum(received) AS received, sum(net) AS net
FROM ledger_totals GROUP BY shard;
DELETE FROM ledger_totals;
ALTER TABLE ledger_totals DROP CONSTRAINT ledger_totals_pkey;
ALTER TABLE ledger_totals DROP COLUMN currency;
ALTER TABLE ledger_totals ADD PRIMARY KEY (shard);
INSERT INTO ledger_totals (shard) SELECT generate_series(0, 63);
UPDATE ledger_totals l SET
    transactions = x.transactions, transfers = x.transfers, sent = x.sent, received = x.received, net = x.net
FROM ledger_totals_0005 x WHERE x.shard = l.shard;

CREATE OR REPLACE FUNCTION ledger_totals_add() RETURNS trigger LANGUAGE plpgsql AS $$
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
