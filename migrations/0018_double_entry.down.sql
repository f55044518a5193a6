SET LOCAL lock_timeout = '10s';
-- Back to single-entry books: the bank's accounts and their ledger rows
-- go, with the exchange and the home currency. Refused (a foreign key, a
-- NOT NULL) while customers hold GBP or new-type accounts, or rows of the
-- new kinds (interest, exchange, reversal) exist.
DROP TABLE fx_quotes;
DROP TABLE fx_rates;
ALTER TABLE users DROP COLUMN home_currency;
DELETE FROM transactions WHERE account_id IN (SELECT id FROM accounts WHERE class <> 'customer');
DELETE FROM accounts WHERE class <> 'customer';
ALTER TABLE transactions DROP CONSTRAINT transactions_kind_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_kind_check
    CHECK (kind IN ('transfer', 'request', 'opening', 'adjustment', 'deposit', 'withdrawal')) NOT VALID;
ALTER TABLE transactions VALIDATE CONSTRAINT transactions_kind_check;
ALTER TABLE transactions DROP COLUMN reverses;
ALTER TABLE transactions DROP COLUMN posting_id;
ALTER TABLE transactions ALTER COLUMN user_id SET NOT NULL;
DELETE FROM account_types WHERE id IN (4, 5, 6);
ALTER TABLE account_types DROP COLUMN interest_rate;
ALTER TABLE accounts DROP CONSTRAINT accounts_balance_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_balance_check CHECK (balance >= 0) NOT VALID;
ALTER TABLE accounts VALIDATE CONSTRAINT accounts_balance_check;
ALTER TABLE accounts DROP CONSTRAINT accounts_holder_check;
ALTER TABLE accounts ALTER COLUMN account_type_id SET NOT NULL;
ALTER TABLE accounts ALTER COLUMN user_id SET NOT NULL;
ALTER TABLE accounts DROP CONSTRAINT accounts_class_check;
ALTER TABLE accounts DROP COLUMN class;
-- The totals without the bank's side again.
DELETE FROM ledger_totals;
INSERT INTO ledger_totals (shard, currency, transactions, transfers, sent, received, net)
SELECT 0, a.currency, count(*),
    count(*) FILTER (WHERE t.kind IN ('transfer', 'request') AND t.transaction_type = 'DEBIT'),
    COALESCE(sum(t.amount) FILTER (WHERE t.kind IN ('transfer', 'request') AND t.transaction_type = 'DEBIT'), 0),
    COALESCE(sum(t.amount) FILTER (WHERE t.kind IN ('transfer', 'request') AND t.transaction_type = 'CREDIT'), 0),
    COALESCE(sum(CASE t.transaction_type WHEN 'CREDIT' THEN t.amount ELSE -t.amount END), 0)
FROM transactions t JOIN accounts a ON a.id = t.account_id
GROUP BY a.currency;
