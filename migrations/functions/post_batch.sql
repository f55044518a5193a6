-- post_batch: every movement of money, written once (pkg/bank/postings.go).
--
-- A customer's transfer, the acceptance of a money request, an exchange
-- between currencies, an administrator's deposit, withdrawal and reversal,
-- interest, and each run of a scheduled transfer are postings, and every
-- posting goes through this one function: one set of checks, one ledger
-- writer, one builder of the texts people read, one clock (the database's
-- now()). pkg/bank sends the postings of the moment together, as one
-- statement and one transaction, each entry with its own answer (Service's
-- posting queue); a scheduled run, an approval and an interest run send
-- theirs inside their own transaction.
--
-- Double entry (contract §8): a posting writes two or more ledger rows (its
-- legs), one per account it moves, whose amounts sum to zero per currency
-- (a CREDIT adds to an account, a DEBIT takes from it). The bank's own
-- accounts (class vault, interest_expense, fx_position; migrations/0018)
-- take the other side of money that enters or leaves the customers':
--   kind        legs (the first is the row the answer shows)
--   transfer    sender DEBIT, recipient CREDIT                 p_from, p_to, p_amount
--   request     payer DEBIT, requester CREDIT                  p_request: the money request
--   deposit     customer CREDIT, vault DEBIT                   p_to, p_amount
--   withdrawal  customer DEBIT, vault CREDIT                   p_from, p_amount
--   opening     customer CREDIT, vault DEBIT                   p_to, p_amount (customer_funding)
--   adjustment  as a deposit (p_to) or a withdrawal (p_from)   p_amount (customer_funding)
--   interest    customer CREDIT, interest_expense DEBIT        p_to, p_amount
--   exchange    source DEBIT, fx_position CREDIT (source       p_request: the quote (its
--               currency), fx_position DEBIT, target CREDIT     accounts, amounts, rate)
--               (target currency)
--   reversal    every leg of the posting it reverses, the      p_request: a row of that posting;
--               other way                                      p_description: the reason
-- Every leg shares posting_id, the id of the first; a reversal's legs name
-- the posting they reverse (reverses), at most once.
--
-- p_actor is the user acting (the customer; the administrator; NULL: the
-- operator at the command line, or the bank itself for interest). Every
-- entry carries a key (the client's Idempotency-Key, or one pkg/bank made),
-- which belongs to the actor (0 for NULL) and is stored with the answer in
-- the same transaction: the same key and request within p_window answer the
-- stored answer again (replayed) and move nothing; another request under it
-- is refused (idempotency_key_reused). So sending an entry again, after a
-- connection broke before its answer came, is always safe.
--
-- Locks. With p_wait false (the posting queue) the function never waits
-- for another transaction's row lock: it locks the money requests, quotes
-- and accounts it names FOR UPDATE SKIP LOCKED, and an entry one of whose
-- rows another transaction holds is answered 'busy' without being checked;
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
-- changed by a transaction that committed meanwhile is seen. The bank's
-- accounts have no holder: no customer ever finds one by its number.
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
-- notification to those whose money moved (but the actor) and the audit
-- row. The answer is the JSON the API sends. p_dated, when set (the demo
-- seed's history; interest, dated the 1st of its month), dates the ledger
-- rows and the day of the daily limit.
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
    j int;
    s int;
    d int;
    q int;
    x int;
    b int;
    r record;
    amt numeric;
    amt2 numeric;
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
    -- The exchange quotes of the batch, as locked.
    x_id bigint[] := '{}';
    x_user bigint[] := '{}';
    x_from bigint[] := '{}';
    x_to bigint[] := '{}';
    x_amount numeric[] := '{}';
    x_converted numeric[] := '{}';
    x_rate numeric[] := '{}';
    x_expires timestamptz[] := '{}';
    x_used boolean[] := '{}';
    busy_x bigint[] := '{}';
    -- The legs of the postings the batch reverses: by the row named
    -- (v_ref), the posting (v_posting, its first row's id), each leg.
    v_ref bigint[] := '{}';
    v_posting bigint[] := '{}';
    v_account bigint[] := '{}';
    v_type text[] := '{}';
    v_amount numeric[] := '{}';
    v_from bigint[] := '{}';
    v_to bigint[] := '{}';
    v_kind text[] := '{}';
    v_reversed boolean[] := '{}';
    -- The batch's accounts, as locked, with their holders: parallel arrays,
    -- looked up by a customer's number (a_cnum: NULL for the bank's, so a
    -- lookup of a NULL number is guarded, never made), id, or the bank's
    -- class and currency (a_bank).
    a_num text[] := '{}';
    a_cnum text[] := '{}';
    a_bank text[] := '{}';
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
    ref_accounts bigint[];
    bank_classes text[] := '{}';
    busy_a text[] := '{}';
    -- Stored keys, by entry.
    k_hash text[] := array_fill(NULL::text, ARRAY[n]);
    k_body text[] := array_fill(NULL::text, ARRAY[n]);
    k_at timestamptz[] := array_fill(NULL::timestamptz, ARRAY[n]);
    -- The answers, by entry.
    o_replayed boolean[] := array_fill(false, ARRAY[n]);
    o_body text[] := array_fill(NULL::text, ARRAY[n]);
    o_refused text[] := array_fill(NULL::text, ARRAY[n]);
    -- One entry's legs: account (index), signed amount, from and to (indexes).
    g_acct int[];
    g_delta numeric[];
    g_net numeric;
    jj int;
    g_from int[];
    g_to int[];
    g_ok boolean;
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
    t_posting bigint[] := '{}';
    t_reverses bigint[] := '{}';
    n_user bigint[] := '{}';
    n_msg text[] := '{}';
    l_actor bigint[] := '{}';
    l_num text[] := '{}';
    l_action text[] := '{}';
    l_table text[] := '{}';
    l_desc text[] := '{}';
    accepted bigint[] := '{}';
    accepted_at timestamptz[] := '{}';
    used_quotes bigint[] := '{}';
    reversed_now bigint[] := '{}'; -- postings this batch reversed
    s_user bigint[] := '{}';
    s_key text[] := '{}';
    s_hash text[] := '{}';
    s_body jsonb[] := '{}';
    first_id bigint;
    row_id bigint;
    entry_at timestamptz;
    money text;
    money2 text;
    descr text;
    via text;
    reverses bigint;
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

    -- Money requests and quotes first (an answer to a request locks it,
    -- then its accounts, as declining and expiring do). Each lock is taken
    -- and the rows read in one statement, with SKIP LOCKED; when waiting,
    -- the rows are first locked in a statement of their own (in id order,
    -- waiting as long as lock_timeout allows), so the reading statement,
    -- which a lock this transaction holds never holds back, sees them as
    -- committed once their holders were done.
    IF 'request' = ANY (p_kind) THEN
        IF p_wait THEN
            PERFORM 1 FROM money_requests mr, unnest(p_kind, p_request) AS e(kind, ref)
                WHERE e.kind = 'request' AND mr.id = e.ref ORDER BY mr.id FOR UPDATE OF mr;
        END IF;
        FOR r IN
            SELECT mr.id, mr.recipient_account_id, mr.requester_account_id, mr.recipient_user_id, mr.requester_user_id,
                mr.amount, mr.description, mr.status, mr.created_at, mr.expires_at
            FROM money_requests mr
            WHERE mr.id IN (SELECT e.ref FROM unnest(p_kind, p_request) AS e(kind, ref) WHERE e.kind = 'request')
            ORDER BY mr.id FOR UPDATE SKIP LOCKED
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
        busy_q := ARRAY(SELECT mr.id FROM money_requests mr, unnest(p_kind, p_request) AS e(kind, ref)
            WHERE e.kind = 'request' AND mr.id = e.ref AND mr.id <> ALL (q_id));
    END IF;
    IF 'exchange' = ANY (p_kind) THEN
        bank_classes := bank_classes || 'fx_position'::text;
        IF p_wait THEN
            PERFORM 1 FROM fx_quotes fq, unnest(p_kind, p_request) AS e(kind, ref)
                WHERE e.kind = 'exchange' AND fq.id = e.ref ORDER BY fq.id FOR UPDATE OF fq;
        END IF;
        FOR r IN
            SELECT fq.id, fq.user_id, fq.from_account_id, fq.to_account_id, fq.amount, fq.converted_amount, fq.rate,
                fq.expires_at, fq.used_at IS NOT NULL AS used
            FROM fx_quotes fq
            WHERE fq.id IN (SELECT e.ref FROM unnest(p_kind, p_request) AS e(kind, ref) WHERE e.kind = 'exchange')
            ORDER BY fq.id FOR UPDATE SKIP LOCKED
        LOOP
            x_id := x_id || r.id;
            x_user := x_user || r.user_id;
            x_from := x_from || r.from_account_id;
            x_to := x_to || r.to_account_id;
            x_amount := x_amount || r.amount;
            x_converted := x_converted || r.converted_amount;
            x_rate := x_rate || r.rate;
            x_expires := x_expires || r.expires_at;
            x_used := x_used || r.used;
        END LOOP;
        busy_x := ARRAY(SELECT fq.id FROM fx_quotes fq, unnest(p_kind, p_request) AS e(kind, ref)
            WHERE e.kind = 'exchange' AND fq.id = e.ref AND fq.id <> ALL (x_id));
    END IF;
    IF 'reversal' = ANY (p_kind) THEN
        -- The posting each reversal names (by any of its rows), and whether
        -- it was reversed already. Ledger rows never change: no lock needed
        -- to read them; the accounts they move are locked below.
        FOR r IN
            SELECT e.ref, l.posting, l.id, l.account_id, l.transaction_type, l.amount, l.from_account_id, l.to_account_id, l.kind,
                EXISTS (SELECT 1 FROM transactions rv WHERE rv.reverses = l.posting AND rv.id = rv.posting_id) AS reversed
            FROM (SELECT DISTINCT u.ref FROM unnest(p_kind, p_request) AS u(kind, ref) WHERE u.kind = 'reversal') e
            CROSS JOIN LATERAL posting_legs(e.ref) l
            ORDER BY e.ref, l.id
        LOOP
            v_ref := v_ref || r.ref;
            v_posting := v_posting || r.posting;
            v_account := v_account || r.account_id;
            v_type := v_type || r.transaction_type;
            v_amount := v_amount || r.amount;
            v_from := v_from || r.from_account_id;
            v_to := v_to || r.to_account_id;
            v_kind := v_kind || r.kind;
            v_reversed := v_reversed || r.reversed;
        END LOOP;
    END IF;
    IF p_kind && ARRAY['deposit', 'withdrawal', 'opening', 'adjustment'] THEN
        bank_classes := bank_classes || 'vault'::text;
    END IF;
    IF 'interest' = ANY (p_kind) THEN
        bank_classes := bank_classes || 'interest_expense'::text;
    END IF;

    -- Every account the batch names: customers' by number or through a
    -- request, a quote or a reversed posting, with their holders; the
    -- bank's of the classes its kinds of posting need, every currency.
    named := array_remove(p_from || p_to, NULL);
    ref_accounts := q_payer_acct || q_payee_acct || x_from || x_to || v_account;
    IF p_wait THEN
        PERFORM 1 FROM accounts ac
            WHERE (ac.account_number = ANY (named) AND ac.class = 'customer') OR ac.id = ANY (ref_accounts) OR ac.class = ANY (bank_classes)
            ORDER BY ac.id FOR UPDATE;
    END IF;
    FOR r IN
        SELECT ac.id, ac.user_id, ac.account_number, ac.class, ac.currency::text AS currency, ac.balance, ac.closed_at IS NOT NULL AS closed,
            coalesce(u.is_active, true) AS is_active, ro.name IS NOT DISTINCT FROM 'User' AS customer, u.daily_transfer_limit
        FROM accounts ac LEFT JOIN users u ON u.id = ac.user_id LEFT JOIN roles ro ON ro.id = u.role_id
        WHERE (ac.account_number = ANY (named) AND ac.class = 'customer') OR ac.id = ANY (ref_accounts) OR ac.class = ANY (bank_classes)
        ORDER BY ac.id
        FOR UPDATE OF ac SKIP LOCKED
    LOOP
        a_num := a_num || r.account_number;
        a_cnum := a_cnum || CASE WHEN r.class = 'customer' THEN r.account_number END;
        a_bank := a_bank || CASE WHEN r.class <> 'customer' THEN r.class || ':' || r.currency END;
        a_id := a_id || r.id;
        a_user := a_user || r.user_id;
        a_cur := a_cur || r.currency;
        a_bal := a_bal || r.balance;
        a_closed := a_closed || r.closed;
        a_active := a_active || r.is_active;
        a_customer := a_customer || (r.class = 'customer' AND r.customer);
        a_limit := a_limit || r.daily_transfer_limit;
        a_moved := a_moved || false;
    END LOOP;
    IF NOT (named <@ a_cnum) THEN
        -- Named accounts that exist but were not locked: another
        -- transaction holds them. (The accounts a request, quote or
        -- posting names always exist: one not locked is busy.)
        busy_a := ARRAY(SELECT ac.account_number FROM accounts ac
            WHERE ac.account_number = ANY (named) AND ac.class = 'customer' AND ac.account_number <> ALL (a_num));
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
        x := NULL;
        b := NULL;
        amt := p_amount[i];
        amt2 := NULL;
        descr := p_description[i];
        reverses := NULL;
        g_acct := '{}';
        g_delta := '{}';
        g_from := '{}';
        g_to := '{}';
        entry_at := coalesce(p_dated[i], now());
        CASE p_kind[i]
        WHEN 'transfer' THEN
            IF p_from[i] = ANY (busy_a) OR p_to[i] = ANY (busy_a) THEN
                o_refused[i] := 'busy';
            ELSE
                s := CASE WHEN p_from[i] IS NOT NULL THEN array_position(a_cnum, p_from[i]) END;
                d := CASE WHEN p_to[i] IS NOT NULL THEN array_position(a_cnum, p_to[i]) END;
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
                descr := coalesce(nullif(q_desc[q], ''), 'Money request ' || q_id[q]);
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
        WHEN 'exchange' THEN
            x := array_position(x_id, p_request[i]);
            IF p_request[i] = ANY (busy_x) THEN
                o_refused[i] := 'busy';
            ELSIF x IS NULL OR x_user[x] IS DISTINCT FROM p_actor[i] THEN
                o_refused[i] := 'quote_not_found';
            ELSIF x_used[x] THEN
                o_refused[i] := 'quote_used';
            ELSIF x_expires[x] <= now() THEN
                o_refused[i] := 'quote_expired';
            ELSE
                s := array_position(a_id, x_from[x]);
                d := array_position(a_id, x_to[x]);
                amt := x_amount[x];
                amt2 := x_converted[x];
                descr := coalesce(nullif(p_description[i], ''), 'Exchange');
                IF s IS NULL OR d IS NULL THEN
                    o_refused[i] := 'busy';
                ELSIF a_user[s] IS DISTINCT FROM p_actor[i] OR a_closed[s] THEN
                    o_refused[i] := 'account_not_found';
                ELSIF NOT a_active[s] THEN
                    o_refused[i] := 'user_deactivated';
                ELSIF a_closed[d] THEN
                    o_refused[i] := 'account_closed';
                ELSIF NOT a_active[d] THEN
                    o_refused[i] := 'recipient_inactive';
                ELSIF array_position(a_bank, 'fx_position:' || a_cur[s]) IS NULL
                    OR array_position(a_bank, 'fx_position:' || a_cur[d]) IS NULL THEN
                    o_refused[i] := 'busy';
                END IF;
            END IF;
        WHEN 'deposit', 'opening' THEN
            d := CASE WHEN p_to[i] IS NOT NULL THEN array_position(a_cnum, p_to[i]) END;
            IF p_to[i] = ANY (busy_a) THEN
                o_refused[i] := 'busy';
            ELSIF d IS NULL OR (p_kind[i] = 'opening' AND a_user[d] IS DISTINCT FROM p_actor[i]) THEN
                o_refused[i] := 'account_not_found';
            ELSIF a_closed[d] THEN
                o_refused[i] := 'this_account_closed';
            ELSIF NOT a_customer[d] THEN -- an administrator holds no money
                o_refused[i] := 'holder_not_customer';
            END IF;
        WHEN 'withdrawal' THEN
            s := CASE WHEN p_from[i] IS NOT NULL THEN array_position(a_cnum, p_from[i]) END;
            IF p_from[i] = ANY (busy_a) THEN
                o_refused[i] := 'busy';
            ELSIF s IS NULL THEN
                o_refused[i] := 'account_not_found';
            ELSIF a_closed[s] THEN
                o_refused[i] := 'this_account_closed';
            END IF;
        WHEN 'adjustment' THEN
            -- The actor's own open account, up (p_to) or down (p_from).
            s := CASE WHEN p_from[i] IS NOT NULL THEN array_position(a_cnum, p_from[i]) END;
            d := CASE WHEN p_to[i] IS NOT NULL THEN array_position(a_cnum, p_to[i]) END;
            IF p_from[i] = ANY (busy_a) OR p_to[i] = ANY (busy_a) THEN
                o_refused[i] := 'busy';
            ELSIF (s IS NULL) = (d IS NULL) OR a_user[coalesce(s, d)] IS DISTINCT FROM p_actor[i] THEN
                o_refused[i] := 'account_not_found';
            ELSIF a_closed[coalesce(s, d)] THEN
                o_refused[i] := 'this_account_closed';
            END IF;
        WHEN 'interest' THEN
            d := CASE WHEN p_to[i] IS NOT NULL THEN array_position(a_cnum, p_to[i]) END;
            IF p_to[i] = ANY (busy_a) THEN
                o_refused[i] := 'busy';
            ELSIF d IS NULL THEN
                o_refused[i] := 'account_not_found';
            END IF;
            descr := 'Interest';
        WHEN 'reversal' THEN
            j := array_position(v_ref, p_request[i]);
            IF j IS NULL THEN
                o_refused[i] := 'transaction_not_found';
            ELSIF v_reversed[j] OR v_posting[j] = ANY (reversed_now)
                -- Read again now its accounts are locked: a reversal that
                -- committed since the read above locked them too.
                OR EXISTS (SELECT 1 FROM transactions rv WHERE rv.reverses = v_posting[j] AND rv.id = rv.posting_id) THEN
                o_refused[i] := 'already_reversed';
            ELSIF v_kind[j] = 'reversal' THEN
                o_refused[i] := 'reversal_not_reversible';
            ELSE
                reverses := v_posting[j];
                descr := 'Reversal of transaction ' || v_posting[j] || ': ' || p_description[i];
                -- Every leg the other way, in the order they were written.
                FOR j IN SELECT u.o FROM unnest(v_ref) WITH ORDINALITY AS u(ref, o) WHERE u.ref = p_request[i] ORDER BY u.o LOOP
                    b := array_position(a_id, v_account[j]);
                    s := array_position(a_id, v_to[j]);
                    d := array_position(a_id, v_from[j]);
                    IF b IS NULL OR s IS NULL OR d IS NULL THEN
                        o_refused[i] := 'busy';
                        EXIT;
                    END IF;
                    IF a_cnum[b] IS NOT NULL AND a_closed[b] THEN
                        o_refused[i] := 'account_closed';
                        EXIT;
                    END IF;
                    g_acct := g_acct || b;
                    g_delta := g_delta || CASE v_type[j] WHEN 'CREDIT' THEN -v_amount[j] ELSE v_amount[j] END;
                    g_from := g_from || s;
                    g_to := g_to || d;
                END LOOP;
                amt := v_amount[array_position(v_ref, p_request[i])];
            END IF;
        ELSE
            RAISE EXCEPTION 'post_batch: unknown kind %', p_kind[i];
        END CASE;
        IF o_refused[i] IS NOT NULL THEN
            CONTINUE;
        END IF;

        -- The legs of every kind but a reversal's (built above); the first
        -- is the row the answer shows.
        CASE p_kind[i]
        WHEN 'transfer', 'request' THEN
            g_acct := ARRAY[s, d];
            g_delta := ARRAY[-amt, amt];
            g_from := ARRAY[s, s];
            g_to := ARRAY[d, d];
        WHEN 'exchange' THEN
            q := array_position(a_bank, 'fx_position:' || a_cur[s]);
            b := array_position(a_bank, 'fx_position:' || a_cur[d]);
            g_acct := ARRAY[s, q, b, d];
            g_delta := ARRAY[-amt, amt, -amt2, amt2];
            g_from := ARRAY[s, s, b, b];
            g_to := ARRAY[q, q, d, d];
        WHEN 'deposit', 'opening', 'adjustment', 'interest', 'withdrawal' THEN
            b := array_position(a_bank, CASE p_kind[i] WHEN 'interest' THEN 'interest_expense' ELSE 'vault' END || ':' || a_cur[coalesce(d, s)]);
            IF b IS NULL THEN
                o_refused[i] := 'busy'; -- the bank's account is held by another transaction
                CONTINUE;
            END IF;
            IF d IS NOT NULL THEN -- money comes in
                g_acct := ARRAY[d, b];
                g_delta := ARRAY[amt, -amt];
                g_from := ARRAY[b, b];
                g_to := ARRAY[d, d];
            ELSE -- money goes out
                g_acct := ARRAY[s, b];
                g_delta := ARRAY[-amt, amt];
                g_from := ARRAY[s, s];
                g_to := ARRAY[b, b];
            END IF;
        ELSE
            NULL; -- a reversal's legs were built with its checks
        END CASE;

        -- Funds: no customer's balance goes below zero (the CHECK on
        -- accounts stays the backstop). The bank's carry any sign.
        -- (Plain PL/pgSQL arithmetic over the two to four legs: no query per
        -- leg, which cost a batch of transfers a third of its time.)
        g_ok := true;
        FOR j IN 1 .. cardinality(g_acct) LOOP
            IF a_cnum[g_acct[j]] IS NOT NULL THEN
                g_net := 0;
                FOR jj IN 1 .. cardinality(g_acct) LOOP
                    IF g_acct[jj] = g_acct[j] THEN
                        g_net := g_net + g_delta[jj];
                    END IF;
                END LOOP;
                IF a_bal[g_acct[j]] + g_net < 0 THEN
                    g_ok := false;
                END IF;
            END IF;
        END LOOP;
        IF NOT g_ok THEN
            o_refused[i] := 'insufficient_funds';
            CONTINUE;
        END IF;
        -- Last of the checks: the day's count stays locked until the commit.
        -- Only money a customer sends to another customer counts (in the
        -- currency it leaves in); between one's own accounts, and at the
        -- bank, none leaves a customer.
        IF p_kind[i] IN ('transfer', 'request', 'exchange') AND a_user[d] <> a_user[s]
            AND NOT spend_daily_limit(a_user[s], a_cur[s], amt, entry_at, a_limit[s], p_daily_limit) THEN
            o_refused[i] := 'daily_limit_exceeded';
            CONTINUE;
        END IF;

        -- The posting goes through: its legs, first row first.
        first_id := NULL;
        FOR j IN 1 .. cardinality(g_acct) LOOP
            b := g_acct[j];
            a_bal[b] := a_bal[b] + g_delta[j];
            a_moved[b] := true;
            row_id := nextval('transactions_id_seq');
            first_id := coalesce(first_id, row_id);
            t_id := t_id || row_id;
            t_account := t_account || a_id[b];
            t_user := t_user || a_user[b];
            t_type := t_type || CASE WHEN g_delta[j] > 0 THEN 'CREDIT' ELSE 'DEBIT' END;
            t_kind := t_kind || p_kind[i];
            t_amount := t_amount || abs(g_delta[j]);
            t_from := t_from || a_id[g_from[j]];
            t_to := t_to || a_id[g_to[j]];
            t_desc := t_desc || descr;
            t_at := t_at || entry_at;
            t_posting := t_posting || first_id;
            t_reverses := t_reverses || reverses;
        END LOOP;
        s := g_from[1];
        d := g_to[1];
        money := money_text(abs(g_delta[1]), a_cur[g_acct[1]]);
        via := CASE WHEN p_actor[i] IS NULL THEN ' (via CLI)' ELSE '' END;
        row_json := jsonb_build_object(
            'id', first_id,
            'transaction_date', to_char(entry_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
            'transaction_type', CASE WHEN g_delta[1] > 0 THEN 'CREDIT' ELSE 'DEBIT' END,
            'amount', trim_scale(abs(g_delta[1])),
            'account_id', a_num[s],
            'to_account_id', a_num[d],
            'description', descr,
            'kind', p_kind[i],
            'reverses', reverses,
            'reversed_by', NULL);

        CASE p_kind[i]
        WHEN 'transfer' THEN
            n_user := n_user || a_user[d];
            n_msg := n_msg || ('You received ' || money || ' from account ' || a_num[s]);
            l_actor := l_actor || p_actor[i];
            l_num := l_num || a_num[s];
            l_action := l_action || 'TRANSFER'::text;
            l_table := l_table || 'transactions'::text;
            l_desc := l_desc || ('Transferred ' || money || ' from ' || a_num[s] || ' to ' || a_num[d] || ' (transaction ' || first_id || ')');
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
        WHEN 'exchange' THEN
            s := g_acct[1];
            d := g_acct[4];
            money2 := money_text(amt2, a_cur[d]);
            used_quotes := used_quotes || x_id[x];
            x_used[x] := true;
            IF a_user[d] <> a_user[s] THEN
                n_user := n_user || a_user[d];
                n_msg := n_msg || ('You received ' || money2 || ' from account ' || a_num[s]);
            END IF;
            l_actor := l_actor || p_actor[i];
            l_num := l_num || a_num[s];
            l_action := l_action || 'EXCHANGE'::text;
            l_table := l_table || 'transactions'::text;
            l_desc := l_desc || ('Exchanged ' || money || ' from ' || a_num[s] || ' into ' || money2 || ' on ' || a_num[d]
                || ' at ' || x_rate[x] || ' (transaction ' || first_id || ')');
            reply := jsonb_build_object('message', 'Exchange successful', 'transaction', row_json);
        WHEN 'deposit' THEN
            n_user := n_user || a_user[d];
            n_msg := n_msg || (money || ' was deposited into your account ' || a_num[d]);
            l_actor := l_actor || p_actor[i];
            l_num := l_num || a_num[d];
            l_action := l_action || 'DEPOSIT'::text;
            l_table := l_table || 'transactions'::text;
            l_desc := l_desc || ('Deposited ' || money || ' into ' || a_num[d] || ' (transaction ' || first_id || ')' || via);
            reply := row_json;
        WHEN 'withdrawal' THEN
            n_user := n_user || a_user[s];
            n_msg := n_msg || (money || ' was withdrawn from your account ' || a_num[s]);
            l_actor := l_actor || p_actor[i];
            l_num := l_num || a_num[s];
            l_action := l_action || 'WITHDRAWAL'::text;
            l_table := l_table || 'transactions'::text;
            l_desc := l_desc || ('Withdrew ' || money || ' from ' || a_num[s] || ' (transaction ' || first_id || ')' || via);
            reply := row_json;
        WHEN 'opening' THEN
            -- The holder opened the account: no one else to tell.
            l_actor := l_actor || p_actor[i];
            l_num := l_num || a_num[d];
            l_action := l_action || 'OPENING_BALANCE'::text;
            l_table := l_table || 'transactions'::text;
            l_desc := l_desc || ('Opening balance of ' || money || ' on ' || a_num[d] || ' (transaction ' || first_id || ')');
            reply := row_json;
        WHEN 'adjustment' THEN
            b := g_acct[1];
            l_actor := l_actor || p_actor[i];
            l_num := l_num || a_num[b];
            l_action := l_action || 'BALANCE_ADJUSTMENT'::text;
            l_table := l_table || 'transactions'::text;
            l_desc := l_desc || ('Adjusted the balance of ' || a_num[b] || ' by ' || CASE WHEN g_delta[1] > 0 THEN '+' ELSE '-' END
                || money || ' (transaction ' || first_id || ')');
            reply := row_json;
        WHEN 'interest' THEN
            n_user := n_user || a_user[d];
            n_msg := n_msg || ('Interest of ' || money || ' was paid into your account ' || a_num[d]);
            l_actor := l_actor || p_actor[i];
            l_num := l_num || a_num[d];
            l_action := l_action || 'INTEREST'::text;
            l_table := l_table || 'transactions'::text;
            l_desc := l_desc || ('Paid ' || money || ' of interest into ' || a_num[d] || ' (transaction ' || first_id || ')');
            reply := row_json;
        WHEN 'reversal' THEN
            -- Each customer whose money moved back is told.
            FOR j IN 1 .. cardinality(g_acct) LOOP
                b := g_acct[j];
                IF a_cnum[b] IS NOT NULL THEN
                    n_user := n_user || a_user[b];
                    n_msg := n_msg || (money_text(abs(g_delta[j]), a_cur[b])
                        || CASE WHEN g_delta[j] > 0 THEN ' was returned to your account ' ELSE ' was taken back from your account ' END
                        || a_num[b] || ': transaction ' || reverses || ' was reversed');
                END IF;
            END LOOP;
            l_actor := l_actor || p_actor[i];
            l_num := l_num || a_num[g_acct[1]];
            l_action := l_action || 'REVERSAL'::text;
            l_table := l_table || 'transactions'::text;
            reversed_now := reversed_now || reverses;
            l_desc := l_desc || ('Reversed transaction ' || reverses || ' (' || p_description[i] || ') with transaction ' || first_id || via);
            reply := jsonb_build_object('message', 'Transaction reversed', 'reverses', reverses, 'transaction', row_json);
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
        -- The CHECK on customers' balances stays the backstop of the funds test.
        UPDATE accounts ac SET balance = v.balance
        FROM unnest(a_id, a_bal, a_moved) AS v(id, balance, moved)
        WHERE ac.id = v.id AND v.moved;

        -- All ledger rows in one statement: the totals' statement trigger
        -- (ledger_totals_add) runs once.
        INSERT INTO transactions (id, account_id, user_id, transaction_type, kind, amount, from_account_id, to_account_id, description,
            created_at, posting_id, reverses)
        OVERRIDING SYSTEM VALUE
        SELECT v.id, v.account_id, v.user_id, v.type, v.kind, v.amount, v.from_id, v.to_id, v.description, v.created, v.posting, v.reverses
        FROM unnest(t_id, t_account, t_user, t_type, t_kind, t_amount, t_from, t_to, t_desc, t_at, t_posting, t_reverses)
            AS v(id, account_id, user_id, type, kind, amount, from_id, to_id, description, created, posting, reverses);

        IF cardinality(accepted) > 0 THEN
            UPDATE money_requests mr SET status = 'ACCEPTED', resolved_at = v.at
            FROM unnest(accepted, accepted_at) AS v(id, at) WHERE mr.id = v.id;
        END IF;
        IF cardinality(used_quotes) > 0 THEN
            UPDATE fx_quotes SET used_at = now() WHERE id = ANY (used_quotes);
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
