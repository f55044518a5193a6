package bank

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// requestFixture is two customers with an account each, on a fixed clock.
type requestFixture struct {
	s          *Service
	clock      *fixedClock
	alice, bob Actor
	aliceAcc   Account
	bobAcc     Account
}

func newRequestFixture(t *testing.T, aliceBalance, bobBalance string) requestFixture {
	t.Helper()
	s := newService(t)
	f := requestFixture{s: s, clock: fixClock(s, time.Now().UTC().Truncate(time.Second))}
	f.alice = newCustomer(t, s, "Alice Smith")
	f.bob = newCustomer(t, s, "Bob Jones")
	f.aliceAcc = openAccount(t, s, f.alice, aliceBalance)
	f.bobAcc = openAccount(t, s, f.bob, bobBalance)
	return f
}

// aliceAsksBob creates a request from Alice to be paid by Bob's account.
func (f requestFixture) aliceAsksBob(t *testing.T, amount string) MoneyRequest {
	t.Helper()
	r, err := f.s.CreateMoneyRequest(ctx, f.alice, MoneyRequestInput{RequesterID: f.aliceAcc.AccountNumber, RecipientID: f.bobAcc.AccountNumber, Amount: amt(t, amount), Description: "Dinner"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func requestStatus(t testing.TB, s *Service, id int64) string {
	t.Helper()
	var st string
	if err := s.db.Get(&st, `SELECT status FROM money_requests WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestMoneyRequestCreateAndList(t *testing.T) {
	t.Parallel()
	f := newRequestFixture(t, "10.00", "100.00")
	s := f.s
	uid := f.alice.UserID
	r, err := s.CreateMoneyRequest(ctx, f.alice, MoneyRequestInput{RequesterID: f.aliceAcc.AccountNumber, RecipientID: f.bobAcc.AccountNumber,
		Amount: amt(t, "12.50"), Description: "Dinner", UserID: &uid})
	if err != nil {
		t.Fatal(err)
	}
	now := f.clock.now()
	if r.ID == 0 || r.Amount != 1250 || r.RequesterID != f.aliceAcc.AccountNumber || r.RecipientID != f.bobAcc.AccountNumber ||
		r.Status != "PENDING" || r.Direction != "outgoing" || r.Description != "Dinner" ||
		!r.RequesteAt.Equal(now) || !r.ExpiresAt.Equal(now.Add(time.Hour)) {
		t.Fatalf("request %+v (now %v)", r, now)
	}
	b, _ := json.Marshal(r)
	var keys map[string]any
	json.Unmarshal(b, &keys)
	for _, k := range []string{"ID", "Amount", "requester_id", "recipient_id", "Status", "RequesteAt", "ExpiresAt", "description", "direction"} {
		if _, ok := keys[k]; !ok {
			t.Fatalf("JSON %s lacks %q", b, k)
		}
	}
	want := "Alice Smith requested $12.50 from your account " + f.bobAcc.AccountNumber
	if m := messagesOf(t, s, f.bob.UserID); len(m) != 1 || m[0] != want {
		t.Fatalf("bob's notifications %q; want %q", m, want)
	}
	if n := auditCount(t, s, "REQUEST_CREATE"); n != 1 {
		t.Fatalf("%d REQUEST_CREATE audit rows", n)
	}

	// Bob asks Alice back: both appear in both lists, newest first, with direction.
	back, err := s.CreateMoneyRequest(ctx, f.bob, MoneyRequestInput{RequesterID: f.bobAcc.AccountNumber, RecipientID: f.aliceAcc.AccountNumber, Amount: 100})
	if err != nil {
		t.Fatal(err)
	}
	mine, err := s.ListMoneyRequests(ctx, f.alice, &uid)
	if err != nil {
		t.Fatal(err)
	}
	if len(mine) != 2 || mine[0].ID != back.ID || mine[0].Direction != "incoming" || mine[1].ID != r.ID || mine[1].Direction != "outgoing" {
		t.Fatalf("alice's list %+v", mine)
	}
	theirs, err := s.ListMoneyRequests(ctx, f.bob, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(theirs) != 2 || theirs[0].Direction != "outgoing" || theirs[1].Direction != "incoming" {
		t.Fatalf("bob's list %+v", theirs)
	}
	// A third customer sees none of them.
	carol := newCustomer(t, s, "Carol King")
	if l, err := s.ListMoneyRequests(ctx, carol, nil); err != nil || len(l) != 0 {
		t.Fatalf("carol's list %+v %v", l, err)
	}
	other := f.bob.UserID
	_, err = s.ListMoneyRequests(ctx, f.alice, &other)
	wantKind(t, err, errs.Forbidden, "")

	admin := newAdmin(t, s)
	all, err := s.AdminMoneyRequests(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].ID != back.ID || all[0].Direction != "" {
		t.Fatalf("admin list %+v", all)
	}
	if b, _ := json.Marshal(all[0]); strings.Contains(string(b), "direction") {
		t.Fatalf("admin JSON has a direction: %s", b)
	}
	_, err = s.AdminMoneyRequests(ctx, f.alice)
	wantKind(t, err, errs.Forbidden, "")
	_, err = s.ListMoneyRequests(ctx, admin, nil)
	wantKind(t, err, errs.Forbidden, "")
}

func TestMoneyRequestCreateRefusals(t *testing.T) {
	t.Parallel()
	f := newRequestFixture(t, "10.00", "100.00")
	s := f.s
	aliceSavings := openTyped(t, s, f.alice, "0", 2)
	bobEuro := openTyped(t, s, f.bob, "0", 3)
	bobClosed := openAccount(t, s, f.bob, "0")
	if err := s.CloseAccount(ctx, f.bob, bobClosed.ID); err != nil {
		t.Fatal(err)
	}
	admin := newAdmin(t, s)
	other := f.bob.UserID
	in := func(requester, recipient string) MoneyRequestInput {
		return MoneyRequestInput{RequesterID: requester, RecipientID: recipient, Amount: 500}
	}
	a, b := f.aliceAcc.AccountNumber, f.bobAcc.AccountNumber
	cases := []struct {
		name  string
		actor Actor
		in    MoneyRequestInput
		kind  errs.Kind
		code  string
	}{
		{"zero amount", f.alice, MoneyRequestInput{RequesterID: a, RecipientID: b}, errs.Invalid, "invalid_input"},
		{"long description", f.alice, MoneyRequestInput{RequesterID: a, RecipientID: b, Amount: 1, Description: strings.Repeat("d", 256)}, errs.Invalid, "invalid_input"},
		{"no recipient", f.alice, in(a, ""), errs.Invalid, "invalid_input"},
		{"someone else's user_id", f.alice, MoneyRequestInput{RequesterID: a, RecipientID: b, Amount: 1, UserID: &other}, errs.Forbidden, ""},
		{"an admin", admin, in(a, b), errs.Forbidden, "customer_only"},
		{"into another customer's account", f.alice, in(b, a), errs.NotFound, "account_not_found"},
		{"unknown recipient", f.alice, in(a, "NOSUCH000"), errs.NotFound, "account_not_found"},
		{"closed recipient", f.alice, in(a, bobClosed.AccountNumber), errs.NotFound, "account_not_found"},
		{"same account", f.alice, in(a, a), errs.Unprocessable, "same_account"},
		{"from one's own other account", f.alice, in(a, aliceSavings.AccountNumber), errs.Unprocessable, "own_account"},
		{"different currencies", f.alice, in(a, bobEuro.AccountNumber), errs.Unprocessable, "currency_mismatch"},
	}
	before := stateOf(t, s)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.CreateMoneyRequest(ctx, c.actor, c.in)
			wantKind(t, err, c.kind, c.code)
			wantUnchanged(t, s, before)
		})
	}
}

func TestAcceptMoneyRequest(t *testing.T) {
	t.Parallel()
	f := newRequestFixture(t, "10.00", "100.00")
	s := f.s
	r := f.aliceAsksBob(t, "12.50")
	res, err := s.AcceptMoneyRequest(ctx, f.bob, r.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	got := res.Request
	if got.Status != "ACCEPTED" || got.ID != r.ID || got.Direction != "incoming" {
		t.Fatalf("accepted %+v", got)
	}
	if requestStatus(t, s, r.ID) != "ACCEPTED" {
		t.Fatal("status not stored")
	}
	if b := balanceOf(t, s, f.bobAcc.ID); b != amt(t, "87.50") {
		t.Fatalf("payer balance %s", b)
	}
	if b := balanceOf(t, s, f.aliceAcc.ID); b != amt(t, "22.50") {
		t.Fatalf("requester balance %s", b)
	}
	var rows []struct {
		Account int64  `db:"account_id"`
		Type    string `db:"transaction_type"`
		From    int64  `db:"from_account_id"`
		To      int64  `db:"to_account_id"`
	}
	if err := s.db.Select(&rows, `SELECT account_id, transaction_type, from_account_id, to_account_id FROM transactions WHERE kind = 'request' ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Account != f.bobAcc.ID || rows[0].Type != "DEBIT" || rows[1].Account != f.aliceAcc.ID || rows[1].Type != "CREDIT" ||
		rows[0].From != f.bobAcc.ID || rows[0].To != f.aliceAcc.ID || rows[1].From != f.bobAcc.ID {
		t.Fatalf("ledger rows %+v", rows)
	}
	for _, id := range []int64{f.aliceAcc.ID, f.bobAcc.ID} {
		if balanceOf(t, s, id) != ledgerSum(t, s, id) {
			t.Fatalf("account %d: balance differs from its ledger", id)
		}
	}
	m := messagesOf(t, s, f.alice.UserID)
	if len(m) != 1 || !strings.Contains(m[0], "request") || !strings.Contains(m[0], "accepted") || !strings.Contains(m[0], "$12.50") {
		t.Fatalf("alice's notifications %q", m)
	}
	if n := auditCount(t, s, "REQUEST_ACCEPT"); n != 1 {
		t.Fatalf("%d REQUEST_ACCEPT rows", n)
	}
	// Answered: no second answer.
	before := stateOf(t, s)
	_, err = s.AcceptMoneyRequest(ctx, f.bob, r.ID, "")
	wantKind(t, err, errs.Conflict, "request_not_pending")
	if errs.As(err).Message != "This request is no longer pending" {
		t.Fatalf("message %q", errs.As(err).Message)
	}
	_, err = s.DeclineMoneyRequest(ctx, f.bob, r.ID)
	wantKind(t, err, errs.Conflict, "request_not_pending")
	wantUnchanged(t, s, before)
}

func TestAcceptMoneyRequestInsufficientFunds(t *testing.T) {
	t.Parallel()
	f := newRequestFixture(t, "10.00", "20.00")
	s := f.s
	r := f.aliceAsksBob(t, "20.01")
	before := stateOf(t, s)
	_, err := s.AcceptMoneyRequest(ctx, f.bob, r.ID, "")
	wantKind(t, err, errs.Unprocessable, "insufficient_funds")
	if errs.As(err).Message != "Insufficient funds" {
		t.Fatalf("message %q", errs.As(err).Message)
	}
	wantUnchanged(t, s, before)
	if requestStatus(t, s, r.ID) != "PENDING" {
		t.Fatal("request left PENDING")
	}
	// Still answerable.
	if _, err := s.DeclineMoneyRequest(ctx, f.bob, r.ID); err != nil {
		t.Fatal(err)
	}
}

// A payer deactivated after signing in cannot accept: post_batch, the one
// rule of every posting, reads the payer's state after locking the
// accounts, whatever the actor the caller still holds (a session cached
// until the revocation reaches it). Nothing moves; the request stays
// PENDING.
func TestAcceptRefusesDeactivatedPayer(t *testing.T) {
	t.Parallel()
	f := newRequestFixture(t, "10.00", "100.00")
	s := f.s
	r := f.aliceAsksBob(t, "12.50")
	if _, err := s.SetUserActive(ctx, CLIActor, f.bob.UserID, false); err != nil {
		t.Fatal(err)
	}
	before := stateOf(t, s)
	_, err := s.AcceptMoneyRequest(ctx, f.bob, r.ID, "")
	wantKind(t, err, errs.Unauthorized, "user_deactivated")
	wantUnchanged(t, s, before)
	if requestStatus(t, s, r.ID) != RequestPending {
		t.Fatal("the request is no longer PENDING")
	}
}

// Accepting under an Idempotency-Key: the same key answers the first
// acceptance again (Replayed, byte for byte) and pays nothing twice; the key
// used for another request, or another kind of posting, is refused 409.
func TestAcceptMoneyRequestIdempotency(t *testing.T) {
	t.Parallel()
	f := newRequestFixture(t, "10.00", "100.00")
	s := f.s
	r, other := f.aliceAsksBob(t, "12.50"), f.aliceAsksBob(t, "1.00")
	first, err := s.AcceptMoneyRequest(ctx, f.bob, r.ID, "accept-1")
	if err != nil || first.Replayed || first.Key != "accept-1" || first.Request.Status != RequestAccepted {
		t.Fatalf("first %+v %v", first, err)
	}
	again, err := s.AcceptMoneyRequest(ctx, f.bob, r.ID, "accept-1")
	if err != nil || !again.Replayed || string(again.Body) != string(first.Body) {
		t.Fatalf("again %+v %v", again, err)
	}
	_, err = s.AcceptMoneyRequest(ctx, f.bob, other.ID, "accept-1")
	wantKind(t, err, errs.Conflict, "idempotency_key_reused")
	_, err = s.Transfer(ctx, f.bob, TransferInput{AccountID: f.bobAcc.AccountNumber, ToAccountID: f.aliceAcc.AccountNumber, Amount: 100}, "accept-1")
	wantKind(t, err, errs.Conflict, "idempotency_key_reused")
	// Without the key, accepting again is the request's own rule: 409.
	_, err = s.AcceptMoneyRequest(ctx, f.bob, r.ID, "")
	wantKind(t, err, errs.Conflict, "request_not_pending")
	if b := balanceOf(t, s, f.bobAcc.ID); b != 87_50 {
		t.Fatalf("bob holds %s, want 87.50: paid once", b)
	}
}

func TestDeclineMoneyRequest(t *testing.T) {
	t.Parallel()
	f := newRequestFixture(t, "10.00", "100.00")
	s := f.s
	r := f.aliceAsksBob(t, "12.50")
	balances := stateOf(t, s).Balances
	got, err := s.DeclineMoneyRequest(ctx, f.bob, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != "REJECTED" || requestStatus(t, s, r.ID) != "REJECTED" {
		t.Fatalf("declined %+v", got)
	}
	if stateOf(t, s).Balances != balances {
		t.Fatal("a decline moved money")
	}
	m := messagesOf(t, s, f.alice.UserID)
	if len(m) != 1 || !strings.Contains(m[0], "request") || !strings.Contains(m[0], "declined") {
		t.Fatalf("alice's notifications %q", m)
	}
	if n := auditCount(t, s, "REQUEST_DECLINE"); n != 1 {
		t.Fatalf("%d REQUEST_DECLINE rows", n)
	}
	_, err = s.AcceptMoneyRequest(ctx, f.bob, r.ID, "")
	wantKind(t, err, errs.Conflict, "request_not_pending")
}

// Only the holder of the paying account may answer; anyone else gets 404,
// exactly as for a missing request.
func TestMoneyRequestOnlyRecipientAnswers(t *testing.T) {
	t.Parallel()
	f := newRequestFixture(t, "10.00", "100.00")
	s := f.s
	r := f.aliceAsksBob(t, "12.50")
	carol := newCustomer(t, s, "Carol King")
	admin := newAdmin(t, s)
	before := stateOf(t, s)
	for _, who := range []Actor{f.alice, carol} {
		_, err := s.AcceptMoneyRequest(ctx, who, r.ID, "")
		wantKind(t, err, errs.NotFound, "request_not_found")
		_, err = s.DeclineMoneyRequest(ctx, who, r.ID)
		wantKind(t, err, errs.NotFound, "request_not_found")
	}
	_, err := s.AcceptMoneyRequest(ctx, f.bob, r.ID+1000, "")
	wantKind(t, err, errs.NotFound, "request_not_found")
	_, err = s.AcceptMoneyRequest(ctx, admin, r.ID, "")
	wantKind(t, err, errs.Forbidden, "")
	wantUnchanged(t, s, before)
}

func TestMoneyRequestExpiry(t *testing.T) {
	t.Parallel()
	f := newRequestFixture(t, "10.00", "100.00")
	s := f.s
	old := f.aliceAsksBob(t, "1.00")
	f.clock.add(30 * time.Minute)
	fresh := f.aliceAsksBob(t, "2.00")
	f.clock.add(31 * time.Minute) // old is past its hour; fresh is not
	// Accepting reads the database's clock, which the test cannot move on:
	// old's hour is made to end a minute ago.
	if _, err := s.db.Exec(`UPDATE money_requests SET expires_at = now() - interval '1 minute' WHERE id = $1`, old.ID); err != nil {
		t.Fatal(err)
	}

	// Past its time but not yet swept: shown EXPIRED, and it cannot be answered.
	l, err := s.ListMoneyRequests(ctx, f.bob, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(l) != 2 || l[0].ID != fresh.ID || l[0].Status != "PENDING" || l[1].Status != "EXPIRED" {
		t.Fatalf("list %+v", l)
	}
	before := stateOf(t, s)
	_, err = s.AcceptMoneyRequest(ctx, f.bob, old.ID, "")
	wantKind(t, err, errs.Conflict, "request_not_pending")
	_, err = s.DeclineMoneyRequest(ctx, f.bob, old.ID)
	wantKind(t, err, errs.Conflict, "request_not_pending")
	wantUnchanged(t, s, before)

	n, err := s.ExpireMoneyRequests(ctx)
	if err != nil || n != 1 {
		t.Fatalf("expired %d, %v; want 1", n, err)
	}
	if requestStatus(t, s, old.ID) != "EXPIRED" || requestStatus(t, s, fresh.ID) != "PENDING" {
		t.Fatal("wrong statuses after the sweep")
	}
	m := messagesOf(t, s, f.alice.UserID)
	if len(m) != 1 || !strings.Contains(m[0], "request") || !strings.Contains(m[0], "expired") {
		t.Fatalf("alice's notifications %q", m)
	}
	var actor *int64
	if err := s.db.Get(&actor, `SELECT actor_user_id FROM audit_log WHERE action_type = 'REQUEST_EXPIRE'`); err != nil || actor != nil {
		t.Fatalf("REQUEST_EXPIRE audit: actor %v, %v", actor, err)
	}
	if n, err := s.ExpireMoneyRequests(ctx); err != nil || n != 0 {
		t.Fatalf("second sweep expired %d, %v", n, err)
	}
	// Many at once: batches until done.
	for range expiryBatch + 5 {
		f.aliceAsksBob(t, "0.01")
	}
	f.clock.add(2 * time.Hour)
	if n, err := s.ExpireMoneyRequests(ctx); err != nil || n != expiryBatch+5+1 {
		t.Fatalf("big sweep expired %d, %v", n, err)
	}
	var pending int
	s.db.Get(&pending, `SELECT count(*) FROM money_requests WHERE status = 'PENDING'`)
	if pending != 0 {
		t.Fatalf("%d still pending", pending)
	}
}

// An accept racing the expiry job: exactly one wins, every time.
func TestMoneyRequestAcceptRacesExpiry(t *testing.T) {
	t.Parallel()
	f := newRequestFixture(t, "0", "1000.00")
	s := f.s
	// A second instance on the same database whose clock is past the expiry;
	// the accepting instance's clock is not.
	sweeper := New(s.db, s.tokens, s.settings)
	sweeper.SetClock(func() time.Time { return f.clock.now().Add(2 * time.Hour) })
	accepted, expired := 0, 0
	for i := range 20 {
		r := f.aliceAsksBob(t, "1.00")
		var (
			wg     sync.WaitGroup
			acc    error
			n      int
			expErr error
		)
		wg.Add(2)
		go func() { defer wg.Done(); _, acc = s.AcceptMoneyRequest(ctx, f.bob, r.ID, "") }()
		go func() { defer wg.Done(); n, expErr = sweeper.ExpireMoneyRequests(ctx) }()
		wg.Wait()
		if expErr != nil {
			t.Fatal(expErr)
		}
		st := requestStatus(t, s, r.ID)
		switch {
		case acc == nil && n == 0 && st == "ACCEPTED":
			accepted++
		case acc != nil && n == 1 && st == "EXPIRED":
			wantKind(t, acc, errs.Conflict, "request_not_pending")
			expired++
		default:
			t.Fatalf("round %d: accept %v, expired %d, status %s", i, acc, n, st)
		}
	}
	if b := balanceOf(t, s, f.aliceAcc.ID); b != money.Amount(accepted*100) {
		t.Fatalf("alice got %s for %d accepted requests", b, accepted)
	}
	for _, id := range []int64{f.aliceAcc.ID, f.bobAcc.ID} {
		if balanceOf(t, s, id) != ledgerSum(t, s, id) {
			t.Fatalf("account %d: balance differs from its ledger", id)
		}
	}
	t.Logf("accepted %d, expired %d", accepted, expired)
}

// Two (or eight) accepts of one request racing: exactly one pays. Then
// accepts racing declines: exactly one answer wins.
func TestMoneyRequestTwoAcceptsRace(t *testing.T) {
	t.Parallel()
	f := newRequestFixture(t, "0", "1000.00")
	s := f.s
	race := func(r MoneyRequest, mixed bool) string {
		const n = 8
		var wg sync.WaitGroup
		out := make([]error, n)
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if mixed && i%2 == 1 {
					_, out[i] = s.DeclineMoneyRequest(ctx, f.bob, r.ID)
				} else {
					_, out[i] = s.AcceptMoneyRequest(ctx, f.bob, r.ID, "")
				}
			}()
		}
		close(start)
		wg.Wait()
		wins := 0
		for _, err := range out {
			if err == nil {
				wins++
				continue
			}
			wantKind(t, err, errs.Conflict, "request_not_pending")
		}
		if wins != 1 {
			t.Fatalf("%d answers won; want 1", wins)
		}
		return requestStatus(t, s, r.ID)
	}
	if st := race(f.aliceAsksBob(t, "5.00"), false); st != "ACCEPTED" {
		t.Fatalf("status %s", st)
	}
	if b := balanceOf(t, s, f.aliceAcc.ID); b != amt(t, "5.00") {
		t.Fatalf("alice has %s after one accepted request of 5.00", b)
	}
	want := amt(t, "5.00")
	if race(f.aliceAsksBob(t, "3.00"), true) == "ACCEPTED" {
		want = amt(t, "8.00")
	}
	if b := balanceOf(t, s, f.aliceAcc.ID); b != want {
		t.Fatalf("alice has %s; want %s", b, want)
	}
	if c := auditCount(t, s, "REQUEST_ACCEPT") + auditCount(t, s, "REQUEST_DECLINE"); c != 2 {
		t.Fatalf("%d answer audit rows; want 2", c)
	}
	for _, id := range []int64{f.aliceAcc.ID, f.bobAcc.ID} {
		if balanceOf(t, s, id) != ledgerSum(t, s, id) {
			t.Fatalf("account %d: balance differs from its ledger", id)
		}
	}
}

// RunExpiry sweeps on its ticker and stops with its context.
func TestRunExpiry(t *testing.T) {
	t.Parallel()
	f := newRequestFixture(t, "10.00", "100.00")
	r := f.aliceAsksBob(t, "1.00")
	f.clock.add(2 * time.Hour)
	run, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		f.s.RunExpiry(run, 20*time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
		close(done)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for requestStatus(t, f.s, r.ID) != "EXPIRED" {
		if time.Now().After(deadline) {
			t.Fatal("RunExpiry did not expire the request")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("RunExpiry did not stop with its context")
	}
}
