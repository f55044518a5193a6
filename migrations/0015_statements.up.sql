-- Statements (pkg/bank/statements.go): one account's ledger over a period.
--
-- ledger_entries is the ledger as signed amounts: a CREDIT adds its amount
-- to the account's balance, a DEBIT subtracts it. This is the one place that
-- says so; ledger_balances (migrations/0010) is now the sum of these
-- entries, and a statement's opening balance (the entries before its first
-- day) and its running balances (the opening plus each entry in turn) add
-- up the same entries.
--
-- signed_amount is that signed amount; the other columns are the ledger
-- row's own (amount stays the positive amount of the row).
CREATE VIEW ledger_entries (id, account_id, user_id, transaction_type, kind, amount, signed_amount,
        from_account_id, to_account_id, description, created_at) AS
    SELECT t.id, t.account_id, t.user_id, t.transaction_type, t.kind, t.amount,
        CASE t.transaction_type WHEN 'CREDIT' THEN t.amount ELSE -t.amount END,
        t.from_account_id, t.to_account_id, t.description, t.created_at
    FROM transactions t;

CREATE OR REPLACE VIEW ledger_balances (account_id, balance) AS
    SELECT a.id, COALESCE(sum(e.signed_amount), 0)
    FROM accounts a LEFT JOIN ledger_entries e ON e.account_id = a.id
    GROUP BY a.id;

-- A statement reads one account's rows of its period by date, oldest first
-- (ties by id), and sums the account's rows before its first day: both walk
-- this index (the sum may skip the table, thanks to the INCLUDEd columns,
-- where the visibility map allows). History pages by id and keeps
-- transactions_account_idx.
CREATE INDEX transactions_account_created_idx ON transactions (account_id, created_at, id)
    INCLUDE (transaction_type, amount);
