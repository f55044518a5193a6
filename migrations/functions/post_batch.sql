-- post_batch: every movement of money, written once (pkg/bank/postings.go).
--
-- A customer's transfer, the acceptance of a money request, an
-- administrator's deposit and withdrawal, and each run of a scheduled
-- transfer are postings, and every posting goes through this one function:
-- one set of checks, one ledger writer, one builder of the texts people
-- read, one clock (the database's now()). pkg/bank sends the postings of the
-- moment together, as one statement and one transaction, each entry with its
-- own answer (Service's posting queue); a scheduled run sends its one entry
-- inside the scheduler's transaction.
--
-- Entry i is (p_kind[i], p_actor[i], ...), its answer the row ord = i:
--   kind        what it does                            names
--   transfer    the actor's account -> another account  p_from, p_to, p_amount
--   request     the actor pays a money request          p_request (amount and
--               addressed to them                       accounts are the request's)
--   deposit     money comes in at the bank              p_to, p_amount
--   withdrawal  money goes out at the bank              p_from, p_amount
--   opening     an account's opening balance (the       p_to, p_amount
--               actor's own account, customer_funding)
--   adjustment  a customer's edit of their balance      p_to (up) or p_from
--               (customer_funding)                      (down), p_amount
-- p_actor is the user acting (the customer; the administrator of a deposit
-- or withdrawal; NULL: the operator at the command line). Every entry
-- carries a key (the client's Idempotency-Key, or one pkg/bank made), which
-- belongs to the actor (0 for the command line) and is stored with the
-- answer in the same transaction: the same key and request within p_window
-- answer the stored answer again (replayed) and move nothing; another
-- request under it is refused (idempotency_key_reused). So sending an entry
-- again, after a connection broke before its answer came, is always safe.
--
-- Locks. With p_wait false (the posting queue) the function never waits
-- for another transaction's row lock: it locks the money requests and
-- accounts it names FOR UPDATE SKIP LOCKED, and an entry one of whose rows
-- another transaction holds is answered 'busy' without being checked;
-- pkg/bank sends it again shortly (it still has its own deadline), while the
-- rest of the batch goes through. So a lock that one account's holder keeps
-- never stalls postings between other accounts. With p_wait true (finding
-- out what became of a batch whose connection broke) it waits for the locks
-- like any payment, in the order of the rows' ids. The only other rows it
-- may wait for are a sender's daily count (spend_daily_limit, held only by
-- that sender's other payments of the moment, locked in the order of the
-- senders' ids) and a key another transaction is storing; p_lock_timeout_ms
-- bounds those waits (lock_timeout, for this transaction): what is left of
-- the earliest deadline among the batch's callers.
--
-- The rows are read by the statement that locks them, without waiting, so
-- what it reads is what committed last (with p_wait, after the statement
-- that waited for them): a holder deactivated, an account closed or a role
-- changed by a transaction that committed meanwhile is seen.
--
-- Refusals are answers, not errors: the entry moves nothing, stores no key,
-- and the others go on. An error raised by an entry rolls the whole batch
-- back; pkg/bank then sends its entries one by one. A key stored by another
-- transaction between the read of the keys and their storing (a race on
-- other accounts) raises a serialization failure (40001) for the same
-- reason: nothing of the batch commits, and it is sent again, when the
-- stored answer is visible.
--
-- Texts are written here, with money_text, for every posting: the
-- notification to the one who receives (or whose account moved) and the
-- audit row. The answer is the JSON the API sends: {"message": "Transfer
-- successful", "transaction": ...} for a transfer, {"message": "Money request
-- accepted", "data": ...} for a request, the ledger row for a deposit or a
-- withdrawal. p_dated, when set (the demo seed's history only), dates the
-- ledger rows and the day of the daily limit.
CREATE OR REPLACE FUNCTION post_batch(p_kind text[], p_actor bigint[], p_from text[], p_to text[], p_request bigint[],
        p_amount numeric[], p_description text[], p_key text[], p_hash text[], p_dated timestamptz[],
        p_window interval, p_daily_limit numeric, p_lock_timeout_ms integer, p_wait boolean)
    RETURNS TABLE (ord int, replayed boolean, body text, refused text)
LANGUAGE plpgsql
-- It runs as the owner of the ledger: the runtime role may not write
-- balances, ledger rows, keys or daily counts itself (pkg/db RuntimeGrants),
-- only through this function, which writes the audit row of every posting.
-- pg_temp last: a caller's temporary table never stands in for one of ours.
SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
-- Each statement is planned once per session, not at every call: planning
-- statements over arrays costs more than running them. Every statement
-- here reads by a key.
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    n int := cardinality(p_kind);
    i int;
    s int;
    d int;
    q int;
    r record;
    owner bigint;
    amt numeric;
    what text;
    -- The money requests of the batch, as locked.
    q_id bigint[] := '{}';
    q_payer_acct bigint[] := '{}';
    q_payee_acct bigint[] := '{}';
    q_payer bigint[] := '{}';
    q_payee bigint[] := '{}';
    q_amount numeric[] := '{}';
    q_desc text[] := '{}';
    q_status text[] := '{}';
    q_created timestamptz[] := '{}';
    q_expires timestamptz[] := '{}';
    busy_q bigint[] := '{}';
    -- The batch's accounts, as locked, with their holders: parallel arrays,
    -- looked up by number or id.
    a_num text[] := '{}';
    a_id bigint[] := '{}';
    a_user bigint[] := '{}';
    a_cur text[] := '{}';
    a_bal numeric[] := '{}';
    a_closed boolean[] := '{}';
    a_active boolean[] := '{}';
    a_customer boolean[] := '{}';
    a_limit numeric[] := '{}';
    a_moved boolean[] := '{}';
    named text[];
    busy_a text[] := '{}';
    -- Stored keys, by entry.
    k_hash text[] := array_fill(NULL::text, ARRAY[n]);
    k_body text[] := array_fill(NULL::text, ARRAY[n]);
    k_at timestamptz[] := array_fill(NULL::timestamptz, ARRAY[n]);
    -- The answers, by entry.
    o_replayed boolean[] := array_fill(false, ARRAY[n]);
    o_body text[] := array_fill(NULL::text, ARRAY[n]);
    o_refused text[] := array_fill(NULL::text, ARRAY[n]);
    -- What the postings that went through write.
    t_id bigint[] := '{}';
    t_account bigint[] := '{}';
    t_user bigint[] := '{}';
    t_type text[] := '{}';
    t_kind text[] := '{}';
    t_amount numeric[] := '{}';
    t_from bigint[] := '{}';
    t_to bigint[] := '{}';
    t_desc text[] := '{}';
    t_at timestamptz[] := '{}';
    n_user bigint[] := '{}';
    n_msg text[] := '{}';
    l_actor bigint[] := '{}';
    l_num text[] := '{}';
    l_action text[] := '{}';
    l_table text[] := '{}';
    l_desc text[] := '{}';
    accepted bigint[] := '{}';
    accepted_at timestamptz[] := '{}';
    s_user bigint[] := '{}';
    s_key text[] := '{}';
    s_hash text[] := '{}';
    s_body jsonb[] := '{}';
    row_id bigint;
    other_id bigint;
    entry_at timestamptz;
    money text;
    descr text;
    via text;
    row_json jsonb;
    reply jsonb;
    stored int;
BEGIN
    IF cardinality(p_actor) <> n OR cardinality(p_from) <> n OR cardinality(p_to) <> n OR cardinality(p_request) <> n
        OR cardinality(p_amount) <> n OR cardinality(p_description) <> n OR cardinality(p_key) <> n
        OR cardinality(p_hash) <> n OR cardinality(p_dated) <> n THEN
        RAISE EXCEPTION 'post_batch: the arrays differ in length';
    END IF;
    -- A lock is waited for no longer than the most pressed caller may,
    -- nor than the session's own lock_timeout.
    IF p_lock_timeout_ms IS NOT NULL AND (current_setting('lock_timeout')::interval = interval '0'
            OR p_lock_timeout_ms * interval '1 ms' < current_setting('lock_timeout')::interval) THEN
        PERFORM set_config('lock_timeout', greatest(p_lock_timeout_ms, 1) || 'ms', true);
    END IF;

    -- Money requests first (an answer to a request locks it, then its
    -- accounts, as declining and expiring do). Each lock is taken and the
    -- rows read in one statement, with SKIP LOCKED; when waiting, the rows
    -- are first locked in a statement of its own (in id order, waiting as
    -- long as lock_timeout allows), so the reading statement, which a lock
    -- this transaction holds never holds back, sees them as committed once
    -- their holders were done.
    IF cardinality(array_remove(p_request, NULL)) > 0 THEN
        IF p_wait THEN
            PERFORM 1 FROM money_requests mr WHERE mr.id = ANY (p_request) ORDER BY mr.id FOR UPDATE;
        END IF;
        FOR r IN
            SELECT mr.id, mr.recipient_account_id, mr.requester_account_id, mr.recipient_user_id, mr.requester_user_id,
                mr.amount, mr.description, mr.status, mr.created_at, mr.expires_at
            FROM money_requests mr WHERE mr.id = ANY (p_request) ORDER BY mr.id FOR UPDATE SKIP LOCKED
        LOOP
            q_id := q_id || r.id;
            q_payer_acct := q_payer_acct || r.recipient_account_id;
            q_payee_acct := q_payee_acct || r.requester_account_id;
            q_payer := q_payer || r.recipient_user_id;
            q_payee := q_payee || r.requester_user_id;
            q_amount := q_amount || r.amount;
            q_desc := q_desc || r.description;
            q_status := q_status || r.status;
            q_created := q_created || r.created_at;
            q_expires := q_expires || r.expires_at;
        END LOOP;
        IF NOT (array_remove(p_request, NULL) <@ q_id) THEN
            -- Named requests that exist but were not locked: another
            -- transaction holds them.
            busy_q := ARRAY(SELECT mr.id FROM money_requests mr WHERE mr.id = ANY (p_request) AND mr.id <> ALL (q_id));
        END IF;
    END IF;

    -- Every account the batch names, by number or through a request, with
    -- its holder.
    named := array_remove(p_from || p_to, NULL);
    IF p_wait THEN
        PERFORM 1 FROM accounts ac WHERE ac.account_number = ANY (named) OR ac.id = ANY (q_payer_acct || q_payee_acct)
            ORDER BY ac.id FOR UPDATE;
    END IF;
    FOR r IN
        SELECT ac.id, ac.user_id, ac.account_number, ac.currency::text AS currency, ac.balance, ac.closed_at IS NOT NULL AS closed,
            u.is_active, ro.name = 'User' AS customer, u.daily_transfer_limit
        FROM accounts ac JOIN users u ON u.id = ac.user_id JOIN roles ro ON ro.id = u.role_id
        WHERE ac.account_number = ANY (named) OR ac.id = ANY (q_payer_acct || q_payee_acct)
        ORDER BY ac.id
        FOR UPDATE OF ac SKIP LOCKED
    LOOP
        a_num := a_num || r.account_number;
        a_id := a_id || r.id;
        a_user := a_user || r.user_id;
        a_cur := a_cur || r.currency;
        a_bal := a_bal || r.balance;
        a_closed := a_closed || r.closed;
        a_active := a_active || r.is_active;
        a_customer := a_customer || r.customer;
        a_limit := a_limit || r.daily_transfer_limit;
        a_moved := a_moved || false;
    END LOOP;
    IF NOT (named <@ a_num) THEN
        -- Named accounts that exist but were not locked: another
        -- transaction holds them. (The accounts of a request always exist:
        -- one not locked is busy.)
        busy_a := ARRAY(SELECT ac.account_number FROM accounts ac
            WHERE ac.account_number = ANY (named) AND ac.account_number <> ALL (a_num));
    END IF;

    FOR r IN
        SELECT e.o, k.request_hash, k.response_body::text AS body, k.created_at
        FROM unnest(p_actor, p_key) WITH ORDINALITY AS e(actor, key, o)
        JOIN idempotency_keys k ON k.user_id = coalesce(e.actor, 0) AND k.key = e.key
    LOOP
        k_hash[r.o] := r.request_hash;
        k_body[r.o] := r.body;
        k_at[r.o] := r.created_at;
    END LOOP;

    -- In the order of the actors (a sender's daily count is locked in the
    -- order of the senders' ids by every batch), in arrival order for one.
    FOR i IN SELECT e.o FROM unnest(p_actor) WITH ORDINALITY AS e(actor, o) ORDER BY e.actor NULLS FIRST, e.o LOOP
        IF k_at[i] IS NOT NULL AND k_at[i] >= now() - p_window THEN
            IF k_hash[i] <> p_hash[i] THEN
                o_refused[i] := 'idempotency_key_reused'; -- the key stays the first request's
            ELSE
                o_replayed[i] := true;
                o_body[i] := k_body[i];
            END IF;
            CONTINUE;
        END IF;
        s := NULL;
        d := NULL;
        q := NULL;
        amt := p_amount[i];
        CASE p_kind[i]
        WHEN 'transfer' THEN
            IF p_from[i] = ANY (busy_a) OR p_to[i] = ANY (busy_a) THEN
                o_refused[i] := 'busy';
            ELSE
                s := array_position(a_num, p_from[i]);
                d := array_position(a_num, p_to[i]);
                IF s IS NULL OR a_user[s] IS DISTINCT FROM p_actor[i] OR a_closed[s] THEN
                    o_refused[i] := 'account_not_found';
                ELSIF NOT a_active[s] THEN -- a deactivated sender, whatever a cached session says
                    o_refused[i] := 'user_deactivated';
                ELSIF p_from[i] = p_to[i] THEN
                    o_refused[i] := 'same_account';
                ELSIF d IS NULL THEN
                    o_refused[i] := 'account_not_found';
                ELSIF a_closed[d] THEN
                    o_refused[i] := 'account_closed';
                ELSIF NOT a_active[d] THEN
                    o_refused[i] := 'recipient_inactive';
                ELSIF a_cur[s] <> a_cur[d] THEN
                    o_refused[i] := 'currency_mismatch';
                END IF;
            END IF;
        WHEN 'request' THEN
            q := array_position(q_id, p_request[i]);
            IF p_request[i] = ANY (busy_q) THEN
                o_refused[i] := 'busy';
            ELSIF q IS NULL OR q_payer[q] IS DISTINCT FROM p_actor[i] THEN
                o_refused[i] := 'request_not_found';
            ELSIF q_status[q] <> 'PENDING' OR q_expires[q] <= now() THEN
                o_refused[i] := 'request_not_pending';
            ELSE
                s := array_position(a_id, q_payer_acct[q]);
                d := array_position(a_id, q_payee_acct[q]);
                amt := q_amount[q];
                IF s IS NULL OR d IS NULL THEN
                    o_refused[i] := 'busy';
                ELSIF NOT a_active[s] THEN -- the payer, deactivated meanwhile
                    o_refused[i] := 'user_deactivated';
                ELSIF a_closed[s] THEN
                    o_refused[i] := 'payer_closed';
                ELSIF a_closed[d] THEN
                    o_refused[i] := 'account_closed';
                ELSIF NOT a_active[d] THEN
                    o_refused[i] := 'recipient_inactive';
                ELSIF a_cur[s] <> a_cur[d] THEN
                    o_refused[i] := 'currency_mismatch';
                END IF;
            END IF;
        WHEN 'deposit' THEN
            d := array_position(a_num, p_to[i]);
            IF p_to[i] = ANY (busy_a) THEN
                o_refused[i] := 'busy';
            ELSIF d IS NULL THEN
                o_refused[i] := 'account_not_found';
            ELSIF a_closed[d] THEN
                o_refused[i] := 'this_account_closed';
            ELSIF NOT a_customer[d] THEN -- an administrator holds no money
                o_refused[i] := 'holder_not_customer';
            END IF;
        WHEN 'withdrawal' THEN
            s := array_position(a_num, p_from[i]);
            IF p_from[i] = ANY (busy_a) THEN
                o_refused[i] := 'busy';
            ELSIF s IS NULL THEN
                o_refused[i] := 'account_not_found';
            ELSIF a_closed[s] THEN
                o_refused[i] := 'this_account_closed';
            END IF;
        WHEN 'opening', 'adjustment' THEN
            -- The actor's own open account, up (p_to) or, for an
            -- adjustment, down (p_from).
            s := array_position(a_num, p_from[i]);
            d := array_position(a_num, p_to[i]);
            IF p_from[i] = ANY (busy_a) OR p_to[i] = ANY (busy_a) THEN
                o_refused[i] := 'busy';
            ELSIF (s IS NULL) = (d IS NULL) OR (p_kind[i] = 'opening' AND s IS NOT NULL)
                OR a_user[coalesce(s, d)] IS DISTINCT FROM p_actor[i] THEN
                o_refused[i] := 'account_not_found';
            ELSIF a_closed[coalesce(s, d)] THEN
                o_refused[i] := 'this_account_closed';
            END IF;
        ELSE
            RAISE EXCEPTION 'post_batch: unknown kind %', p_kind[i];
        END CASE;
        IF o_refused[i] IS NULL AND s IS NOT NULL AND a_bal[s] < amt THEN
            o_refused[i] := 'insufficient_funds';
        END IF;
        entry_at := coalesce(p_dated[i], now());
        -- Last of the checks: the day's count stays locked until the commit.
        -- Only money sent to another customer counts; between one's own
        -- accounts, and at the bank, none leaves a customer.
        IF o_refused[i] IS NULL AND s IS NOT NULL AND d IS NOT NULL AND a_user[d] <> a_user[s]
            AND NOT spend_daily_limit(a_user[s], a_cur[s], amt, entry_at, a_limit[s], p_daily_limit) THEN
            o_refused[i] := 'daily_limit_exceeded';
        END IF;
        IF o_refused[i] IS NOT NULL THEN
            CONTINUE;
        END IF;

        -- The posting goes through.
        IF s IS NOT NULL THEN
            a_bal[s] := a_bal[s] - amt;
            a_moved[s] := true;
        END IF;
        IF d IS NOT NULL THEN
            a_bal[d] := a_bal[d] + amt;
            a_moved[d] := true;
        END IF;
        money := money_text(amt, a_cur[coalesce(s, d)]);
        via := CASE WHEN p_actor[i] IS NULL THEN ' (via CLI)' ELSE '' END;
        descr := p_description[i];
        IF p_kind[i] = 'request' THEN
            descr := coalesce(nullif(q_desc[q], ''), 'Money request ' || q_id[q]);
        END IF;
        -- The row the answer shows (the DEBIT of a payment) is written
        -- first, so it has the smaller id.
        row_id := nextval('transactions_id_seq');
        t_id := t_id || row_id;
        t_amount := t_amount || amt;
        t_kind := t_kind || p_kind[i];
        t_desc := t_desc || descr;
        t_at := t_at || entry_at;
        IF s IS NOT NULL THEN
            t_account := t_account || a_id[s];
            t_user := t_user || a_user[s];
            t_type := t_type || 'DEBIT'::text;
        ELSE
            t_account := t_account || a_id[d];
            t_user := t_user || a_user[d];
            t_type := t_type || 'CREDIT'::text;
        END IF;
        t_from := t_from || a_id[coalesce(s, d)];
        t_to := t_to || a_id[coalesce(d, s)];
        IF s IS NOT NULL AND d IS NOT NULL THEN
            other_id := nextval('transactions_id_seq');
            t_id := t_id || other_id;
            t_amount := t_amount || amt;
            t_kind := t_kind || p_kind[i];
            t_desc := t_desc || descr;
            t_at := t_at || entry_at;
            t_account := t_account || a_id[d];
            t_user := t_user || a_user[d];
            t_type := t_type || 'CREDIT'::text;
            t_from := t_from || a_id[s];
            t_to := t_to || a_id[d];
        END IF;
        row_json := jsonb_build_object(
            'id', row_id,
            'transaction_date', to_char(entry_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
            'transaction_type', CASE WHEN s IS NOT NULL THEN 'DEBIT' ELSE 'CREDIT' END,
            'amount', trim_scale(amt),
            'account_id', a_num[coalesce(s, d)],
            'to_account_id', a_num[coalesce(d, s)],
            'description', descr);

        CASE p_kind[i]
        WHEN 'transfer' THEN
            n_user := n_user || a_user[d];
            n_msg := n_msg || ('You received ' || money || ' from account ' || a_num[s]);
            l_actor := l_actor || p_actor[i];
            l_num := l_num || a_num[s];
            l_action := l_action || 'TRANSFER'::text;
            l_table := l_table || 'transactions'::text;
            l_desc := l_desc || ('Transferred ' || money || ' from ' || a_num[s] || ' to ' || a_num[d] || ' (transaction ' || row_id || ')');
            reply := jsonb_build_object('message', 'Transfer successful', 'transaction', row_json);
        WHEN 'request' THEN
            q_status[q] := 'ACCEPTED';
            accepted := accepted || q_id[q];
            accepted_at := accepted_at || entry_at;
            n_user := n_user || q_payee[q];
            n_msg := n_msg || ('Your request for ' || money || ' from account ' || a_num[s] || ' was accepted');
            l_actor := l_actor || p_actor[i];
            l_num := l_num || a_num[s];
            l_action := l_action || 'REQUEST_ACCEPT'::text;
            l_table := l_table || 'money_requests'::text;
            l_desc := l_desc || ('Accepted request ' || q_id[q] || ': paid ' || money || ' from ' || a_num[s] || ' to ' || a_num[d]);
            reply := jsonb_build_object('message', 'Money request accepted', 'data', jsonb_build_object(
                'ID', q_id[q],
                'Amount', trim_scale(amt),
                'requester_id', a_num[d],
                'recipient_id', a_num[s],
                'Status', 'ACCEPTED',
                'RequesteAt', to_char(q_created[q] AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                'ExpiresAt', to_char(q_expires[q] AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                'description', q_desc[q],
                'direction', 'incoming'));
        WHEN 'deposit' THEN
            n_user := n_user || a_user[d];
            n_msg := n_msg || (money || ' was deposited into your account ' || a_num[d]);
            l_actor := l_actor || p_actor[i];
            l_num := l_num || a_num[d];
            l_action := l_action || 'DEPOSIT'::text;
            l_table := l_table || 'transactions'::text;
            l_desc := l_desc || ('Deposited ' || money || ' into ' || a_num[d] || ' (transaction ' || row_id || ')' || via);
            reply := row_json;
        WHEN 'withdrawal' THEN
            n_user := n_user || a_user[s];
            n_msg := n_msg || (money || ' was withdrawn from your account ' || a_num[s]);
            l_actor := l_actor || p_actor[i];
            l_num := l_num || a_num[s];
            l_action := l_action || 'WITHDRAWAL'::text;
            l_table := l_table || 'transactions'::text;
            l_desc := l_desc || ('Withdrew ' || money || ' from ' || a_num[s] || ' (transaction ' || row_id || ')' || via);
            reply := row_json;
        WHEN 'opening' THEN
            -- The holder opened the account: no one else to tell.
            l_actor := l_actor || p_actor[i];
            l_num := l_num || a_num[d];
            l_action := l_action || 'OPENING_BALANCE'::text;
            l_table := l_table || 'transactions'::text;
            l_desc := l_desc || ('Opening balance of ' || money || ' on ' || a_num[d] || ' (transaction ' || row_id || ')');
            reply := row_json;
        WHEN 'adjustment' THEN
            l_actor := l_actor || p_actor[i];
            l_num := l_num || a_num[coalesce(s, d)];
            l_action := l_action || 'BALANCE_ADJUSTMENT'::text;
            l_table := l_table || 'transactions'::text;
            l_desc := l_desc || ('Adjusted the balance of ' || a_num[coalesce(s, d)] || ' by ' || CASE WHEN s IS NULL THEN '+' ELSE '-' END
                || money || ' (transaction ' || row_id || ')');
            reply := row_json;
        END CASE;
        o_body[i] := reply::text;
        IF p_key[i] IS NOT NULL THEN
            s_user := s_user || coalesce(p_actor[i], 0);
            s_key := s_key || p_key[i];
            s_hash := s_hash || p_hash[i];
            s_body := s_body || reply;
        END IF;
    END LOOP;

    IF cardinality(t_id) > 0 THEN
        -- The CHECK (balance >= 0) stays the backstop of the funds test.
        UPDATE accounts ac SET balance = v.balance
        FROM unnest(a_id, a_bal, a_moved) AS v(id, balance, moved)
        WHERE ac.id = v.id AND v.moved;

        -- All ledger rows in one statement: the totals' statement trigger
        -- (0006) runs once.
        INSERT INTO transactions (id, account_id, user_id, transaction_type, kind, amount, from_account_id, to_account_id, description, created_at)
        OVERRIDING SYSTEM VALUE
        SELECT v.id, v.account_id, v.user_id, v.type, v.kind, v.amount, v.from_id, v.to_id, v.description, v.created
        FROM unnest(t_id, t_account, t_user, t_type, t_kind, t_amount, t_from, t_to, t_desc, t_at)
            AS v(id, account_id, user_id, type, kind, amount, from_id, to_id, description, created);

        IF cardinality(accepted) > 0 THEN
            UPDATE money_requests mr SET status = 'ACCEPTED', resolved_at = v.at
            FROM unnest(accepted, accepted_at) AS v(id, at) WHERE mr.id = v.id;
        END IF;
        INSERT INTO notifications (user_id, message) SELECT * FROM unnest(n_user, n_msg);
        INSERT INTO audit_log (actor_user_id, account_number, action_type, table_name, description)
        SELECT * FROM unnest(l_actor, l_num, l_action, l_table, l_desc);
    END IF;

    IF cardinality(s_key) > 0 THEN
        -- A new key, or one past the window, which the new answer takes over.
        INSERT INTO idempotency_keys AS k (user_id, key, request_hash, response_status, response_body, created_at)
        SELECT v.uid, v.key, v.hash, 201, v.reply, now() FROM unnest(s_user, s_key, s_hash, s_body) AS v(uid, key, hash, reply)
        ON CONFLICT (user_id, key) DO UPDATE
            SET request_hash = EXCLUDED.request_hash, response_status = 201, response_body = EXCLUDED.response_body, created_at = EXCLUDED.created_at
            WHERE k.created_at < EXCLUDED.created_at - p_window;
        GET DIAGNOSTICS stored = ROW_COUNT;
        IF stored <> cardinality(s_key) THEN
            RAISE EXCEPTION 'a key of this batch was stored meanwhile by another request'
                USING ERRCODE = 'serialization_failure';
        END IF;
    END IF;

    RETURN QUERY SELECT e.o::int, o_replayed[e.o], o_body[e.o], o_refused[e.o] FROM generate_series(1, n) AS e(o);
END $$;
