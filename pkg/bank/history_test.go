package bank

import (
	"slices"
	"testing"

	"meridian/pkg/errs"
)

func TestHistory(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice := newCustomer(t, s, "Alice Smith")
	bob := newCustomer(t, s, "Bob Jones")
	admin := newAdmin(t, s)
	a1 := openAccount(t, s, alice, "100.00")
	a2 := openAccount(t, s, alice, "50.00")
	b := openAccount(t, s, bob, "0")
	move := func(who Actor, from, to Account, amount string) {
		t.Helper()
		if _, err := s.Transfer(ctx, who, TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: amt(t, amount)}, ""); err != nil {
			t.Fatal(err)
		}
	}
	move(alice, a1, b, "1.00")
	move(alice, a2, b, "2.00")
	move(bob, b, a1, "0.50")
	move(alice, a1, a2, "3.00")

	ids := func(rows []Transaction) []int64 {
		var out []int64
		for _, r := range rows {
			out = append(out, r.ID)
		}
		return out
	}
	want := func(where string, args ...any) []int64 {
		t.Helper()
		var out []int64
		if err := s.db.Select(&out, `SELECT id FROM transactions WHERE `+where+` ORDER BY id DESC`, args...); err != nil {
			t.Fatal(err)
		}
		return out
	}
	check := func(name string, a Actor, q HistoryQuery, admin bool, wantIDs []int64) {
		t.Helper()
		var rows []Transaction
		var next *string
		var err error
		if admin {
			rows, next, err = s.AdminHistory(ctx, a, q)
		} else {
			rows, next, err = s.History(ctx, a, q)
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(ids(rows), wantIDs) || next != nil {
			t.Fatalf("%s: got %v (next %v); want %v", name, ids(rows), next, wantIDs)
		}
	}
	uid := alice.UserID
	check("all of alice's", alice, HistoryQuery{UserID: &uid}, false, want(`user_id = $1`, alice.UserID))
	if n := len(want(`user_id = $1`, alice.UserID)); n != 7 {
		t.Fatalf("alice has %d rows; want 7", n)
	}
	check("debits", alice, HistoryQuery{Type: "DEBIT"}, false, want(`user_id = $1 AND transaction_type = 'DEBIT'`, alice.UserID))
	check("credits, lower case", alice, HistoryQuery{Type: "credit"}, false, want(`user_id = $1 AND transaction_type = 'CREDIT'`, alice.UserID))
	check("one account", alice, HistoryQuery{AccountNumber: a2.AccountNumber}, false, want(`account_id = $1`, a2.ID))
	check("one account's debits", alice, HistoryQuery{AccountNumber: a2.AccountNumber, Type: "DEBIT"}, false, want(`account_id = $1 AND transaction_type = 'DEBIT'`, a2.ID))
	check("exactly one full page", alice, HistoryQuery{Page: Page{Limit: 7}}, false, want(`user_id = $1`, alice.UserID))
	check("admin: every customer's", admin, HistoryQuery{}, true, want(`user_id IS NOT NULL`))
	check("admin: bob's account", admin, HistoryQuery{AccountNumber: b.AccountNumber}, true, want(`account_id = $1`, b.ID))
	check("admin: credits", admin, HistoryQuery{Type: "CREDIT"}, true, want(`user_id IS NOT NULL AND transaction_type = 'CREDIT'`))

	// The rows carry account numbers; a transfer's two rows both read sender
	// -> recipient; money from the bank names the bank's vault (double entry).
	rows, _, err := s.History(ctx, alice, HistoryQuery{AccountNumber: a2.AccountNumber, Type: "CREDIT"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].AccountID != a1.AccountNumber || rows[0].ToAccountID != a2.AccountNumber || rows[0].Amount != 300 ||
		rows[1].Description != "Opening balance" || rows[1].AccountID != "MERIDIANVAULTUSD" || rows[1].ToAccountID != a2.AccountNumber {
		t.Fatalf("a2's credits %+v", rows)
	}

	// Paging: limit 2 walks the 7 rows in 4 pages; the last has no next cursor.
	var got []int64
	q := HistoryQuery{Page: Page{Limit: 2}}
	for pages := 0; ; pages++ {
		if pages > 4 {
			t.Fatal("paging does not end")
		}
		rows, next, err := s.History(ctx, alice, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) > 2 {
			t.Fatalf("page of %d rows", len(rows))
		}
		got = append(got, ids(rows)...)
		if next == nil {
			if pages != 3 {
				t.Fatalf("%d pages; want 4", pages+1)
			}
			break
		}
		q.Page.Before = *next
	}
	if !slices.Equal(got, want(`user_id = $1`, alice.UserID)) {
		t.Fatalf("paged %v", got)
	}

	// Refusals.
	other := bob.UserID
	for _, c := range []struct {
		name string
		a    Actor
		q    HistoryQuery
		kind errs.Kind
	}{
		{"someone else's account", alice, HistoryQuery{AccountNumber: b.AccountNumber}, errs.NotFound},
		{"an unknown account", alice, HistoryQuery{AccountNumber: "NOSUCH000"}, errs.NotFound},
		{"a bad type", alice, HistoryQuery{Type: "TRANSFER"}, errs.Invalid},
		{"a bad cursor", alice, HistoryQuery{Page: Page{Before: "not-a-cursor"}}, errs.Invalid},
		{"a forged cursor", alice, HistoryQuery{Page: Page{Before: "aWQ6LTE"}}, errs.Invalid},
		{"a limit too big", alice, HistoryQuery{Page: Page{Limit: 1001}}, errs.Invalid},
		{"someone else's user_id", alice, HistoryQuery{UserID: &other}, errs.Forbidden},
		{"an admin", admin, HistoryQuery{}, errs.Forbidden},
	} {
		_, _, err := s.History(ctx, c.a, c.q)
		if errs.KindOf(err) != c.kind {
			t.Fatalf("%s: got %v; want kind %d", c.name, err, c.kind)
		}
		if c.kind == errs.NotFound && errs.As(err).Message != "Account not found" {
			t.Fatalf("%s: message %q", c.name, errs.As(err).Message)
		}
	}
	_, _, err = s.AdminHistory(ctx, alice, HistoryQuery{})
	wantKind(t, err, errs.Forbidden, "")
	_, _, err = s.AdminHistory(ctx, admin, HistoryQuery{AccountNumber: "NOSUCH000"})
	wantKind(t, err, errs.NotFound, "account_not_found")

	// A closed account's history stays readable by its holder.
	if _, err := s.Transfer(ctx, alice, TransferInput{AccountID: a2.AccountNumber, ToAccountID: a1.AccountNumber, Amount: balanceOf(t, s, a2.ID)}, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.CloseAccount(ctx, alice, a2.ID); err != nil {
		t.Fatal(err)
	}
	check("a closed account", alice, HistoryQuery{AccountNumber: a2.AccountNumber}, false, want(`account_id = $1`, a2.ID))
}

// An empty history is an empty list (JSON []), not null.
func TestHistoryEmpty(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice := newCustomer(t, s, "Alice Smith")
	rows, next, err := s.History(ctx, alice, HistoryQuery{})
	if err != nil || rows == nil || len(rows) != 0 || next != nil {
		t.Fatalf("%v %v %v", rows, next, err)
	}
}
