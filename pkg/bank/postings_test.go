package bank

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"meridian/pkg/auth"
	"meridian/pkg/errs"
	"meridian/pkg/money"
	"meridian/pkg/testdb"
)

// queued builds a transfer as Transfer would queue it, after its checks,
// as taken by a worker (the tests send it with postQueue.run). An empty key
// is made, as Transfer makes one.
func queued(t *testing.T, s *Service, a Actor, from, to string, amount money.Amount, key string) *queuedPosting {
	t.Helper()
	if key == "" {
		key = newKey()
	}
	p, err := s.checkTransfer(ctx, a, TransferInput{AccountID: from, ToAccountID: to, Amount: amount}, key)
	if err != nil {
		t.Fatal(err)
	}
	return &queuedPosting{ctx: ctx, p: p, done: make(chan postAnswer, 1), state: stateSending}
}

// answers waits for each posting's answer, in order.
func answers(ts []*queuedPosting) []postAnswer {
	out := make([]postAnswer, len(ts))
	for i, t := range ts {
		out[i] = <-t.done
	}
	return out
}

// codeOf is the stable code of err ("" for nil).
func codeOf(err error) string {
	var e *errs.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// One batch, every answer to its own caller: the entries run in the order
// of their senders' ids, not in the batch's, so a mix-up of answers would
// show. Each refusal is the one a posting gets alone, and gives its
// Idempotency-Key back.
func TestPostBatchAnswersEachCaller(t *testing.T) {
	t.Parallel()
	s := newService(t)
	// Registered first, so with the smaller id: their entries run first.
	early := newCustomer(t, s, "Erin Early")
	late := newCustomer(t, s, "Lee Late")
	bob := newCustomer(t, s, "Bob Batch")
	lateAcc, earlyAcc := openAccount(t, s, late, "100.00"), openAccount(t, s, early, "50.00")
	bobAcc := openAccount(t, s, bob, "0")
	closed := openAccount(t, s, bob, "0")
	if _, err := s.db.Exec(`UPDATE accounts SET closed_at = now() WHERE id = $1`, closed.ID); err != nil {
		t.Fatal(err)
	}

	batch := []*queuedPosting{
		queued(t, s, late, lateAcc.AccountNumber, bobAcc.AccountNumber, 60_00, "late-1"),    // ok: 100 -> 40
		queued(t, s, early, earlyAcc.AccountNumber, bobAcc.AccountNumber, 80_00, "early-1"), // insufficient: 50
		queued(t, s, late, lateAcc.AccountNumber, bobAcc.AccountNumber, 60_00, "late-2"),    // insufficient: 40 left
		queued(t, s, early, earlyAcc.AccountNumber, closed.AccountNumber, 1_00, ""),         // closed
		queued(t, s, early, earlyAcc.AccountNumber, "NOSUCH0001", 1_00, ""),                 // not found
		queued(t, s, early, earlyAcc.AccountNumber, bobAcc.AccountNumber, 50_00, ""),        // ok: 50 -> 0
	}
	s.postings.run(batch)
	got := answers(batch)

	first, err := transferResult(got[0].out, true)
	if got[0].err != nil || err != nil || first.Transaction.Amount != 60_00 || first.Transaction.AccountID != lateAcc.AccountNumber {
		t.Fatalf("entry 1: %+v", got[0])
	}
	last, err := transferResult(got[5].out, true)
	if got[5].err != nil || err != nil || last.Transaction.Amount != 50_00 || last.Transaction.AccountID != earlyAcc.AccountNumber {
		t.Fatalf("entry 6: %+v", got[5])
	}
	for i, want := range map[int]string{1: "insufficient_funds", 2: "insufficient_funds", 3: "account_closed", 4: "account_not_found"} {
		if codeOf(got[i].err) != want {
			t.Fatalf("entry %d: %v, want %s", i+1, got[i].err, want)
		}
	}
	if st := s.PostingStats(); st.Batches != 1 || st.Postings != 6 || st.Largest != 6 || st.Fallbacks != 0 {
		t.Fatalf("stats %+v: want one batch of 6, run whole", st)
	}
	if b := balanceOf(t, s, bobAcc.ID); b != 110_00 {
		t.Fatalf("bob holds %s, want 110.00", b)
	}
	for _, acc := range []Account{lateAcc, earlyAcc, bobAcc} {
		if balanceOf(t, s, acc.ID) != ledgerSum(t, s, acc.ID) {
			t.Fatalf("account %d: balance differs from its ledger", acc.ID)
		}
	}
	// The refused entries' keys are free again: the same key now works.
	if _, err := s.Transfer(ctx, early, TransferInput{AccountID: bobAcc.AccountNumber, ToAccountID: earlyAcc.AccountNumber, Amount: 1}, "early-1"); err == nil {
		t.Fatal("bob's account is not early's to send from")
	}
	if _, err := s.Transfer(ctx, late, TransferInput{AccountID: lateAcc.AccountNumber, ToAccountID: bobAcc.AccountNumber, Amount: 40_00}, "late-2"); err != nil {
		t.Fatalf("retry of a refused key: %v", err)
	}
	// The key of the entry that went through replays its answer.
	again, err := s.Transfer(ctx, late, TransferInput{AccountID: lateAcc.AccountNumber, ToAccountID: bobAcc.AccountNumber, Amount: 60_00}, "late-1")
	if err != nil || !again.Replayed || string(again.Body) != string(got[0].out.Body) {
		t.Fatalf("replay of late-1: %+v %v", again, err)
	}
	if n := auditCount(t, s, "TRANSFER"); n != 3 {
		t.Fatalf("%d TRANSFER audit rows, want 3", n)
	}
}

// An entry that makes PostgreSQL raise an error rolls its batch back; the
// others then go through one by one, each with its own answer, and the bad
// one gets its error. Without the fallback every caller of the batch would
// get the error.
func TestPostBatchOneBadEntry(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice, bob := newCustomer(t, s, "Alice Poison"), newCustomer(t, s, "Bob Poison")
	from, to := openAccount(t, s, alice, "1000.00"), openAccount(t, s, bob, "0")
	// A notification of $13.13 makes the database raise, as a broken row
	// or constraint would.
	if _, err := s.db.Exec(`
		CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.message LIKE 'You received $13.13 %' THEN RAISE EXCEPTION 'poisoned'; END IF;
			RETURN NEW;
		END $$;
		CREATE TRIGGER poison BEFORE INSERT ON notifications FOR EACH ROW EXECUTE FUNCTION poison()`); err != nil {
		t.Fatal(err)
	}
	batch := []*queuedPosting{
		queued(t, s, alice, from.AccountNumber, to.AccountNumber, 10_00, "k1"),
		queued(t, s, alice, from.AccountNumber, to.AccountNumber, 13_13, "k2"),
		queued(t, s, alice, from.AccountNumber, to.AccountNumber, 20_00, ""),
	}
	s.postings.run(batch) // a worker takes what it puts back
	got := answers(batch)
	if got[0].err != nil || got[2].err != nil {
		t.Fatalf("the good entries: %v, %v", got[0].err, got[2].err)
	}
	if got[1].err == nil || errs.KindOf(got[1].err) != errs.Internal {
		t.Fatalf("the poisoned entry: %v, want an internal error", got[1].err)
	}
	if st := s.PostingStats(); st.Fallbacks != 1 {
		t.Fatalf("stats %+v: want one fallback", st)
	}
	if b := balanceOf(t, s, to.ID); b != 30_00 || ledgerSum(t, s, to.ID) != 30_00 {
		t.Fatalf("bob holds %s (ledger %s), want 30.00", b, ledgerSum(t, s, to.ID))
	}
	// The poisoned entry's key was not kept: nothing of it committed.
	var keys int
	if err := s.db.Get(&keys, `SELECT count(*) FROM idempotency_keys WHERE key = 'k2'`); err != nil || keys != 0 {
		t.Fatalf("%d rows for the poisoned key (%v)", keys, err)
	}
}

// Two postings under one caller's key never share a batch: the second waits
// for the next, where it replays the first's answer. A posting whose
// caller gave up while it was queued is answered at once, unsent; one
// waiting out its backoff is not taken before it is due.
func TestPostQueueTake(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice, bob := newCustomer(t, s, "Alice Take"), newCustomer(t, s, "Bob Take")
	from, to := openAccount(t, s, alice, "100.00"), openAccount(t, s, bob, "0")
	first := queued(t, s, alice, from.AccountNumber, to.AccountNumber, 5_00, "same")
	second := queued(t, s, alice, from.AccountNumber, to.AccountNumber, 5_00, "same")
	other := queued(t, s, bob, to.AccountNumber, from.AccountNumber, 1_00, "same") // bob's key of that name is his own
	gone := queued(t, s, alice, from.AccountNumber, to.AccountNumber, 7_00, "")
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	gone.ctx = cancelled
	later := queued(t, s, alice, from.AccountNumber, to.AccountNumber, 2_00, "")
	later.notBefore = time.Now().Add(time.Hour)

	q := s.postings
	q.mu.Lock()
	for _, p := range []*queuedPosting{first, second, gone, later, other} {
		p.state = stateQueued
	}
	q.queue = []*queuedPosting{first, second, gone, later, other}
	q.running = 1
	q.mu.Unlock()
	b1, _ := q.take()
	if len(b1) != 2 || b1[0] != first || b1[1] != other {
		t.Fatalf("first batch %v, want first and bob's", b1)
	}
	if a := <-gone.done; codeOf(a.err) != "timeout" {
		t.Fatalf("the cancelled posting: %v, want timeout", a.err)
	}
	q.run(b1)
	b2, _ := q.take()
	if len(b2) != 1 || b2[0] != second {
		t.Fatalf("second batch %v, want the second under the key", b2)
	}
	q.run(b2)
	b3, wait := q.take()
	if b3 != nil || wait <= 0 || wait > time.Hour {
		t.Fatalf("third take: %v, wait %s; want none, and the wait until the delayed one is due", b3, wait)
	}
	q.mu.Lock()
	q.queue = nil // the delayed one: dropped by the test
	q.mu.Unlock()
	if b, wait := q.take(); b != nil || wait >= 0 || q.running != 0 {
		t.Fatal("the queue should be empty and its worker gone")
	}
	a1, a2 := <-first.done, <-second.done
	if a1.err != nil || a2.err != nil || !a2.out.Replayed || string(a2.out.Body) != string(a1.out.Body) {
		t.Fatalf("first %+v, second %+v: want the second to replay the first", a1, a2)
	}
	if b := balanceOf(t, s, to.ID); b != 4_00 {
		t.Fatalf("bob holds %s, want 4.00 (5.00 in, 1.00 out, nothing of the cancelled)", b)
	}
}

// Many customers sending at once, crossing pairs, overdrafts and replays,
// with three batches in flight that share accounts: the postings go in
// batches (the largest carries more than one), batches skip each other's
// locks instead of waiting or deadlocking, every answered transfer is in the
// ledger once, and money is neither made nor lost.
func TestPostBatchesUnderConcurrency(t *testing.T) {
	t.Parallel()
	s := newService(t)
	s.postings.workers = 3 // batches that share accounts run at the same time
	const customers, senders, each = 12, 48, 25
	var actors []Actor
	var accs []Account
	for i := range customers {
		a := newCustomer(t, s, fmt.Sprintf("Cora%d Crowd", i))
		actors = append(actors, a)
		accs = append(accs, openAccount(t, s, a, "200.00"))
	}
	var total money.Amount
	for _, acc := range accs {
		total += balanceOf(t, s, acc.ID)
	}

	var mu sync.Mutex
	ids := map[int64]int{}
	ok, refused, replays := 0, 0, 0
	var wg sync.WaitGroup
	for g := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 7))
			var last struct {
				a   Actor
				in  TransferInput
				key string
			}
			for n := range each {
				var a Actor
				var in TransferInput
				key := ""
				if n%6 == 3 && last.key != "" {
					a, in, key = last.a, last.in, last.key // the same request again
				} else {
					i, j := r.IntN(customers), r.IntN(customers-1)
					if j >= i {
						j++
					}
					// Up to 30.00: some overdraw.
					a, in = actors[i], TransferInput{AccountID: accs[i].AccountNumber, ToAccountID: accs[j].AccountNumber, Amount: money.Amount(1 + r.IntN(3000))}
					if n%6 == 0 {
						key = fmt.Sprintf("g%d-%d", g, n)
						last.a, last.in, last.key = a, in, key
					}
				}
				res, err := s.Transfer(ctx, a, in, key)
				mu.Lock()
				switch {
				case err == nil && res.Replayed:
					replays++
				case err == nil:
					ok++
					ids[res.Transaction.ID]++
				case codeOf(err) == "insufficient_funds" || codeOf(err) == "idempotency_key_reused":
					refused++
				default:
					t.Errorf("transfer: %v", err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()

	var sum money.Amount
	for _, acc := range accs {
		b := balanceOf(t, s, acc.ID)
		if b != ledgerSum(t, s, acc.ID) {
			t.Fatalf("account %d: balance %s differs from its ledger %s", acc.ID, b, ledgerSum(t, s, acc.ID))
		}
		sum += b
	}
	if sum != total {
		t.Fatalf("the accounts hold %s, want %s", sum, total)
	}
	for id, n := range ids {
		if n != 1 {
			t.Fatalf("transaction %d answered %d times", id, n)
		}
	}
	var debits int
	if err := s.db.Get(&debits, `SELECT count(*) FROM transactions WHERE transaction_type = 'DEBIT' AND kind = 'transfer'`); err != nil {
		t.Fatal(err)
	}
	if debits != ok || auditCount(t, s, "TRANSFER") != ok {
		t.Fatalf("%d DEBIT rows, %d audit rows for %d transfers answered 201", debits, auditCount(t, s, "TRANSFER"), ok)
	}
	st := s.PostingStats()
	t.Logf("%d ok, %d refused, %d replays; batches %+v", ok, refused, replays, st)
	if st.Largest < 2 {
		t.Fatalf("no batch carried more than one posting (%+v): the test did not exercise batches", st)
	}
	if ok == 0 || refused == 0 || replays == 0 {
		t.Fatalf("want successes, refusals and replays: %d, %d, %d", ok, refused, replays)
	}
}

// Two instances (two Services on one database, each with its own batches)
// sending two different requests under one key at once, on accounts that
// share no lock: the money moves once, the same request replays that answer
// and the other is refused 409. The batch that finds the key stored by the
// other's commit must fail whole (serialization failure) and run again;
// without that it would move money under a key that answers for another
// request.
func TestPostingKeyRaceAcrossInstances(t *testing.T) {
	t.Parallel()
	s1 := newService(t)
	s2 := New(s1.db, s1.tokens, s1.settings)
	alice, bob := newCustomer(t, s1, "Alice Twice"), newCustomer(t, s1, "Bob Twice")
	fromA, fromB := openAccount(t, s1, alice, "1000.00"), openAccount(t, s1, alice, "1000.00")
	toA, toB := openAccount(t, s1, bob, "0"), openAccount(t, s1, bob, "0")
	reqs := []TransferInput{
		{AccountID: fromA.AccountNumber, ToAccountID: toA.AccountNumber, Amount: 3_00},
		{AccountID: fromB.AccountNumber, ToAccountID: toB.AccountNumber, Amount: 3_00},
	}
	for round := range 20 {
		key := fmt.Sprintf("twice-%d", round)
		var wg sync.WaitGroup
		var mu sync.Mutex
		fresh, replays, reused := 0, 0, 0
		start := make(chan struct{})
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := []*Service{s1, s2}[i%2]
				<-start
				res, err := s.Transfer(ctx, alice, reqs[i/2%2], key)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil && res.Replayed:
					replays++
				case err == nil:
					fresh++
				case codeOf(err) == "idempotency_key_reused":
					reused++
				default:
					t.Errorf("round %d: %v", round, err)
				}
			}()
		}
		close(start)
		wg.Wait()
		if fresh != 1 || replays != 3 || reused != 4 {
			t.Fatalf("round %d: %d moved money, %d replayed, %d refused as reused; want 1, 3, 4", round, fresh, replays, reused)
		}
	}
	if got := balanceOf(t, s1, toA.ID) + balanceOf(t, s1, toB.ID); got != 60_00 {
		t.Fatalf("bob received %s, want 60.00 (20 transfers of 3.00)", got)
	}
}

// holdAccount holds a row lock on account id from another connection, as
// another transaction would, until the returned function is called.
func holdAccount(t *testing.T, s *Service, id int64) (release func()) {
	t.Helper()
	tx, err := s.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, id); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() { once.Do(func() { tx.Rollback() }) }
	t.Cleanup(release)
	return release
}

// A batch never waits for a lock another transaction holds (contract §5):
// the posting whose account is held is answered busy and put back, the
// others of its batch commit at once. Past its caller's deadline the held
// posting is answered timeout, and nothing of it was written; with time
// left once the lock is gone, it goes through.
func TestPostBatchSkipsHeldLocks(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice, bob := newCustomer(t, s, "Alice Hurry"), newCustomer(t, s, "Bob Hurry")
	busy, free := openAccount(t, s, alice, "100.00"), openAccount(t, s, alice, "100.00")
	to := openAccount(t, s, bob, "0")
	release := holdAccount(t, s, busy.ID)

	hurried := queued(t, s, alice, busy.AccountNumber, to.AccountNumber, 1_00, "")
	dl, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	hurried.ctx = dl
	patient := queued(t, s, alice, free.AccountNumber, to.AccountNumber, 2_00, "")
	s.postings.run([]*queuedPosting{hurried, patient})
	// run returned: the batch did not wait for the held lock.
	if a := <-patient.done; a.err != nil {
		t.Fatalf("the other posting: %v", a.err)
	}
	if st := s.PostingStats(); st.Busy < 1 || st.Fallbacks != 0 {
		t.Fatalf("stats %+v: want the held posting put back, and no fallback", st)
	}
	if a := <-hurried.done; codeOf(a.err) != "timeout" {
		t.Fatalf("the posting out of time: %v, want timeout", a.err)
	}
	release()
	if b := balanceOf(t, s, busy.ID); b != 100_00 {
		t.Fatalf("the held account holds %s: the timed-out posting moved money", b)
	}

	// With time to spare it waits in the queue, not on the lock, and goes
	// through once the lock is let go.
	release = holdAccount(t, s, busy.ID)
	busyBefore := s.PostingStats().Busy
	done := make(chan error, 1)
	go func() {
		_, err := s.Transfer(ctx, alice, TransferInput{AccountID: busy.AccountNumber, ToAccountID: to.AccountNumber, Amount: 3_00}, "")
		done <- err
	}()
	for s.PostingStats().Busy < busyBefore+3 { // put back three times: it waits for the lock
		time.Sleep(5 * time.Millisecond)
	}
	release()
	if err := <-done; err != nil {
		t.Fatalf("the transfer once the lock was let go: %v", err)
	}
	if b := balanceOf(t, s, busy.ID); b != 97_00 {
		t.Fatalf("the account holds %s, want 97.00", b)
	}
}

// A worker that panics answers its batch's callers (outcome_unknown: the
// batch may have been sent) and the queue goes on: the next posting is
// made. Without the recovery the panic would end the process.
func TestPostWorkerSurvivesPanic(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice, bob := newCustomer(t, s, "Alice Panic"), newCustomer(t, s, "Bob Panic")
	from, to := openAccount(t, s, alice, "100.00"), openAccount(t, s, bob, "0")
	var armed atomic.Bool
	armed.Store(true)
	s.postings.hook = func([]*queuedPosting) {
		if armed.CompareAndSwap(true, false) {
			panic("a bug in the worker")
		}
	}
	_, err := s.Transfer(ctx, alice, TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: 1_00}, "panic-1")
	if codeOf(err) != "outcome_unknown" || OutcomeKey(err) != "panic-1" {
		t.Fatalf("the transfer in the panicking batch: %v (key %q), want outcome_unknown with its key", err, OutcomeKey(err))
	}
	res, err := s.Transfer(ctx, alice, TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: 2_00}, "")
	if err != nil || res.Transaction.Amount != 2_00 {
		t.Fatalf("the next transfer: %+v %v", res, err)
	}
	// The key tells: the panicking batch was never sent.
	res, err = s.Transfer(ctx, alice, TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: 1_00}, "panic-1")
	if err != nil || res.Replayed {
		t.Fatalf("the retry under the key: %+v %v, want it made now", res, err)
	}
	if st := s.PostingStats(); st.Panics != 1 {
		t.Fatalf("stats %+v: want one panic", st)
	}
	if b := balanceOf(t, s, to.ID); b != 3_00 {
		t.Fatalf("bob holds %s, want 3.00", b)
	}
}

// breakingDialer dials the test database; once armed, the next write that
// carries post_batch goes out whole and the connection is then closed, so
// the server runs (and commits) the statement while its answer is lost: a
// connection that breaks during the commit. While down, it refuses to
// dial, as a database that cannot be reached.
type breakingDialer struct {
	armed atomic.Bool
	down  atomic.Bool
}

func (d *breakingDialer) Dial(network, address string) (net.Conn, error) {
	return d.DialTimeout(network, address, 0)
}

func (d *breakingDialer) DialTimeout(network, address string, timeout time.Duration) (net.Conn, error) {
	if d.down.Load() {
		return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("connection refused (test)")}
	}
	c, err := net.DialTimeout(network, address, timeout)
	if err != nil {
		return nil, err
	}
	return &breakingConn{Conn: c, d: d}, nil
}

type breakingConn struct {
	net.Conn
	d *breakingDialer
}

func (c *breakingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if err == nil && strings.Contains(string(b), "post_batch") && c.d.armed.CompareAndSwap(true, false) {
		c.Conn.Close()
	}
	return n, err
}

// newBreakableService is a Service whose connections go through a
// breakingDialer.
func newBreakableService(t *testing.T) (*Service, *breakingDialer) {
	t.Helper()
	dsn := testdb.URL(t)
	if strings.Contains(dsn, "://") {
		dsn += map[bool]string{true: "&", false: "?"}[strings.Contains(dsn, "?")] + "binary_parameters=yes&timezone=UTC"
	} else {
		dsn += " binary_parameters=yes timezone=UTC"
	}
	conn, err := pq.NewConnector(dsn)
	if err != nil {
		t.Fatal(err)
	}
	d := &breakingDialer{}
	conn.Dialer(d)
	pool := sqlx.NewDb(sql.OpenDB(conn), "postgres")
	t.Cleanup(func() { pool.Close() })
	tokens, err := auth.NewTokens([]byte(strings.Repeat("s", 32)), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return New(pool, tokens, Settings{RequestsTTL: time.Hour, LookupPerMinute: 1000}), d
}

// A connection that breaks after the statement went out, while PostgreSQL
// commits it: the transfer committed, and its caller is told so (201, the
// DEBIT row), never that it failed. Without the resolution the caller got
// the connection's error for a transfer that had moved the money.
func TestPostingOutcomeAfterBrokenConnection(t *testing.T) {
	t.Parallel()
	s, d := newBreakableService(t)
	alice, bob := newCustomer(t, s, "Alice Broken"), newCustomer(t, s, "Bob Broken")
	from, to := openAccount(t, s, alice, "100.00"), openAccount(t, s, bob, "0")
	d.armed.Store(true)
	res, err := s.Transfer(ctx, alice, TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: 7_00, Description: "lost answer"}, "")
	if err != nil {
		t.Fatalf("a transfer that committed was answered %v", err)
	}
	if d.armed.Load() {
		t.Fatal("the connection was not broken: the test did not run its case")
	}
	var debits []int64
	if err := s.db.Select(&debits, `SELECT id FROM transactions WHERE transaction_type = 'DEBIT' AND description = 'lost answer'`); err != nil {
		t.Fatal(err)
	}
	if len(debits) != 1 || debits[0] != res.Transaction.ID || res.Replayed {
		t.Fatalf("DEBIT rows %v, answered %+v: want the one transfer, answered as made", debits, res)
	}
	if st := s.PostingStats(); st.Resolved != 1 || st.Unknown != 0 {
		t.Fatalf("stats %+v: want one batch resolved, none unknown", st)
	}
}

// While the database cannot be reached at all after the connection broke,
// the caller is told outcome_unknown with the key, never that nothing
// changed; asked again with that key once the database is back, the answer
// is the transfer that committed, and no money moves twice.
func TestPostingOutcomeUnknownThenTold(t *testing.T) {
	t.Parallel()
	s, d := newBreakableService(t)
	alice, bob := newCustomer(t, s, "Alice Unknown"), newCustomer(t, s, "Bob Unknown")
	from, to := openAccount(t, s, alice, "100.00"), openAccount(t, s, bob, "0")
	old := resolveWindow
	resolveWindow = 500 * time.Millisecond
	defer func() { resolveWindow = old }()
	d.armed.Store(true)
	d.down.Store(true)
	s.db.SetMaxIdleConns(0) // every statement dials
	in := TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: 9_00, Description: "unknown"}
	// The first statement needs one connection: dial it before going down.
	d.down.Store(false)
	s.db.SetMaxIdleConns(1)
	if _, err := s.db.Exec(`SELECT 1`); err != nil {
		t.Fatal(err)
	}
	d.down.Store(true)
	_, err := s.Transfer(ctx, alice, in, "")
	key := OutcomeKey(err)
	if codeOf(err) != "outcome_unknown" || key == "" {
		t.Fatalf("with the database out of reach: %v, want outcome_unknown with a key", err)
	}
	d.down.Store(false)
	res, err := s.Transfer(ctx, alice, in, key)
	if err != nil || !res.Replayed {
		t.Fatalf("asked again with the key: %+v %v, want the stored answer", res, err)
	}
	if b := balanceOf(t, s, to.ID); b != 9_00 {
		t.Fatalf("bob holds %s, want 9.00: once", b)
	}
}

// While no connection to the database can be made at all, nothing of a
// posting is sent: it waits in the queue, and past its deadline it is
// answered timeout (nothing changed, which is true); once the database is
// back, postings go through.
func TestPostingWaitsWhileTheDatabaseIsUnreachable(t *testing.T) {
	t.Parallel()
	s, d := newBreakableService(t)
	alice, bob := newCustomer(t, s, "Alice Waits"), newCustomer(t, s, "Bob Waits")
	from, to := openAccount(t, s, alice, "100.00"), openAccount(t, s, bob, "0")
	d.down.Store(true)
	s.db.SetMaxIdleConns(0) // every statement dials
	in := TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: 5_00}
	dl, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err := s.Transfer(dl, alice, in, "")
	if codeOf(err) != "timeout" {
		t.Fatalf("with the database out of reach: %v, want timeout", err)
	}
	if st := s.PostingStats(); st.Resolved != 0 || st.Unknown != 0 {
		t.Fatalf("stats %+v: nothing was sent, so nothing is unknown", st)
	}
	d.down.Store(false)
	if _, err := s.Transfer(ctx, alice, in, ""); err != nil {
		t.Fatalf("once the database is back: %v", err)
	}
	if b := balanceOf(t, s, to.ID); b != 5_00 {
		t.Fatalf("bob holds %s, want 5.00", b)
	}
}
