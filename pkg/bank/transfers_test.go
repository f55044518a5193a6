package bank

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// Helpers of the money tests (transfers, requests, history, dashboards).

// amt parses an amount such as "12.50".
func amt(t testing.TB, v string) money.Amount {
	t.Helper()
	a, err := money.Parse(v)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// openTyped opens an account of the given type (1 Checking USD, 2 Savings USD, 3 Euro Savings EUR).
func openTyped(t testing.TB, s *Service, a Actor, balance string, typeID int) Account {
	t.Helper()
	acc, err := s.CreateAccount(ctx, a, AccountInput{AccountNumber: fmt.Sprintf("ACC%07d", accountSeq.Add(1)), Balance: amt(t, balance), AccountTypeID: typeID})
	if err != nil {
		t.Fatalf("open account: %v", err)
	}
	return acc
}

// moneyState is everything a refused money operation must leave unchanged.
type moneyState struct {
	Balances                      string
	Ledger, Notes, Audit, Reqs    int
	RequestStatuses, IdempotentKs string
}

func stateOf(t testing.TB, s *Service) moneyState {
	t.Helper()
	var st moneyState
	err := s.db.Get(&st.Balances, `SELECT COALESCE(string_agg(id || ':' || balance, ',' ORDER BY id), '') FROM accounts`)
	if err == nil {
		err = s.db.Get(&st.Ledger, `SELECT count(*) FROM transactions`)
	}
	if err == nil {
		err = s.db.Get(&st.Notes, `SELECT count(*) FROM notifications`)
	}
	if err == nil {
		err = s.db.Get(&st.Audit, `SELECT count(*) FROM audit_log WHERE action_type NOT IN ('LOGIN', 'LOGIN_FAILED')`)
	}
	if err == nil {
		err = s.db.Get(&st.Reqs, `SELECT count(*) FROM money_requests`)
	}
	if err == nil {
		err = s.db.Get(&st.RequestStatuses, `SELECT COALESCE(string_agg(id || ':' || status, ',' ORDER BY id), '') FROM money_requests`)
	}
	if err == nil {
		err = s.db.Get(&st.IdempotentKs, `SELECT COALESCE(string_agg(key, ',' ORDER BY key), '') FROM idempotency_keys`)
	}
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// wantUnchanged fails if the money state moved since before.
func wantUnchanged(t testing.TB, s *Service, before moneyState) {
	t.Helper()
	if after := stateOf(t, s); after != before {
		t.Fatalf("state changed:\n before %+v\n after  %+v", before, after)
	}
}

// messagesOf returns a user's notification messages, newest first.
func messagesOf(t testing.TB, s *Service, userID int64) []string {
	t.Helper()
	var out []string
	if err := s.db.Select(&out, `SELECT message FROM notifications WHERE user_id = $1 ORDER BY id DESC`, userID); err != nil {
		t.Fatal(err)
	}
	return out
}

// fixedClock is a settable clock for Service.SetClock.
type fixedClock struct {
	mu sync.Mutex
	t  time.Time
}

func fixClock(s *Service, t time.Time) *fixedClock {
	c := &fixedClock{t: t}
	s.SetClock(c.now)
	return c
}

func (c *fixedClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fixedClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestTransferHappyPath(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice := newCustomer(t, s, "Alice Smith")
	bob := newCustomer(t, s, "Bob Jones")
	from := openAccount(t, s, alice, "100.00")
	to := openAccount(t, s, bob, "10.00")

	uid := alice.UserID
	res, err := s.Transfer(ctx, alice, TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: amt(t, "12.50"), Description: " Lunch ", UserID: &uid}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Body) == 0 || res.Replayed {
		t.Fatalf("body %s replayed %v", res.Body, res.Replayed)
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(res.Body, &body); err != nil {
		t.Fatal(err)
	}
	if string(body["message"]) != `"Transfer successful"` {
		t.Fatalf("message %s", body["message"])
	}
	var tx map[string]any
	if err := json.Unmarshal(body["transaction"], &tx); err != nil {
		t.Fatal(err)
	}
	if tx["transaction_type"] != "DEBIT" || tx["amount"] != 12.5 || tx["account_id"] != from.AccountNumber ||
		tx["to_account_id"] != to.AccountNumber || tx["description"] != "Lunch" || tx["id"] == nil {
		t.Fatalf("transaction %v", tx)
	}
	if ts, _ := tx["transaction_date"].(string); !strings.HasSuffix(ts, "Z") {
		t.Fatalf("transaction_date %q is not UTC RFC 3339", ts)
	}
	if res.Transaction.ID == 0 || res.Transaction.Amount != 1250 {
		t.Fatalf("result transaction %+v", res.Transaction)
	}

	if b := balanceOf(t, s, from.ID); b != amt(t, "87.50") {
		t.Fatalf("sender balance %s", b)
	}
	if b := balanceOf(t, s, to.ID); b != amt(t, "22.50") {
		t.Fatalf("recipient balance %s", b)
	}
	for _, id := range []int64{from.ID, to.ID} {
		if balanceOf(t, s, id) != ledgerSum(t, s, id) {
			t.Fatalf("account %d: balance differs from its ledger", id)
		}
	}
	var rows []struct {
		Account int64  `db:"account_id"`
		User    int64  `db:"user_id"`
		Type    string `db:"transaction_type"`
		Kind    string `db:"kind"`
		Amount  string `db:"amount"`
		From    int64  `db:"from_account_id"`
		To      int64  `db:"to_account_id"`
		Desc    string `db:"description"`
	}
	if err := s.db.Select(&rows, `SELECT account_id, user_id, transaction_type, kind, amount, from_account_id, to_account_id, description
		FROM transactions WHERE kind = 'transfer' ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("ledger rows %+v", rows)
	}
	d, c := rows[0], rows[1]
	if d.Account != from.ID || d.User != alice.UserID || d.Type != "DEBIT" || d.Amount != "12.50" || d.From != from.ID || d.To != to.ID || d.Desc != "Lunch" {
		t.Fatalf("debit row %+v", d)
	}
	if c.Account != to.ID || c.User != bob.UserID || c.Type != "CREDIT" || c.Amount != "12.50" || c.From != from.ID || c.To != to.ID {
		t.Fatalf("credit row %+v", c)
	}
	want := "You received $12.50 from account " + from.AccountNumber
	if m := messagesOf(t, s, bob.UserID); len(m) != 1 || m[0] != want {
		t.Fatalf("bob's notifications %q; want %q", m, want)
	}
	if m := messagesOf(t, s, alice.UserID); len(m) != 0 {
		t.Fatalf("alice's notifications %q", m)
	}
	var audit struct {
		Actor   *int64 `db:"actor_user_id"`
		Account string `db:"account_number"`
		Desc    string `db:"description"`
	}
	if err := s.db.Get(&audit, `SELECT actor_user_id, account_number, description FROM audit_log WHERE action_type = 'TRANSFER'`); err != nil {
		t.Fatal(err)
	}
	if audit.Actor == nil || *audit.Actor != alice.UserID || audit.Account != from.AccountNumber || !strings.Contains(audit.Desc, "$12.50") {
		t.Fatalf("audit %+v", audit)
	}
	// The recipient sees the CREDIT row with the same account numbers.
	hist, _, err := s.History(ctx, bob, HistoryQuery{Type: "CREDIT"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 2 || hist[0].AccountID != from.AccountNumber || hist[0].ToAccountID != to.AccountNumber || hist[0].Amount != 1250 {
		t.Fatalf("bob's credits %+v", hist)
	}
}

func TestTransferRefusals(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice := newCustomer(t, s, "Alice Smith")
	bob := newCustomer(t, s, "Bob Jones")
	carol := newCustomer(t, s, "Carol King")
	admin := newAdmin(t, s)
	from := openAccount(t, s, alice, "100.00")
	aliceClosed := openAccount(t, s, alice, "0")
	to := openAccount(t, s, bob, "10.00")
	bobEuro := openTyped(t, s, bob, "10.00", 3)
	bobClosed := openAccount(t, s, bob, "0")
	carolAcc := openAccount(t, s, carol, "5.00")
	if err := s.CloseAccount(ctx, bob, bobClosed.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.CloseAccount(ctx, alice, aliceClosed.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetUserActive(ctx, admin, carol.UserID, false); err != nil {
		t.Fatal(err)
	}
	other := bob.UserID
	long := strings.Repeat("x", 256)
	ok := func(in TransferInput) TransferInput {
		if in.AccountID == "" {
			in.AccountID = from.AccountNumber
		}
		if in.ToAccountID == "" {
			in.ToAccountID = to.AccountNumber
		}
		if in.Amount == 0 {
			in.Amount = 100
		}
		return in
	}
	cases := []struct {
		name  string
		actor Actor
		in    TransferInput
		key   string
		kind  errs.Kind
		code  string
	}{
		{"zero amount", alice, TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber}, "", errs.Invalid, "invalid_input"},
		{"negative amount", alice, ok(TransferInput{Amount: -100}), "", errs.Invalid, "invalid_input"},
		{"over the maximum", alice, ok(TransferInput{Amount: money.DefaultMax + 1}), "", errs.Invalid, "invalid_input"},
		{"long description", alice, ok(TransferInput{Description: long}), "", errs.Invalid, "invalid_input"},
		{"no sender", alice, TransferInput{AccountID: " ", ToAccountID: to.AccountNumber, Amount: 100}, "", errs.Invalid, "invalid_input"},
		{"no recipient", alice, TransferInput{AccountID: from.AccountNumber, ToAccountID: " ", Amount: 100}, "", errs.Invalid, "invalid_input"},
		{"long idempotency key", alice, ok(TransferInput{}), strings.Repeat("k", 256), errs.Invalid, "invalid_input"},
		{"someone else's user_id", alice, ok(TransferInput{UserID: &other}), "", errs.Forbidden, ""},
		{"an admin", admin, ok(TransferInput{}), "", errs.Forbidden, "customer_only"},
		{"the CLI", CLIActor, ok(TransferInput{}), "", errs.Forbidden, "customer_only"},
		{"unknown sender", alice, ok(TransferInput{AccountID: "NOSUCH000"}), "", errs.NotFound, "account_not_found"},
		{"another customer's account", alice, ok(TransferInput{AccountID: to.AccountNumber, ToAccountID: from.AccountNumber}), "", errs.NotFound, "account_not_found"},
		{"closed sender", alice, ok(TransferInput{AccountID: aliceClosed.AccountNumber}), "", errs.NotFound, "account_not_found"},
		{"unknown recipient", alice, ok(TransferInput{ToAccountID: "NOSUCH000"}), "", errs.NotFound, "account_not_found"},
		{"same account", alice, ok(TransferInput{ToAccountID: from.AccountNumber}), "", errs.Unprocessable, "same_account"},
		{"different currencies", alice, ok(TransferInput{ToAccountID: bobEuro.AccountNumber}), "", errs.Unprocessable, "currency_mismatch"},
		{"closed recipient", alice, ok(TransferInput{ToAccountID: bobClosed.AccountNumber}), "", errs.Unprocessable, "account_closed"},
		{"deactivated recipient", alice, ok(TransferInput{ToAccountID: carolAcc.AccountNumber}), "", errs.Unprocessable, "recipient_inactive"},
		{"insufficient funds", alice, ok(TransferInput{Amount: amt(t, "100.01")}), "", errs.Unprocessable, "insufficient_funds"},
		{"insufficient funds with a key", alice, ok(TransferInput{Amount: amt(t, "100.01")}), "k1", errs.Unprocessable, "insufficient_funds"},
	}
	before := stateOf(t, s)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.Transfer(ctx, c.actor, c.in, c.key)
			wantKind(t, err, c.kind, c.code)
			if c.kind == errs.Unprocessable && c.code == "insufficient_funds" && errs.As(err).Message != "Insufficient funds" {
				t.Fatalf("message %q", errs.As(err).Message)
			}
			wantUnchanged(t, s, before)
		})
	}
	// A refused transfer leaves its Idempotency-Key free: the corrected
	// request under the same key goes through.
	if _, err := s.Transfer(ctx, alice, ok(TransferInput{Amount: amt(t, "100.00")}), "k1"); err != nil {
		t.Fatal(err)
	}
	if b := balanceOf(t, s, from.ID); b != 0 {
		t.Fatalf("balance %s", b)
	}
}

// The database's CHECK (balance >= 0) backs post_batch's funds check up,
// and its violation answers 422 Insufficient funds (backstop), never a 500.
func TestTransferCheckConstraintBackstop(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice := newCustomer(t, s, "Alice Smith")
	from := openAccount(t, s, alice, "5.00")
	before := stateOf(t, s)
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance - 10 WHERE id = $1`, from.ID)
		return backstop(err)
	})
	wantKind(t, err, errs.Unprocessable, "insufficient_funds")
	wantUnchanged(t, s, before)
}

// ageKeys moves every stored Idempotency-Key back by d, as if stored d
// earlier.
func ageKeys(t *testing.T, s *Service, d time.Duration) {
	t.Helper()
	if _, err := s.db.Exec(`UPDATE idempotency_keys SET created_at = created_at - $1::interval`, d.String()); err != nil {
		t.Fatal(err)
	}
}

func TestTransferIdempotency(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice := newCustomer(t, s, "Alice Smith")
	bob := newCustomer(t, s, "Bob Jones")
	from := openAccount(t, s, alice, "100.00")
	to := openAccount(t, s, bob, "0")
	bobFrom := openAccount(t, s, bob, "50.00")
	in := TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: amt(t, "10.00"), Description: "Rent"}

	first, err := s.Transfer(ctx, alice, in, "key-1")
	if err != nil {
		t.Fatal(err)
	}
	if first.Replayed || len(first.Body) == 0 {
		t.Fatalf("first %+v", first)
	}
	afterFirst := stateOf(t, s)

	again, err := s.Transfer(ctx, alice, in, "key-1")
	if err != nil {
		t.Fatal(err)
	}
	if !again.Replayed || !bytes.Equal(again.Body, first.Body) || again.Transaction != first.Transaction {
		t.Fatalf("replay %s %+v; want %s", again.Body, again, first.Body)
	}
	var m struct {
		Message     string
		Transaction Transaction
	}
	if err := json.Unmarshal(again.Body, &m); err != nil || m.Message != "Transfer successful" || m.Transaction.ID != first.Transaction.ID {
		t.Fatalf("replayed body %s: %v", again.Body, err)
	}
	wantUnchanged(t, s, afterFirst)
	if b := balanceOf(t, s, from.ID); b != amt(t, "90.00") {
		t.Fatalf("balance %s after a replay", b)
	}

	// A different request under the same key: 409, nothing moves.
	for _, other := range []TransferInput{
		{AccountID: in.AccountID, ToAccountID: in.ToAccountID, Amount: amt(t, "10.01"), Description: in.Description},
		{AccountID: in.AccountID, ToAccountID: in.ToAccountID, Amount: in.Amount, Description: "Other"},
	} {
		_, err := s.Transfer(ctx, alice, other, "key-1")
		wantKind(t, err, errs.Conflict, "idempotency_key_reused")
		if errs.As(err).Message != "Idempotency-Key was already used with a different request" {
			t.Fatalf("message %q", errs.As(err).Message)
		}
	}
	wantUnchanged(t, s, afterFirst)

	// A refused transfer stores nothing: its key stays free, and the same
	// request under it goes through once it can.
	big := TransferInput{AccountID: in.AccountID, ToAccountID: in.ToAccountID, Amount: amt(t, "500.00"), Description: "Car"}
	_, err = s.Transfer(ctx, alice, big, "key-2")
	wantKind(t, err, errs.Unprocessable, "insufficient_funds")
	var claimed int
	if err := s.db.Get(&claimed, `SELECT count(*) FROM idempotency_keys WHERE key = 'key-2'`); err != nil || claimed != 0 {
		t.Fatalf("a refused transfer left its key claimed (%d, %v)", claimed, err)
	}
	wantUnchanged(t, s, afterFirst)
	_, err = s.Transfer(ctx, alice, TransferInput{AccountID: in.AccountID, ToAccountID: "NOSUCH000", Amount: in.Amount}, "key-2")
	wantKind(t, err, errs.NotFound, "account_not_found")
	if _, err := s.Transfer(ctx, alice, in, "key-2"); err != nil {
		t.Fatalf("the key of a refused transfer is free again: %v", err)
	}
	if b := balanceOf(t, s, from.ID); b != amt(t, "80.00") {
		t.Fatalf("balance %s", b)
	}

	// Keys are per user: Bob's "key-1" is his own.
	if res, err := s.Transfer(ctx, bob, TransferInput{AccountID: bobFrom.AccountNumber, ToAccountID: from.AccountNumber, Amount: 100}, "key-1"); err != nil || res.Replayed {
		t.Fatalf("bob's key-1: %+v %v", res, err)
	}
	// No key: every call moves money (each under a key of its own).
	for range 2 {
		if res, err := s.Transfer(ctx, alice, in, ""); err != nil || res.Replayed {
			t.Fatalf("no key: %+v %v", res, err)
		}
	}
	if b := balanceOf(t, s, from.ID); b != amt(t, "61.00") {
		t.Fatalf("balance %s", b)
	}

	// After 24 hours (by the database's clock, which dates the keys) the key
	// is forgotten: the same request moves money again, and the expiry job
	// purges old keys.
	ageKeys(t, s, 25*time.Hour)
	res, err := s.Transfer(ctx, alice, in, "key-1")
	if err != nil || res.Replayed || res.Transaction.ID == first.Transaction.ID {
		t.Fatalf("after 25h: %+v %v", res, err)
	}
	if b := balanceOf(t, s, from.ID); b != amt(t, "51.00") {
		t.Fatalf("balance %s", b)
	}
	ageKeys(t, s, 25*time.Hour)
	if _, err := s.ExpireMoneyRequests(ctx); err != nil {
		t.Fatal(err)
	}
	var keys int
	if err := s.db.Get(&keys, `SELECT count(*) FROM idempotency_keys`); err != nil || keys != 0 {
		t.Fatalf("%d keys left after the purge (%v)", keys, err)
	}
}

// Ten identical requests racing with one key move money once, and all get
// the same answer.
func TestTransferIdempotencyRace(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice := newCustomer(t, s, "Alice Smith")
	bob := newCustomer(t, s, "Bob Jones")
	from := openAccount(t, s, alice, "100.00")
	to := openAccount(t, s, bob, "0")
	in := TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: amt(t, "7.00"), Description: "Once"}
	const n = 10
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		results [n]TransferResult
		errors  [n]error
		fresh   atomic.Int32
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i], errors[i] = s.Transfer(ctx, alice, in, "same-key")
			if errors[i] == nil && !results[i].Replayed {
				fresh.Add(1)
			}
		}()
	}
	close(start)
	wg.Wait()
	for i := range n {
		if errors[i] != nil {
			t.Fatalf("request %d: %v", i, errors[i])
		}
		if !bytes.Equal(results[i].Body, results[0].Body) {
			t.Fatalf("bodies differ: %s / %s", results[i].Body, results[0].Body)
		}
	}
	if fresh.Load() != 1 {
		t.Fatalf("%d requests moved money; want 1", fresh.Load())
	}
	if b := balanceOf(t, s, from.ID); b != amt(t, "93.00") {
		t.Fatalf("sender balance %s", b)
	}
	if b := balanceOf(t, s, to.ID); b != amt(t, "7.00") {
		t.Fatalf("recipient balance %s", b)
	}
	if c := auditCount(t, s, "TRANSFER"); c != 1 {
		t.Fatalf("%d TRANSFER audit rows", c)
	}
	if m := messagesOf(t, s, bob.UserID); len(m) != 1 {
		t.Fatalf("notifications %q", m)
	}
}
