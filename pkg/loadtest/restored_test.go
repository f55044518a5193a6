package loadtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"meridian/pkg/bank"
)

// TestCheckRestored: transfers answered before the target must be there,
// transfers sent after it must not, and a ledger row begun after it is
// refused whatever the client saw; transfers in flight at the target may
// be either.
func TestCheckRestored(t *testing.T) {
	ctx := context.Background()
	dbx, svc, cs := seededBank(t, bank.BulkOptions{Users: 2, AccountsPerUser: 1, Seed: 3})
	mark, err := TakeMark(ctx, dbx)
	if err != nil {
		t.Fatal(err)
	}
	pay := func(key string) Committed {
		t.Helper()
		sent := time.Now()
		res, err := svc.Transfer(ctx, bank.Actor{UserID: cs[0].UserID, Role: bank.RoleUser}, bank.TransferInput{
			AccountID: cs[0].Accounts[0], ToAccountID: cs[1].Accounts[0], Amount: 1_00, Description: "restore test"}, key)
		if err != nil {
			t.Fatal(err)
		}
		return Committed{ID: res.Transaction.ID, From: cs[0].Accounts[0], To: cs[1].Accounts[0], Amount: 1_00, Key: key, Sent: sent, Answered: time.Now()}
	}
	a, b := pay("a"), pay("b")
	check := func(o RestoredOptions) *RestoredReport {
		t.Helper()
		o.ExpectedTotal = &mark.TotalBalance
		r, err := CheckRestored(ctx, dbx, o)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	// Restored to just after b: both there, nothing after.
	target := b.Answered.Add(time.Millisecond)
	if r := check(RestoredOptions{Target: target, Committed: []Committed{a, b}}); !r.OK || r.Before != 2 || r.After != 0 {
		t.Fatalf("a database restored after both transfers: %+v", r)
	}
	// As if restored between a and b, b being in the ledger: refused twice
	// over (b was sent after the target, and its transaction began after it).
	between := a.Answered.Add(b.Sent.Sub(a.Answered) / 2)
	r := check(RestoredOptions{Target: between, Committed: []Committed{a, b}})
	if r.OK || r.Before != 1 || r.After != 1 || len(r.PresentAfter) != 1 || r.PresentAfter[0] != b.ID || r.BegunAfter != 2 {
		t.Fatalf("a transfer sent after the target is in the ledger: %+v", r)
	}
	// A transfer answered before the target that is not there.
	lost := a
	lost.ID = 999_999
	if r := check(RestoredOptions{Target: target, Committed: []Committed{a, b, lost}}); r.OK || !strings.Contains(strings.Join(r.Problems, "\n"), "answered 201 are not in the ledger") {
		t.Fatalf("a transfer answered before the target and missing: %+v", r)
	}
	// In flight at the target: either side is right.
	straddling := b
	straddling.Sent, straddling.Answered = target.Add(-time.Second), target.Add(time.Second)
	if r := check(RestoredOptions{Target: target, Committed: []Committed{a, straddling}}); !r.OK || r.Between != 1 || r.BetweenPresent != 1 {
		t.Fatalf("a transfer in flight at the target: %+v", r)
	}
}
