package loadtest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/auth"
	"meridian/pkg/bank"
	"meridian/pkg/money"
	"meridian/pkg/testdb"
)

// seededBank is a test database with the bank service on it and bulk
// customers seeded by o.
func seededBank(t *testing.T, o bank.BulkOptions) (*sqlx.DB, *bank.Service, []Customer) {
	t.Helper()
	ctx := context.Background()
	dbx := testdb.New(t)
	tokens, err := auth.NewTokens([]byte(strings.Repeat("k", 32)), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	svc := bank.New(dbx, tokens, bank.Settings{})
	before, err := TakeMark(ctx, dbx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SeedBulk(ctx, svc.DB(), o); err != nil {
		t.Fatal(err)
	}
	cs, err := BulkCustomers(ctx, dbx, before.MaxUserID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return dbx, svc, cs
}

// The invariant check on a real database: it passes on a consistent bank,
// and it catches a balance that drifted from its ledger, a 201 that is not in
// the ledger, and a transfer nobody was told of.
func TestCheckInvariants(t *testing.T) {
	ctx := context.Background()
	dbx, svc, cs := seededBank(t, bank.BulkOptions{Users: 5, AccountsPerUser: 2, TransfersPerUser: 3, Seed: 1})
	if len(cs) != 5 || len(cs[0].Accounts) != 2 || cs[0].Password != bank.BulkPassword || !strings.HasSuffix(cs[0].Email, "@bulk.meridian.test") {
		t.Fatalf("bulk customers: %+v", cs)
	}
	pick1, _ := BulkCustomers(ctx, dbx, 0, 3, 9)
	pick2, _ := BulkCustomers(ctx, dbx, 0, 3, 9)
	if len(pick1) != 3 || !slices.EqualFunc(pick1, pick2, func(a, b Customer) bool { return a.UserID == b.UserID }) {
		t.Fatalf("picking 3 with one seed should give the same 3: %v / %v", pick1, pick2)
	}

	mark, err := TakeMark(ctx, dbx)
	if err != nil {
		t.Fatal(err)
	}
	from, to := cs[0], cs[1]
	res, err := svc.Transfer(ctx, bank.Actor{UserID: from.UserID, Role: bank.RoleUser}, bank.TransferInput{
		AccountID: from.Accounts[0], ToAccountID: to.Accounts[1], Amount: 12_34, Description: "test"}, "k1")
	if err != nil {
		t.Fatal(err)
	}
	good := Committed{ID: res.Transaction.ID, From: from.Accounts[0], To: to.Accounts[1], Amount: 12_34}

	check := func(o InvariantOptions) *InvariantReport {
		t.Helper()
		r, err := CheckInvariants(ctx, dbx, o)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := check(InvariantOptions{ExpectedTotal: &mark.TotalBalance, Committed: []Committed{good}, ExactSince: mark.MaxTransactionID})
	// Ledger rows: each opening balance and each transfer is two legs (double entry).
	if !r.OK || r.Accounts != 10 || r.LedgerRows != 2*10+2*15+2 || r.CommittedChecked != 1 {
		t.Fatalf("a consistent bank should pass: %+v", r)
	}

	wrong := good
	wrong.Amount = 12_35
	r = check(InvariantOptions{Committed: []Committed{wrong, {ID: 999_999, From: "x", To: "y", Amount: 1}}})
	if r.OK || !slices.Equal(r.MissingCommitted, []int64{good.ID, 999_999}) {
		t.Fatalf("a 201 not in the ledger as answered should be reported: %+v", r)
	}

	r = check(InvariantOptions{ExactSince: mark.MaxTransactionID})
	if r.OK || !slices.Equal(r.Unanswered, []int64{good.ID}) {
		t.Fatalf("a transfer never answered 201 should be reported: %+v", r)
	}

	if _, err := dbx.Exec(`UPDATE accounts SET balance = balance + 1 WHERE account_number = $1`, to.Accounts[0]); err != nil {
		t.Fatal(err)
	}
	r = check(InvariantOptions{ExpectedTotal: &mark.TotalBalance})
	if r.OK || r.MismatchCount != 1 || r.Mismatches[0].AccountNumber != to.Accounts[0] ||
		r.Mismatches[0].Balance-r.Mismatches[0].Ledger != money.Amount(1_00) || r.TotalBalance != mark.TotalBalance+1_00 || len(r.Problems) != 4 ||
		!slices.ContainsFunc(r.Problems, func(p string) bool { return strings.HasPrefix(p, "trial balance: the books do not balance in USD") }) ||
		!slices.ContainsFunc(r.Problems, func(p string) bool { return strings.HasPrefix(p, "currency totals: currency USD: balances") }) {
		t.Fatalf("a balance off its ledger should be reported, with the total, the books out of balance and the currency's totals: %+v", r)
	}
	if _, err := dbx.Exec(`UPDATE accounts SET balance = balance - 1 WHERE account_number = $1`, to.Accounts[0]); err != nil {
		t.Fatal(err)
	}

	// The ledger totals of a currency off its rows: only LedgerChecks sees it.
	if _, err := dbx.Exec(`ALTER TABLE ledger_totals DISABLE TRIGGER USER; UPDATE ledger_totals SET transactions = transactions + 1 WHERE shard = 0 AND currency = 'USD'`); err != nil {
		t.Fatal(err)
	}
	r = check(InvariantOptions{ExpectedTotal: &mark.TotalBalance})
	if r.OK || len(r.Problems) != 1 || !strings.Contains(r.Problems[0], "counted in the totals") {
		t.Fatalf("ledger totals that do not count the ledger should be reported: %+v", r)
	}
	if _, err := dbx.Exec(`UPDATE ledger_totals SET transactions = transactions - 1 WHERE shard = 0 AND currency = 'USD'`); err != nil {
		t.Fatal(err)
	}

	// A DEBIT without its CREDIT is not a committed transfer.
	if _, err := dbx.Exec(`DELETE FROM transactions WHERE transaction_type = 'CREDIT' AND kind = 'transfer' AND amount = 12.34`); err != nil {
		t.Fatal(err)
	}
	r = check(InvariantOptions{Committed: []Committed{good}})
	if r.OK || !slices.Equal(r.MissingCommitted, []int64{good.ID}) {
		t.Fatalf("a DEBIT without its CREDIT should be reported: %+v", r)
	}
}
