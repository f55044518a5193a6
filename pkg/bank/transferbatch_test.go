package bank

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// queued builds a transfer as Transfer would queue it, after its checks.
func queued(t *testing.T, s *Service, a Actor, from, to string, amount money.Amount, key string) *queuedTransfer {
	t.Helper()
	call, err := s.checkTransfer(ctx, a, TransferInput{AccountID: from, ToAccountID: to, Amount: amount}, key)
	if err != nil {
		t.Fatal(err)
	}
	return &queuedTransfer{ctx: ctx, call: call, done: make(chan transferAnswer, 1)}
}

// answers waits for each transfer's answer, in order.
func answers(ts []*queuedTransfer) []transferAnswer {
	out := make([]transferAnswer, len(ts))
	for i, t := range ts {
		out[i] = <-t.done
	}
	return out
}

// One batch, every answer to its own caller: the entries run in the order
// of their senders' ids, not in the batch's, so a mix-up of answers would
// show. Each refusal is the one transfer_money gives alone, and gives its
// Idempotency-Key back.
func TestTransferBatchAnswersEachCaller(t *testing.T) {
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

	batch := []*queuedTransfer{
		queued(t, s, late, lateAcc.AccountNumber, bobAcc.AccountNumber, 60_00, "late-1"),    // ok: 100 -> 40
		queued(t, s, early, earlyAcc.AccountNumber, bobAcc.AccountNumber, 80_00, "early-1"), // insufficient: 50
		queued(t, s, late, lateAcc.AccountNumber, bobAcc.AccountNumber, 60_00, "late-2"),    // insufficient: 40 left
		queued(t, s, early, earlyAcc.AccountNumber, closed.AccountNumber, 1_00, ""),         // closed
		queued(t, s, early, earlyAcc.AccountNumber, "NOSUCH0001", 1_00, ""),                 // not found
		queued(t, s, early, earlyAcc.AccountNumber, bobAcc.AccountNumber, 50_00, ""),        // ok: 50 -> 0
	}
	s.transfers.run(batch)
	got := answers(batch)

	if got[0].err != nil || got[0].out.Transaction.Amount != 60_00 || got[0].out.Transaction.AccountID != lateAcc.AccountNumber {
		t.Fatalf("entry 1: %+v", got[0])
	}
	if got[5].err != nil || got[5].out.Transaction.Amount != 50_00 || got[5].out.Transaction.AccountID != earlyAcc.AccountNumber {
		t.Fatalf("entry 6: %+v", got[5])
	}
	for i, want := range map[int]string{1: "insufficient_funds", 2: "insufficient_funds", 3: "account_closed", 4: "account_not_found"} {
		var e *errs.Error
		if !errors.As(got[i].err, &e) || e.Code != want {
			t.Fatalf("entry %d: %v, want %s", i+1, got[i].err, want)
		}
	}
	if st := s.TransferBatchStats(); st.Batches != 1 || st.Transfers != 6 || st.Largest != 6 || st.Fallbacks != 0 {
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
func TestTransferBatchOneBadEntry(t *testing.T) {
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
	batch := []*queuedTransfer{
		queued(t, s, alice, from.AccountNumber, to.AccountNumber, 10_00, "k1"),
		queued(t, s, alice, from.AccountNumber, to.AccountNumber, 13_13, "k2"),
		queued(t, s, alice, from.AccountNumber, to.AccountNumber, 20_00, ""),
	}
	s.transfers.run(batch)
	got := answers(batch)
	if got[0].err != nil || got[2].err != nil {
		t.Fatalf("the good entries: %v, %v", got[0].err, got[2].err)
	}
	var e *errs.Error
	if got[1].err == nil || (errors.As(got[1].err, &e) && e.Kind != errs.Internal) {
		t.Fatalf("the poisoned entry: %v, want an internal error", got[1].err)
	}
	if st := s.TransferBatchStats(); st.Fallbacks != 1 {
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

// Two transfers under one caller's Idempotency-Key never share a batch: the
// second waits for the next, where it replays the first's answer. A
// transfer whose caller gave up while it was queued is dropped unsent.
func TestTransferBatchTake(t *testing.T) {
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

	q := s.transfers
	q.mu.Lock()
	q.queue = []*queuedTransfer{first, second, gone, other}
	q.running = 1
	q.mu.Unlock()
	b1 := q.take()
	if len(b1) != 2 || b1[0] != first || b1[1] != other {
		t.Fatalf("first batch %v, want first and bob's", b1)
	}
	if a := <-gone.done; !errors.Is(a.err, context.Canceled) {
		t.Fatalf("the cancelled transfer: %v", a.err)
	}
	q.run(b1)
	b2 := q.take()
	if len(b2) != 1 || b2[0] != second {
		t.Fatalf("second batch %v, want the second under the key", b2)
	}
	q.run(b2)
	if q.take() != nil || q.running != 0 {
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

// Many customers sending at once, crossing pairs, overdrafts and replays:
// the transfers go in batches (the largest carries more than one), no batch
// deadlocks into the one-by-one path, every answered transfer is in the
// ledger once, and money is neither made nor lost.
func TestTransferBatchesUnderConcurrency(t *testing.T) {
	t.Parallel()
	s := newService(t)
	s.transfers.workers = 3 // batches that share accounts run at the same time
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
				var e *errs.Error
				switch {
				case err == nil && res.Replayed:
					replays++
				case err == nil:
					ok++
					ids[res.Transaction.ID]++
				case errors.As(err, &e) && (e.Code == "insufficient_funds" || e.Code == "idempotency_key_reused"):
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
	st := s.TransferBatchStats()
	t.Logf("%d ok, %d refused, %d replays; batches %+v", ok, refused, replays, st)
	if st.Largest < 2 {
		t.Fatalf("no batch carried more than one transfer (%+v): the test did not exercise batches", st)
	}
	if st.Fallbacks != 0 {
		t.Fatalf("%d batches failed whole (a deadlock?)", st.Fallbacks)
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
func TestTransferKeyRaceAcrossInstances(t *testing.T) {
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
				var e *errs.Error
				switch {
				case err == nil && res.Replayed:
					replays++
				case err == nil:
					fresh++
				case errors.As(err, &e) && e.Code == "idempotency_key_reused":
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

// A batch waits for a lock no longer than its most pressed caller's
// deadline allows: past it the batch rolls back, the caller out of time gets
// its deadline error, and the others go through alone, all within about the
// deadline, not when the lock is let go (contract §5, deadlines).
func TestTransferBatchHonoursDeadlines(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice, bob := newCustomer(t, s, "Alice Hurry"), newCustomer(t, s, "Bob Hurry")
	busy, free := openAccount(t, s, alice, "100.00"), openAccount(t, s, alice, "100.00")
	to := openAccount(t, s, bob, "0")

	tx, err := s.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, busy.ID); err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		time.Sleep(5 * time.Second)
		tx.Rollback()
		close(released)
	}()
	t.Cleanup(func() { <-released })

	hurried := queued(t, s, alice, busy.AccountNumber, to.AccountNumber, 1_00, "")
	dl, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	hurried.ctx = dl
	patient := queued(t, s, alice, free.AccountNumber, to.AccountNumber, 2_00, "")
	start := time.Now()
	go s.transfers.run([]*queuedTransfer{hurried, patient})

	a := <-patient.done
	if a.err != nil || time.Since(start) > 2*time.Second {
		t.Fatalf("the other transfer: %v after %s; want it through well before the lock is let go", a.err, time.Since(start))
	}
	if a := <-hurried.done; !errors.Is(a.err, context.DeadlineExceeded) {
		t.Fatalf("the transfer out of time: %v, want its deadline", a.err)
	}
	if st := s.TransferBatchStats(); st.Fallbacks != 1 {
		t.Fatalf("stats %+v: want the batch to fail whole once", st)
	}
	<-released
	if b := balanceOf(t, s, busy.ID); b != 100_00 {
		t.Fatalf("the locked account holds %s: the timed-out transfer moved money", b)
	}
}
