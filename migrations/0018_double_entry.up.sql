SET LOCAL lock_timeout = '10s';
-- A bank's books (contract §8): every posting is double entry, and the bank
-- keeps its own accounts beside the customers'.
--
-- 1. The bank's accounts. In accounts, with a class other than 'customer',
-- no holder (user_id NULL) and no account type, numbered apart
-- (MERIDIAN<CLASS><CURRENCY>, letters only, which no customer is given),
-- per currency: vault (cash in by deposit, out by withdrawal), interest
-- expense, the exchange position and fees. Their balances carry the other
-- side of the customers': for every currency all balances sum to zero, so
-- the bank's are zero or negative where the customers' are positive, and
-- only a customer's balance must stay at or above zero. Queries a customer
-- reaches join the holder (users), which the bank's accounts lack: they are
-- never found by number, listed or named to a customer.
ALTER TABLE accounts ADD COLUMN class text NOT NULL DEFAULT 'customer';
ALTER TABLE accounts ADD CONSTRAINT accounts_class_check
    CHECK (class IN ('customer', 'vault', 'interest_expense', 'fx_position', 'fees')) NOT VALID;
ALTER TABLE accounts VALIDATE CONSTRAINT accounts_class_check;
ALTER TABLE accounts ALTER COLUMN user_id DROP NOT NULL;
ALTER TABLE accounts ALTER COLUMN account_type_id DROP NOT NULL;
ALTER TABLE accounts ADD CONSTRAINT accounts_holder_check
    CHECK ((class = 'customer') = (user_id IS NOT NULL AND account_type_id IS NOT NULL)) NOT VALID;
ALTER TABLE accounts VALIDATE CONSTRAINT accounts_holder_check;
ALTER TABLE accounts DROP CONSTRAINT accounts_balance_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_balance_check CHECK (balance >= 0 OR class <> 'customer') NOT VALID;
ALTER TABLE accounts VALIDATE CONSTRAINT accounts_balance_check;

-- Currencies: GBP beside USD and EUR, and an annual interest rate per
-- account type (percent, exact to 4 places; Savings 2.00 by default).
ALTER TABLE account_types ADD COLUMN interest_rate numeric(7, 4) NOT NULL DEFAULT 0;
ALTER TABLE account_types ADD CONSTRAINT account_types_interest_rate_check
    CHECK (interest_rate >= 0 AND interest_rate <= 100) NOT VALID;
ALTER TABLE account_types VALIDATE CONSTRAINT account_types_interest_rate_check;
INSERT INTO account_types (id, type_name, currency) VALUES
    (4, 'Euro Checking', 'EUR'),
    (5, 'Sterling Checking', 'GBP'),
    (6, 'Sterling Savings', 'GBP')
ON CONFLICT (id) DO NOTHING;
UPDATE account_types SET interest_rate = 2.00 WHERE type_name IN ('Savings', 'Euro Savings', 'Sterling Savings');

INSERT INTO accounts (user_id, account_number, account_type_id, currency, class)
SELECT NULL, 'MERIDIAN' || upper(replace(k.class, '_', '')) || c.currency, NULL, c.currency, k.class
FROM (SELECT DISTINCT currency FROM account_types) c
CROSS JOIN (VALUES ('vault'), ('interest_expense'), ('fx_position'), ('fees')) k(class)
ON CONFLICT DO NOTHING;

-- 2. Ledger rows of the bank's accounts have no holder; a posting's rows
-- share posting_id (the id of its first row); a reversal's rows name the
-- posting they reverse (at most one reversal each).
ALTER TABLE transactions ALTER COLUMN user_id DROP NOT NULL;
ALTER TABLE transactions ADD COLUMN posting_id bigint;
ALTER TABLE transactions ADD COLUMN reverses bigint;
ALTER TABLE transactions DROP CONSTRAINT transactions_kind_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_kind_check
    CHECK (kind IN ('transfer', 'request', 'opening', 'adjustment', 'deposit', 'withdrawal', 'interest', 'exchange', 'reversal', 'fee')) NOT VALID;
ALTER TABLE transactions VALIDATE CONSTRAINT transactions_kind_check;
-- One reversal per posting: its first row (id = posting_id) names it.

-- 3. What the books held before: money that came in by an opening balance,
-- a balance edit, a deposit or a withdrawal was written on the customer's
-- account alone. Each such row gets its other side now, on the vault of its
-- currency, dated as it was, so every currency sums to zero from the first
-- moment. The old row is left as it was (the ledger is append-only); its
-- new leg names it in posting_id.
INSERT INTO transactions (account_id, user_id, transaction_type, kind, amount, from_account_id, to_account_id, description, created_at, posting_id)
SELECT v.id, NULL, CASE t.transaction_type WHEN 'CREDIT' THEN 'DEBIT' ELSE 'CREDIT' END, t.kind, t.amount,
    CASE t.transaction_type WHEN 'CREDIT' THEN v.id ELSE t.account_id END,
    CASE t.transaction_type WHEN 'CREDIT' THEN t.account_id ELSE v.id END,
    t.description, t.created_at, t.id
FROM transactions t
JOIN accounts a ON a.id = t.account_id AND a.class = 'customer'
JOIN accounts v ON v.class = 'vault' AND v.currency = a.currency
WHERE t.kind IN ('opening', 'adjustment', 'deposit', 'withdrawal') AND t.from_account_id = t.to_account_id
ORDER BY t.id;
UPDATE accounts a SET balance = b.balance
FROM ledger_balances b WHERE b.account_id = a.id AND a.class <> 'customer';

-- The ledger totals (0006) stand for the customers' rows only: the
-- dashboards' figures are unchanged by the bank's side. Counted again.
DELETE FROM ledger_totals;
INSERT INTO ledger_totals (shard, currency, transactions, transfers, sent, received, net)
SELECT 0, a.currency, count(*),
    count(*) FILTER (WHERE t.kind IN ('transfer', 'request') AND t.transaction_type = 'DEBIT'),
    COALESCE(sum(t.amount) FILTER (WHERE t.kind IN ('transfer', 'request') AND t.transaction_type = 'DEBIT'), 0),
    COALESCE(sum(t.amount) FILTER (WHERE t.kind IN ('transfer', 'request') AND t.transaction_type = 'CREDIT'), 0),
    COALESCE(sum(CASE t.transaction_type WHEN 'CREDIT' THEN t.amount ELSE -t.amount END), 0)
FROM transactions t JOIN accounts a ON a.id = t.account_id AND a.class = 'customer'
GROUP BY a.currency;
-- Every currency offered shows, used or not.
INSERT INTO ledger_totals (shard, currency, transactions, transfers, sent, received, net)
SELECT 0, c.currency, 0, 0, 0, 0, 0 FROM (SELECT DISTINCT currency FROM account_types) c
ON CONFLICT (shard, currency) DO NOTHING;

-- 4. Exchange: an administrator sets the rate of a pair (base -> quote); the
-- inverse is derived, never stored. A customer's quote fixes a rate and the
-- converted amount for 30 seconds; an exchange uses it once.
CREATE TABLE fx_rates (
    base       char(3) NOT NULL,
    quote      char(3) NOT NULL,
    rate       numeric(18, 8) NOT NULL CONSTRAINT fx_rates_rate_check CHECK (rate > 0),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (base, quote),
    CONSTRAINT fx_rates_pair_check CHECK (base <> quote)
);
CREATE TABLE fx_quotes (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id          bigint NOT NULL REFERENCES users (id),
    from_account_id  bigint NOT NULL REFERENCES accounts (id),
    to_account_id    bigint NOT NULL REFERENCES accounts (id),
    from_currency    char(3) NOT NULL,
    to_currency      char(3) NOT NULL,
    rate             numeric(18, 8) NOT NULL,
    spread_bps       integer NOT NULL,
    amount           numeric(20, 2) NOT NULL CONSTRAINT fx_quotes_amount_check CHECK (amount > 0),
    converted_amount numeric(20, 2) NOT NULL CONSTRAINT fx_quotes_converted_check CHECK (converted_amount > 0),
    created_at       timestamptz NOT NULL DEFAULT now(),
    expires_at       timestamptz NOT NULL,
    used_at          timestamptz
);
CREATE INDEX fx_quotes_user_idx ON fx_quotes (user_id, id DESC);

-- A customer's home currency: dashboards add their balances converted to it.
ALTER TABLE users ADD COLUMN home_currency char(3) NOT NULL DEFAULT 'USD';
