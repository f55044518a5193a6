-- pgbench custom script: one Meridian transfer, the statements pkg/bank
-- Service.Transfer runs, in one transaction, without HTTP, JSON or Go.
--
--   pgbench -n -c 32 -j 2 -T 20 -f scripts/pgbench/transfer.sql \
--           -D lo=<first account id> -D hi=<last account id> -h <data_dir>/run -U meridian meridian
--
-- lo..hi is a range of bulk-seeded account ids (meridian seed --users N /
-- meridian bench), all open, USD, with active holders; scripts/bench.sh
-- reads it from the database. Like the load driver, 5% of the transfers ask
-- for more than any balance and are refused (the API's 422).
--
-- post_batch(...) (migrations/functions/post_batch.sql), with one entry,
-- locks both accounts (SKIP LOCKED: a held one would answer 'busy', which
-- the API sends again), reads the key, checks ownership, state, currency
-- and funds, moves the money, writes both ledger rows, the recipient's
-- notification and the audit row, and stores the answer under the key, in
-- the statement's own transaction. A refusal (the 5% overdrafts) stores
-- nothing and answers its code, which the API turns into a 422. The API
-- sends the same function the postings of many concurrent requests at once,
-- which this script, one transfer per transaction, does not.
--
-- A transfer to another customer also counts against the sender's daily
-- limit (the 12th argument: the limit bench.sh gives serve, high enough
-- that the load never reaches it, so both sides do the same work).
--
-- The token check of the API's request (answered from the session cache)
-- has no counterpart here: the sender's user id is read instead.

\set from_id random(:lo, :hi)
\set off random(1, :hi - :lo)
\set to_id :lo + (:from_id - :lo + :off) % (:hi - :lo + 1)
\set amount random(100, 5000) + case when random(1, 100) <= 5 then 100000000 else 0 end

-- One round trip, as the API's: the sender and both numbers are looked up
-- inside the same statement (the API knows the user from its token and the
-- numbers from the request).
SELECT ord, replayed, body, refused FROM post_batch(
    ARRAY['transfer'],
    ARRAY[(SELECT user_id FROM accounts WHERE id = :from_id)],
    ARRAY[(SELECT account_number FROM accounts WHERE id = :from_id)],
    ARRAY[(SELECT account_number FROM accounts WHERE id = :to_id)],
    ARRAY[NULL::bigint], ARRAY[:amount::numeric / 100], ARRAY['pgbench'],
    ARRAY['pgb-' || gen_random_uuid()::text], ARRAY[md5(:from_id || '|' || :to_id || '|' || :amount)], ARRAY[NULL::timestamptz],
    '24h', 1000000000.00, NULL, false);
