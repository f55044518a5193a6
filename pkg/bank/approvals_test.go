package bank

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"

	"meridian/pkg/errs"
)

// A reversal is a new posting, every leg the other way, linked both ways;
// both parties are told; a transaction is reversed at most once; when the
// recipient no longer holds the amount nothing moves.
func TestReversal(t *testing.T) {
	t.Parallel()
	s := newService(t)
	admin, alice, bob := newAdmin(t, s), newCustomer(t, s, "Alice Reversal"), newCustomer(t, s, "Bob Reversal")
	from, to := openAccount(t, s, alice, "500.00"), openAccount(t, s, bob, "0")
	sent, err := s.Transfer(ctx, alice, TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: 120_00}, "")
	if err != nil {
		t.Fatal(err)
	}
	id := sent.Transaction.ID

	_, err = s.ReverseTransaction(ctx, alice, id, ReverseInput{Reason: "mine"}, "")
	wantKind(t, err, errs.Forbidden, "")
	_, err = s.ReverseTransaction(ctx, admin, id, ReverseInput{Reason: "  "}, "")
	wantKind(t, err, errs.Invalid, "invalid_input")
	_, err = s.ReverseTransaction(ctx, admin, 999_999, ReverseInput{Reason: "No such"}, "")
	wantKind(t, err, errs.NotFound, "transaction_not_found")

	// Reversing by the CREDIT row names the same posting.
	res, err := s.ReverseTransaction(ctx, admin, id+1, ReverseInput{Reason: "Sent to the wrong account"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Reverses != id || res.Transaction.TransactionType != "CREDIT" || res.Transaction.Amount != 120_00 ||
		res.Transaction.Description != "Reversal of transaction "+strconv.FormatInt(id, 10)+": Sent to the wrong account" {
		t.Fatalf("reversal %+v %s", res.Transaction, res.Body)
	}
	if balanceOf(t, s, from.ID) != 500_00 || balanceOf(t, s, to.ID) != 0 {
		t.Fatal("the reversal did not move the money back")
	}
	// History shows both rows, linked.
	rows, _, err := s.History(ctx, alice, HistoryQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var original, reversal *Transaction
	for i := range rows {
		switch rows[i].ID {
		case id:
			original = &rows[i]
		case res.Transaction.ID:
			reversal = &rows[i]
		}
	}
	if original == nil || reversal == nil || original.ReversedBy == nil || *original.ReversedBy != res.Transaction.ID ||
		reversal.Reverses == nil || *reversal.Reverses != id || reversal.Kind != "reversal" || original.Kind != "transfer" {
		t.Fatalf("history: %+v", rows)
	}
	if m := strings.Join(messagesOf(t, s, bob.UserID), "\n"); !strings.Contains(m, "$120.00 was taken back from your account "+to.AccountNumber+": transaction "+strconv.FormatInt(id, 10)+" was reversed") {
		t.Fatalf("bob was told: %s", m)
	}
	if m := strings.Join(messagesOf(t, s, alice.UserID), "\n"); !strings.Contains(m, "$120.00 was returned to your account "+from.AccountNumber) {
		t.Fatalf("alice was told: %s", m)
	}
	if auditCount(t, s, "REVERSAL") != 1 {
		t.Fatal("no REVERSAL audit row")
	}
	// At most once; a reversal is not reversed.
	_, err = s.ReverseTransaction(ctx, admin, id, ReverseInput{Reason: "Again"}, "")
	wantKind(t, err, errs.Conflict, "already_reversed")
	_, err = s.ReverseTransaction(ctx, admin, res.Transaction.ID, ReverseInput{Reason: "Undo the undo"}, "")
	wantKind(t, err, errs.Unprocessable, "reversal_not_reversible")

	// The recipient spent it: refused, nothing moves.
	sent2, err := s.Transfer(ctx, alice, TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: 100_00}, "")
	if err != nil {
		t.Fatal(err)
	}
	other := openAccount(t, s, bob, "0")
	if err := sendTo(s, bob, to, other, 60_00, ""); err != nil {
		t.Fatal(err)
	}
	before := stateOf(t, s)
	_, err = s.ReverseTransaction(ctx, admin, sent2.Transaction.ID, ReverseInput{Reason: "Late"}, "")
	wantKind(t, err, errs.Unprocessable, "insufficient_funds")
	wantUnchanged(t, s, before)
	wantBooksBalanced(t, s)
}

// A deposit's reversal takes the money back into the vault, through the
// command line too.
func TestReverseDeposit(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice := newCustomer(t, s, "Alice Deposit")
	acc := openAccount(t, s, alice, "0")
	dep, err := s.Deposit(ctx, CLIActor, acc.AccountNumber, FundsInput{Amount: 75_00}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReverseTransaction(ctx, CLIActor, dep.Transaction.ID, ReverseInput{Reason: "Cheque bounced"}, ""); err != nil {
		t.Fatal(err)
	}
	if balanceOf(t, s, acc.ID) != 0 {
		t.Fatal("the deposit was not taken back")
	}
	wantBooksBalanced(t, s)
}

// Many administrators reversing one transaction at the same moment reverse
// it once.
func TestConcurrentReversalsReverseOnce(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice, bob := newCustomer(t, s, "Alice Race"), newCustomer(t, s, "Bob Race")
	from, to := openAccount(t, s, alice, "100.00"), openAccount(t, s, bob, "0")
	sent, err := s.Transfer(ctx, alice, TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: 40_00}, "")
	if err != nil {
		t.Fatal(err)
	}
	admins := make([]Actor, 8)
	for i := range admins {
		admins[i] = newAdmin(t, s)
	}
	var wg sync.WaitGroup
	results := make([]error, len(admins))
	for i, a := range admins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, results[i] = s.ReverseTransaction(ctx, a, sent.Transaction.ID, ReverseInput{Reason: "Race"}, "")
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range results {
		if err == nil {
			ok++
		} else {
			wantKind(t, err, errs.Conflict, "already_reversed")
		}
	}
	if ok != 1 || balanceOf(t, s, from.ID) != 100_00 || balanceOf(t, s, to.ID) != 0 {
		t.Fatalf("%d reversals went through; balances %s %s", ok, balanceOf(t, s, from.ID), balanceOf(t, s, to.ID))
	}
	wantBooksBalanced(t, s)
}

// Four eyes: at or over the threshold a deposit, withdrawal or reversal,
// and any raise of a daily limit, waits; the maker never decides; the
// command line on the server never decides; a decision is made once; an
// expired one is not decided; an action refused when approved leaves the
// approval pending.
func TestFourEyes(t *testing.T) {
	t.Parallel()
	s := newService(t)
	s.settings.ApprovalThreshold = 1000_00
	maker, checker := newAdmin(t, s), newAdmin(t, s)
	alice := newCustomer(t, s, "Alice Eyes")
	acc := openAccount(t, s, alice, "0")

	// Under the threshold: runs at once.
	if res, err := s.Deposit(ctx, maker, acc.AccountNumber, FundsInput{Amount: 999_99}, ""); err != nil || res.Approval != nil {
		t.Fatalf("under the threshold: %+v %v", res, err)
	}
	res, err := s.Deposit(ctx, maker, acc.AccountNumber, FundsInput{Amount: 1000_00, Description: "Inheritance"}, "key-1")
	if err != nil || res.Approval == nil {
		t.Fatalf("at the threshold: %+v %v", res, err)
	}
	ap := *res.Approval
	if ap.Kind != "deposit" || ap.Status != "pending" || ap.RequestedByID == nil || *ap.RequestedByID != maker.UserID ||
		ap.Summary != "Deposit $1,000.00 into account "+acc.AccountNumber+": Inheritance" {
		t.Fatalf("approval %+v", ap)
	}
	if balanceOf(t, s, acc.ID) != 999_99 {
		t.Fatal("the deposit ran before its approval")
	}
	// Asking again under the same key answers the same approval.
	if again, err := s.Deposit(ctx, maker, acc.AccountNumber, FundsInput{Amount: 1000_00, Description: "Inheritance"}, "key-1"); err != nil || again.Approval == nil || again.Approval.ID != ap.ID {
		t.Fatalf("asked again: %+v %v", again, err)
	}
	_, err = s.Deposit(ctx, maker, acc.AccountNumber, FundsInput{Amount: 2000_00}, "key-1")
	wantKind(t, err, errs.Conflict, "idempotency_key_reused")

	_, err = s.ApproveApproval(ctx, maker, ap.ID)
	wantKind(t, err, errs.Forbidden, "same_admin")
	_, err = s.ApproveApproval(ctx, CLIActor, ap.ID)
	wantKind(t, err, errs.Forbidden, "approver_signed_in")
	_, err = s.ApproveApproval(ctx, alice, ap.ID)
	wantKind(t, err, errs.Forbidden, "")
	pending, err := s.Approvals(ctx, checker, "pending")
	if err != nil || len(pending) != 1 || pending[0].ID != ap.ID {
		t.Fatalf("pending: %+v %v", pending, err)
	}

	d, err := s.ApproveApproval(ctx, checker, ap.ID)
	if err != nil || d.Approval.Status != "approved" || d.Approval.DecidedByID == nil || *d.Approval.DecidedByID != checker.UserID {
		t.Fatalf("approve: %+v %v", d, err)
	}
	var tx Transaction
	if err := json.Unmarshal(d.Result, &tx); err != nil || tx.Amount != 1000_00 || tx.TransactionType != "CREDIT" {
		t.Fatalf("result %s %v", d.Result, err)
	}
	if balanceOf(t, s, acc.ID) != 1999_99 {
		t.Fatalf("balance %s after the approval", balanceOf(t, s, acc.ID))
	}
	_, err = s.ApproveApproval(ctx, checker, ap.ID)
	wantKind(t, err, errs.Conflict, "approval_decided")
	_, err = s.RejectApproval(ctx, checker, ap.ID, RejectInput{Reason: "Too late"})
	wantKind(t, err, errs.Conflict, "approval_decided")

	// A withdrawal the customer can no longer cover when approved: refused,
	// still pending; then rejected.
	w, err := s.Withdraw(ctx, maker, acc.AccountNumber, FundsInput{Amount: 1500_00}, "")
	if err != nil || w.Approval == nil {
		t.Fatalf("withdraw: %+v %v", w, err)
	}
	other := openAccount(t, s, alice, "0")
	if err := sendTo(s, alice, acc, other, 1000_00, ""); err != nil {
		t.Fatal(err)
	}
	_, err = s.ApproveApproval(ctx, checker, w.Approval.ID)
	wantKind(t, err, errs.Unprocessable, "insufficient_funds")
	_, err = s.RejectApproval(ctx, checker, w.Approval.ID, RejectInput{})
	wantKind(t, err, errs.Invalid, "invalid_input")
	r, err := s.RejectApproval(ctx, checker, w.Approval.ID, RejectInput{Reason: "The customer moved the money"})
	if err != nil || r.Approval.Status != "rejected" || r.Approval.Reason == nil {
		t.Fatalf("reject: %+v %v", r, err)
	}
	if balanceOf(t, s, acc.ID) != 999_99 {
		t.Fatal("a rejected withdrawal moved money")
	}

	// A reversal over the threshold waits too. Approved while the customer
	// holds less than it takes back: refused, still pending; then it runs.
	rv, err := s.ReverseTransaction(ctx, maker, tx.ID, ReverseInput{Reason: "Entered twice"}, "")
	if err != nil || rv.Approval == nil || rv.Approval.Kind != "reversal" {
		t.Fatalf("reversal: %+v %v", rv, err)
	}
	_, err = s.ApproveApproval(ctx, checker, rv.Approval.ID)
	wantKind(t, err, errs.Unprocessable, "insufficient_funds")
	if _, err := s.Deposit(ctx, maker, acc.AccountNumber, FundsInput{Amount: 1_00}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApproveApproval(ctx, checker, rv.Approval.ID); err != nil {
		t.Fatal(err)
	}
	if b := balanceOf(t, s, acc.ID); b != 99 {
		t.Fatalf("balance %s after the reversal, want 0.99", b)
	}

	// Expired: pending 24 hours without a decision.
	e, err := s.Deposit(ctx, maker, acc.AccountNumber, FundsInput{Amount: 5000_00}, "")
	if err != nil || e.Approval == nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`UPDATE approvals SET expires_at = now() - interval '1 second' WHERE id = $1`, e.Approval.ID); err != nil {
		t.Fatal(err)
	}
	if rows, _ := s.Approvals(ctx, checker, "expired"); len(rows) != 1 || rows[0].ID != e.Approval.ID {
		t.Fatalf("expired list: %+v", rows)
	}
	_, err = s.ApproveApproval(ctx, checker, e.Approval.ID)
	wantKind(t, err, errs.Conflict, "approval_expired")
	_, err = s.Approvals(ctx, checker, "waiting")
	wantKind(t, err, errs.Invalid, "invalid_input")
	for action, n := range map[string]int{"APPROVAL_REQUEST": 4, "APPROVAL_APPROVE": 2, "APPROVAL_REJECT": 1} {
		if got := auditCount(t, s, action); got != n {
			t.Errorf("%d %s audit rows, want %d", got, action, n)
		}
	}
	wantBooksBalanced(t, s)
}

// Two administrators approving the same approvals at the same moment: each
// runs once.
func TestTwoAdminsApproveAtOnce(t *testing.T) {
	t.Parallel()
	s := newService(t)
	s.settings.ApprovalThreshold = 100_00
	maker, first, second := newAdmin(t, s), newAdmin(t, s), newAdmin(t, s)
	alice := newCustomer(t, s, "Alice Twice")
	acc := openAccount(t, s, alice, "0")
	const n = 20
	ids := make([]int64, n)
	for i := range ids {
		res, err := s.Deposit(ctx, maker, acc.AccountNumber, FundsInput{Amount: 100_00}, "")
		if err != nil || res.Approval == nil {
			t.Fatal(err)
		}
		ids[i] = res.Approval.ID
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	approved := map[int64]int{}
	for _, a := range []Actor{first, second} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, id := range ids {
				_, err := s.ApproveApproval(ctx, a, id)
				if err == nil {
					mu.Lock()
					approved[id]++
					mu.Unlock()
					continue
				}
				var e *errs.Error
				if !errors.As(err, &e) || e.Code != "approval_decided" {
					t.Errorf("approve %d: %v", id, err)
				}
			}
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if approved[id] != 1 {
			t.Errorf("approval %d approved %d times", id, approved[id])
		}
	}
	if b := balanceOf(t, s, acc.ID); b != n*100_00 {
		t.Fatalf("balance %s, want %d deposits of 100.00", b, n)
	}
	wantBooksBalanced(t, s)
}
