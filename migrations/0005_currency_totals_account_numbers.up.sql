-- 1. The sharded ledger totals (0002) are kept per currency, so the admin
-- dashboard never adds dollars and euros: one row per (shard, currency).
-- The trigger reads the currency of the ledger row's account by its primary
-- key; that row is already locked and cached by the transfer that writes it.
DELETE FROM ledger_totals;
ALTER TABLE ledger_totals DROP CONSTRAINT ledger_totals_pkey;
ALTER TABLE ledger_totals ADD COLUMN currency char(3) NOT NULL;
ALTER TABLE ledger_totals ADD PRIMARY KEY (shard, currency);
INSERT INTO ledger_totals (shard, currency)
SELECT s, c.currency FROM generate_series(0, 63) s
CROSS JOIN (SELECT currency FROM account_types UNION SELECT currency FROM accounts) c;

CREATE OR REPLACE FUNCTION ledger_totals_add() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    payment boolean := NEW.kind IN ('transfer', 'request');
    cur char(3);
BEGIN
    IF current_setting('meridian.bulk_ledger', true) = 'on' THEN
        RETURN NULL;
    END IF;
    SELECT currency INTO STRICT cur FROM accounts WHERE id = NEW.account_id;
    UPDATE ledger_totals SET
        transactions = transactions + 1,
        transfers = transfers + CASE WHEN payment AND NEW.transaction_type = 'DEBIT' THEN 1 ELSE 0 END,
        sent = sent + CASE WHEN payment AND NEW.transaction_type = 'DEBIT' THEN NEW.amount ELSE 0 END,
        received = received + CASE WHEN payment AND NEW.transaction_type = 'CREDIT' THEN NEW.amount ELSE 0 END,
        net = net + CASE NEW.transaction_type WHEN 'CREDIT' THEN NEW.amount ELSE -NEW.amount END
    WHERE shard = pg_backend_pid() % 64 AND currency = cur;
    IF NOT FOUND THEN
        -- A currency no row exists for yet (a new account type): make its row.
        INSERT INTO ledger_totals (shard, currency, transactions, transfers, sent, received, net)
        VALUES (pg_backend_pid() % 64, cur, 1,
            CASE WHEN payment AND NEW.transaction_type = 'DEBIT' THEN 1 ELSE 0 END,
            CASE WHEN payment AND NEW.transaction_type = 'DEBIT' THEN NEW.amount ELSE 0 END,
            CASE WHEN payment AND NEW.transaction_type = 'CREDIT' THEN NEW.amount ELSE 0 END,
            CASE NEW.transaction_type WHEN 'CREDIT' THEN NEW.amount ELSE -NEW.amount END)
        ON CONFLICT (shard, currency) DO UPDATE SET
            transactions = ledger_totals.transactions + EXCLUDED.transactions,
            transfers = ledger_totals.transfers + EXCLUDED.transfers,
            sent = ledger_totals.sent + EXCLUDED.sent,
            received = ledger_totals.received + EXCLUDED.received,
            net = ledger_totals.net + EXCLUDED.net;
    END IF;
    RETURN NULL;
END $$;

-- Totals of the rows written before this migration, per currency.
UPDATE ledger_totals l SET
    transactions = x.transactions, transfers = x.transfers, sent = x.sent, received = x.received, net = x.net
FROM (
    SELECT a.currency, count(*) AS transactions,
        count(*) FILTER (WHERE t.kind IN ('transfer', 'request') AND t.transaction_type = 'DEBIT') AS transfers,
        COALESCE(sum(t.amount) FILTER (WHERE t.kind IN ('transfer', 'request') AND t.transaction_type = 'DEBIT'), 0) AS sent,
        COALESCE(sum(t.amount) FILTER (WHERE t.kind IN ('transfer', 'request') AND t.transaction_type = 'CREDIT'), 0) AS received,
        COALESCE(sum(CASE t.transaction_type WHEN 'CREDIT' THEN t.amount ELSE -t.amount END), 0) AS net
    FROM transactions t JOIN accounts a ON a.id = t.account_id
    GROUP BY a.currency) x
WHERE l.shard = 0 AND l.currency = x.currency;

-- 2. An account number is never reissued: the first holder of a number keeps
-- it for good, even after renaming the account away from it or closing it.
-- Only that holder may take it again (pkg/bank claimAccountNumber).
CREATE TABLE account_numbers (
    account_number text PRIMARY KEY,
    user_id        bigint NOT NULL REFERENCES users (id)
);
INSERT INTO account_numbers (account_number, user_id) SELECT account_number, user_id FROM accounts;
