package bank

import (
	"fmt"
	"sync"
	"testing"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

func TestAccountTypes(t *testing.T) {
	t.Parallel()
	s := newService(t)
	_, err := s.AccountTypes(ctx, newAdmin(t, s))
	wantKind(t, err, errs.Forbidden, "customer_only")
	types, err := s.AccountTypes(ctx, newCustomer(t, s, "Tia Type"))
	if err != nil || len(types) < 3 || types[0].TypeName != "Checking" || types[0].Currency != "USD" || types[0].LegacyID != types[0].ID {
		t.Fatalf("types: %+v %v", types, err)
	}
	var other bool
	for _, ty := range types {
		other = other || ty.Currency != "USD"
	}
	if !other {
		t.Fatal("no account type in another currency")
	}
}

func TestCreateAccount(t *testing.T) {
	t.Parallel()
	s := newService(t)
	c := newCustomer(t, s, "Hana Ito")
	acc, err := s.CreateAccount(ctx, c, AccountInput{AccountNumber: "HANA000001", Balance: 12550, AccountTypeID: 2})
	if err != nil || acc.Balance != 12550 || acc.TypeName != "Savings" || acc.Currency != "USD" || acc.Name != "Hana Ito" || acc.UserID != c.UserID {
		t.Fatalf("create: %+v %v", acc, err)
	}
	if got := ledgerSum(t, s, acc.ID); got != 12550 {
		t.Fatalf("opening balance not in the ledger: %v", got)
	}
	zero, err := s.CreateAccount(ctx, c, AccountInput{AccountNumber: "HANA000002", AccountTypeID: 1})
	if err != nil || zero.Balance != 0 {
		t.Fatal(err)
	}
	var rows int
	s.db.Get(&rows, `SELECT count(*) FROM transactions WHERE account_id = $1`, zero.ID)
	if rows != 0 {
		t.Fatal("a zero opening balance wrote a ledger row")
	}

	other := newCustomer(t, s, "Ivan Oak")
	_, err = s.CreateAccount(ctx, other, AccountInput{AccountNumber: "hana000001", AccountTypeID: 1})
	if err != nil {
		t.Fatalf("account numbers differ by case: %v", err)
	}
	_, err = s.CreateAccount(ctx, other, AccountInput{AccountNumber: "HANA000001", AccountTypeID: 1})
	wantKind(t, err, errs.Conflict, "account_number_taken")

	bad := []AccountInput{
		{AccountNumber: "", AccountTypeID: 1},
		{AccountNumber: "12345", AccountTypeID: 1},
		{AccountNumber: "ABC-123456", AccountTypeID: 1},
		{AccountNumber: "A234567890123456789012345678901234X", AccountTypeID: 1},
		{AccountNumber: "GOOD123456", Balance: -1, AccountTypeID: 1},
		{AccountNumber: "GOOD123456", Balance: money.DefaultMax + 1, AccountTypeID: 1},
		{AccountNumber: "GOOD123456"},
		{AccountNumber: "GOOD123456", AccountTypeID: 99},
	}
	for _, in := range bad {
		_, err := s.CreateAccount(ctx, other, in)
		wantKind(t, err, errs.Invalid, "invalid_input")
	}
	someoneElse := c.UserID
	_, err = s.CreateAccount(ctx, other, AccountInput{AccountNumber: "GOOD123456", AccountTypeID: 1, UserID: &someoneElse})
	wantKind(t, err, errs.Forbidden, "")
	adm := newAdmin(t, s)
	_, err = s.CreateAccount(ctx, adm, AccountInput{AccountNumber: "GOOD123456", AccountTypeID: 1})
	wantKind(t, err, errs.Forbidden, "customer_only")
	var n int
	s.db.Get(&n, `SELECT count(*) FROM accounts WHERE account_number = 'GOOD123456'`)
	if n != 0 {
		t.Fatal("a refused create left an account")
	}
	if got := auditCount(t, s, "ACCOUNT_CREATE"); got != 3 {
		t.Fatalf("ACCOUNT_CREATE rows %d", got)
	}
}

func TestListAccountsOwnOnly(t *testing.T) {
	t.Parallel()
	s := newService(t)
	a := newCustomer(t, s, "Jon Snow")
	b := newCustomer(t, s, "Kim Lee")
	openAccount(t, s, a, "1.00")
	openAccount(t, s, a, "2.00")
	openAccount(t, s, b, "3.00")
	mine, err := s.ListAccounts(ctx, a, nil)
	if err != nil || len(mine) != 2 {
		t.Fatalf("list: %d %v", len(mine), err)
	}
	for _, acc := range mine {
		if acc.UserID != a.UserID {
			t.Fatal("someone else's account listed")
		}
	}
	_, err = s.ListAccounts(ctx, a, &b.UserID)
	wantKind(t, err, errs.Forbidden, "")
	if own, err := s.ListAccounts(ctx, a, &a.UserID); err != nil || len(own) != 2 {
		t.Fatal(err)
	}
	adm := newAdmin(t, s)
	all, err := s.AllAccounts(ctx, adm)
	if err != nil || len(all) != 3 {
		t.Fatalf("all: %d %v", len(all), err)
	}
}

func TestUpdateAccount(t *testing.T) {
	t.Parallel()
	s := newService(t)
	a := newCustomer(t, s, "Lia Moss")
	acc := openAccount(t, s, a, "100.00")
	up, err := s.UpdateAccount(ctx, a, acc.ID, AccountInput{AccountNumber: "LIA0000001", Balance: 7525, AccountTypeID: 2})
	if err != nil || up.AccountNumber != "LIA0000001" || up.Balance != 7525 || up.TypeName != "Savings" {
		t.Fatalf("update: %+v %v", up, err)
	}
	if got := ledgerSum(t, s, acc.ID); got != 7525 {
		t.Fatalf("ledger %v after adjustment", got)
	}
	up, _ = s.UpdateAccount(ctx, a, acc.ID, AccountInput{AccountNumber: "LIA0000001", Balance: 20000, AccountTypeID: 2})
	if got := ledgerSum(t, s, acc.ID); got != 20000 || up.Balance != 20000 {
		t.Fatalf("ledger %v after raise", got)
	}
	_, err = s.UpdateAccount(ctx, a, acc.ID, AccountInput{AccountNumber: "LIA0000001", Balance: 20000, AccountTypeID: 3})
	wantKind(t, err, errs.Unprocessable, "currency_change")

	b := newCustomer(t, s, "Max Pike")
	other := openAccount(t, s, b, "5.00")
	_, err = s.UpdateAccount(ctx, a, other.ID, AccountInput{AccountNumber: "STOLEN0001", Balance: 0, AccountTypeID: 1})
	wantKind(t, err, errs.NotFound, "account_not_found")
	if balanceOf(t, s, other.ID) != 500 {
		t.Fatal("someone else's account changed")
	}
	_, err = s.UpdateAccount(ctx, a, acc.ID, AccountInput{AccountNumber: other.AccountNumber, Balance: 0, AccountTypeID: 1})
	wantKind(t, err, errs.Conflict, "account_number_taken")
	if balanceOf(t, s, acc.ID) != 20000 {
		t.Fatal("a refused update changed the balance")
	}
}

func TestCloseAccount(t *testing.T) {
	t.Parallel()
	s := newService(t)
	a := newCustomer(t, s, "Nia Park")
	acc := openAccount(t, s, a, "10.00")
	err := s.CloseAccount(ctx, a, acc.ID)
	wantKind(t, err, errs.Unprocessable, "balance_not_zero")
	if errs.As(err).Message != "Account balance must be zero to close it" {
		t.Fatal(errs.As(err).Message)
	}
	b := newCustomer(t, s, "Oli Quinn")
	wantKind(t, s.CloseAccount(ctx, b, acc.ID), errs.NotFound, "account_not_found")

	empty := openAccount(t, s, a, "0")
	if err := s.CloseAccount(ctx, a, empty.ID); err != nil {
		t.Fatal(err)
	}
	list, _ := s.ListAccounts(ctx, a, nil)
	if len(list) != 1 {
		t.Fatal("closed account still listed")
	}
	wantKind(t, s.CloseAccount(ctx, a, empty.ID), errs.NotFound, "")
	_, err = s.LookupAccount(ctx, b, empty.AccountNumber)
	wantKind(t, err, errs.NotFound, "")
	if auditCount(t, s, "ACCOUNT_CLOSE") != 1 {
		t.Fatal("close not audited")
	}
}

func TestLookupAccount(t *testing.T) {
	t.Parallel()
	s := newService(t)
	s.lookups = NewRateLimiter(3, 60e9)
	a := newCustomer(t, s, "Pia Rhodes")
	acc := openAccount(t, s, a, "1.00")
	b := newCustomer(t, s, "Quin Stone")
	got, err := s.LookupAccount(ctx, b, acc.AccountNumber)
	if err != nil || got.FullName != "Pia Rhodes" || got.AccountNumber != acc.AccountNumber {
		t.Fatalf("lookup: %+v %v", got, err)
	}
	_, err = s.LookupAccount(ctx, b, "NOPE000000")
	wantKind(t, err, errs.NotFound, "account_not_found")
	_, err = s.LookupAccount(ctx, b, acc.AccountNumber)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.LookupAccount(ctx, b, acc.AccountNumber)
	wantKind(t, err, errs.RateLimited, "too_many_lookups")
	if _, err := s.LookupAccount(ctx, a, acc.AccountNumber); err != nil {
		t.Fatalf("the limit is per user: %v", err)
	}
}

// An account number is never reissued: once used, renamed away or closed, it
// stays its holder's. Anyone else gets 409; the holder may take it back.
func TestAccountNumberNeverReissued(t *testing.T) {
	t.Parallel()
	s := newService(t)
	a := newCustomer(t, s, "Pia Lund")
	b := newCustomer(t, s, "Rex Hale")
	acc, err := s.CreateAccount(ctx, a, AccountInput{AccountNumber: "PIA0000001", AccountTypeID: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateAccount(ctx, a, acc.ID, AccountInput{AccountNumber: "PIA0000002", AccountTypeID: 1}); err != nil {
		t.Fatal(err)
	}
	// PIA0000001 is free in accounts, but it was Pia's.
	_, err = s.CreateAccount(ctx, b, AccountInput{AccountNumber: "PIA0000001", AccountTypeID: 1})
	wantKind(t, err, errs.Conflict, "account_number_taken")
	if errs.As(err).Message != "Account number already exists" {
		t.Fatal(errs.As(err).Message)
	}
	mine := openAccount(t, s, b, "0")
	_, err = s.UpdateAccount(ctx, b, mine.ID, AccountInput{AccountNumber: "PIA0000001", AccountTypeID: 1})
	wantKind(t, err, errs.Conflict, "account_number_taken")
	// The holder takes it back, by a rename or a new account.
	if _, err := s.UpdateAccount(ctx, a, acc.ID, AccountInput{AccountNumber: "PIA0000001", AccountTypeID: 1}); err != nil {
		t.Fatalf("the holder renames back: %v", err)
	}
	if _, err := s.CreateAccount(ctx, a, AccountInput{AccountNumber: "PIA0000002", AccountTypeID: 2}); err != nil {
		t.Fatalf("the holder reopens a number: %v", err)
	}
	// A closed account's number is not reissued either.
	if err := s.CloseAccount(ctx, b, mine.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.CreateAccount(ctx, a, AccountInput{AccountNumber: mine.AccountNumber, AccountTypeID: 1})
	wantKind(t, err, errs.Conflict, "account_number_taken")
	var n int
	s.db.Get(&n, `SELECT count(*) FROM accounts WHERE user_id = $1`, b.UserID)
	if n != 1 || auditCount(t, s, "ACCOUNT_CREATE") != 3 {
		t.Fatalf("refused claims left accounts (%d) or audit rows", n)
	}
}

// Many customers renaming to one fresh number at once: one wins; after the
// winner renames away, the others still cannot have it.
func TestAccountNumberClaimRace(t *testing.T) {
	t.Parallel()
	s := newService(t)
	const n = 8
	type entry struct {
		who Actor
		acc Account
	}
	es := make([]entry, n)
	for i := range es {
		es[i].who = newCustomer(t, s, fmt.Sprintf("Racer%d Run", i))
		es[i].acc = openAccount(t, s, es[i].who, "0")
	}
	rename := func(e entry, number string) error {
		_, err := s.UpdateAccount(ctx, e.who, e.acc.ID, AccountInput{AccountNumber: number, AccountTypeID: 1})
		return err
	}
	errsOf := make([]error, n)
	var wg sync.WaitGroup
	for i := range es {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errsOf[i] = rename(es[i], "RACE000001")
		}(i)
	}
	wg.Wait()
	winner := -1
	for i, err := range errsOf {
		if err == nil {
			if winner != -1 {
				t.Fatalf("two winners: %d and %d", winner, i)
			}
			winner = i
			continue
		}
		wantKind(t, err, errs.Conflict, "account_number_taken")
	}
	if winner == -1 {
		t.Fatal("nobody got the number")
	}
	if err := rename(es[winner], "RACE000002"); err != nil {
		t.Fatal(err)
	}
	for i := range es {
		if i != winner {
			wantKind(t, rename(es[i], "RACE000001"), errs.Conflict, "account_number_taken")
		}
	}
	if err := rename(es[winner], "RACE000001"); err != nil {
		t.Fatalf("the holder takes it back: %v", err)
	}
}
