-- "An account's balance is its credits minus its debits", written once.
--
-- ledger_balances is every account's balance as its ledger says it: the sum
-- of its CREDIT rows minus the sum of its DEBIT rows, 0 for an account with
-- no ledger row. accounts.balance is kept by the money path; whatever checks
-- that the two agree (the tests, the seed's tests, the load test's invariant
-- check, the fault test) reads this view instead of restating the sum.
--
-- Asked for one account (WHERE account_id = $1), PostgreSQL pushes the
-- condition below the GROUP BY and reads only that account's rows through
-- transactions_account_idx.
CREATE VIEW ledger_balances (account_id, balance) AS
    SELECT a.id,
        COALESCE(sum(CASE t.transaction_type WHEN 'CREDIT' THEN t.amount ELSE -t.amount END), 0)
    FROM accounts a LEFT JOIN transactions t ON t.account_id = a.id
    GROUP BY a.id;
