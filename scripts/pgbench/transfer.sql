-- pgbench custom script: one Meridian transfer, the statements pkg/bank
-- Service.Transfer runs, in one transaction, without HTTP, JSON or Go.
--
--   pgbench -n -c 32 -j 2 -T 20 -f scripts/pgbench/transfer.sql \
--           -D lo=<first account id> -D hi=<last account id> -h <data_dir>/run -U meridian meridian
--
-- lo..hi is a range of bulk-seeded account ids (meridian seed --users N /
-- meridian bench), all open, USD, with active holders; scripts/bench.sh
-- reads it from the database. Like the load driver, 5% of the transfers ask
-- for more than any balance and are refused (the API's 422: ROLLBACK).
--
-- Statement by statement, as Transfer does it (pkg/bank/transfers.go):
--   0. (API: the token lookup of the request's Authorization, outside the
--      transaction; here the sender's user id is read instead)
--   1. claim the Idempotency-Key (INSERT ... ON CONFLICT DO NOTHING)
--   2. lock both accounts, with their holders, in id order, in one statement
--      (FOR UPDATE OF a ... ORDER BY a.id); the checks (funds, closed,
--      inactive holder, currency) are done on what it returns
--   3. debit and credit the balances (two UPDATEs)
--   4. the DEBIT and CREDIT ledger rows (INSERT ... RETURNING id)
--   5. the recipient's notification (its trigger does pg_notify)
--   6. the audit row (its trigger does pg_notify)
--   7. read the DEBIT row back with both account numbers (the 201's body)
--   8. store the reply under the Idempotency-Key
--
-- Step 2 must stay one statement in id order (as Transfer's doc comment
-- says): two transfers that cross (A to B while B to A) then queue instead of
-- deadlocking. Locking the sender and then the recipient in two statements
-- (as commit 2c3b965 did) deadlocks under this very load.

\set from_id random(:lo, :hi)
\set off random(1, :hi - :lo)
\set to_id :lo + (:from_id - :lo + :off) % (:hi - :lo + 1)
\set amount random(100, 5000) + case when random(1, 100) <= 5 then 100000000 else 0 end

SELECT user_id AS actor FROM accounts WHERE id = :from_id \gset
BEGIN;
INSERT INTO idempotency_keys (user_id, key, request_hash, response_status, response_body, created_at)
    VALUES (:actor, 'pgb-' || gen_random_uuid()::text, md5(:from_id || '|' || :to_id || '|' || :amount), 0, 'null', now())
    ON CONFLICT (user_id, key) DO NOTHING
    RETURNING key AS idem_key \gset
WITH l AS (
    SELECT a.id, a.user_id, a.account_number, a.currency, a.balance, a.closed_at IS NOT NULL AS closed, u.full_name, u.is_active
    FROM accounts a JOIN users u ON u.id = a.user_id
    WHERE a.id IN (:from_id, :to_id)
    ORDER BY a.id
    FOR UPDATE OF a)
SELECT max(user_id) FILTER (WHERE id = :to_id) AS to_user,
    max(account_number) FILTER (WHERE id = :from_id) AS from_number,
    max(account_number) FILTER (WHERE id = :to_id) AS to_number,
    (count(*) = 2 AND bool_and(NOT closed AND is_active) AND count(DISTINCT currency) = 1
        AND max(balance) FILTER (WHERE id = :from_id) >= :amount::numeric / 100)::int AS ok
FROM l \gset
\if :ok
UPDATE accounts SET balance = balance - :amount::numeric / 100 WHERE id = :from_id;
UPDATE accounts SET balance = balance + :amount::numeric / 100 WHERE id = :to_id;
INSERT INTO transactions (account_id, user_id, transaction_type, kind, amount, from_account_id, to_account_id, description)
    VALUES (:from_id, :actor, 'DEBIT', 'transfer', :amount::numeric / 100, :from_id, :to_id, 'pgbench')
    RETURNING id AS debit_id \gset
INSERT INTO transactions (account_id, user_id, transaction_type, kind, amount, from_account_id, to_account_id, description)
    VALUES (:to_id, :to_user, 'CREDIT', 'transfer', :amount::numeric / 100, :from_id, :to_id, 'pgbench')
    RETURNING id AS credit_id \gset
INSERT INTO notifications (user_id, message)
    VALUES (:to_user, 'You received $' || to_char(:amount::numeric / 100, 'FM999,999,999,990.00') || ' from account ' || ':from_number');
INSERT INTO audit_log (actor_user_id, account_number, action_type, table_name, description)
    VALUES (:actor, ':from_number', 'TRANSFER', 'transactions',
        'Transferred $' || to_char(:amount::numeric / 100, 'FM999,999,999,990.00') || ' from :from_number to :to_number (transaction ' || :debit_id || ')');
SELECT t.id, t.created_at AS transaction_date, t.transaction_type, t.amount,
    fa.account_number AS account_id, ta.account_number AS to_account_id, t.description
    FROM transactions t JOIN accounts fa ON fa.id = t.from_account_id JOIN accounts ta ON ta.id = t.to_account_id
    WHERE t.id = :debit_id;
UPDATE idempotency_keys SET response_status = 201,
    response_body = json_build_object('message', 'Transfer successful', 'transaction', json_build_object(
        'id', :debit_id, 'transaction_type', 'DEBIT', 'amount', round(:amount::numeric / 100, 2),
        'account_id', ':from_number', 'to_account_id', ':to_number', 'description', 'pgbench'))
    WHERE user_id = :actor AND key = ':idem_key'
    RETURNING response_body::text;
COMMIT;
\else
ROLLBACK;
\endif
