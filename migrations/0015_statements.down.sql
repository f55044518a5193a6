DROP INDEX transactions_account_created_idx;

CREATE OR REPLACE VIEW ledger_balances (account_id, balance) AS
    SELECT a.id,
        COALESCE(sum(CASE t.transaction_type WHEN 'CREDIT' THEN t.amount ELSE -t.amount END), 0)
    FROM accounts a LEFT JOIN transactions t ON t.account_id = a.id
    GROUP BY a.id;

DROP VIEW ledger_entries;
