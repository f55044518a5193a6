package bank

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"meridian/pkg/errs"
)

func TestPayees(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice, bob, carol := newCustomer(t, s, "Alice Saver"), newCustomer(t, s, "Bob Saved"), newCustomer(t, s, "Carol Saved")
	bobAcc, carolAcc := openAccount(t, s, bob, "0"), openAccount(t, s, carol, "0")

	p, err := s.CreatePayee(ctx, alice, PayeeInput{Nickname: "  Bob  ", AccountNumber: bobAcc.AccountNumber})
	if err != nil {
		t.Fatal(err)
	}
	if p.ID <= 0 || p.Nickname != "Bob" || p.AccountNumber != bobAcc.AccountNumber || p.HolderName != "Bob Saved" || time.Since(p.CreatedAt) > time.Minute {
		t.Fatalf("payee %+v", p)
	}
	q, err := s.CreatePayee(ctx, alice, PayeeInput{Nickname: "Carol ☕", AccountNumber: carolAcc.AccountNumber})
	if err != nil {
		t.Fatal(err)
	}
	list, err := s.ListPayees(ctx, alice)
	if err != nil || len(list) != 2 || list[0].ID != q.ID || list[1] != p {
		t.Fatalf("list %+v %v", list, err)
	}
	if other, err := s.ListPayees(ctx, bob); err != nil || len(other) != 0 {
		t.Fatalf("bob sees %+v %v", other, err)
	}
	if n := auditCount(t, s, "PAYEE_CREATE"); n != 2 {
		t.Fatalf("%d PAYEE_CREATE rows", n)
	}

	// The payee follows its account when its holder renumbers it.
	renamed := "RENAMED" + bobAcc.AccountNumber[3:]
	if _, err := s.UpdateAccount(ctx, bob, bobAcc.ID, AccountInput{AccountNumber: renamed, Balance: 0, AccountTypeID: 1}); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.ListPayees(ctx, alice); list[1].AccountNumber != renamed {
		t.Fatalf("after the renumbering %+v", list[1])
	}

	// Someone else's payee is not found, as a missing one.
	wantKind(t, s.DeletePayee(ctx, bob, p.ID), errs.NotFound, "payee_not_found")
	wantKind(t, s.DeletePayee(ctx, alice, 999_999), errs.NotFound, "payee_not_found")
	wantKind(t, s.DeletePayee(ctx, alice, 0), errs.NotFound, "payee_not_found")
	if err := s.DeletePayee(ctx, alice, p.ID); err != nil {
		t.Fatal(err)
	}
	wantKind(t, s.DeletePayee(ctx, alice, p.ID), errs.NotFound, "payee_not_found")
	if list, _ := s.ListPayees(ctx, alice); len(list) != 1 || list[0].ID != q.ID {
		t.Fatalf("after the delete %+v", list)
	}
	if n := auditCount(t, s, "PAYEE_DELETE"); n != 1 {
		t.Fatalf("%d PAYEE_DELETE rows", n)
	}
	// Deleted, it may be saved again.
	if _, err := s.CreatePayee(ctx, alice, PayeeInput{Nickname: "Bob again", AccountNumber: renamed}); err != nil {
		t.Fatal(err)
	}
}

func TestPayeeRefusals(t *testing.T) {
	t.Parallel()
	s := newService(t)
	admin := newAdmin(t, s)
	alice, bob := newCustomer(t, s, "Alice Refuse"), newCustomer(t, s, "Bob Refuse")
	mine, bobAcc := openAccount(t, s, alice, "0"), openAccount(t, s, bob, "0")
	closed := openAccount(t, s, bob, "0")
	if err := s.CloseAccount(ctx, bob, closed.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreatePayee(ctx, alice, PayeeInput{Nickname: "Bob", AccountNumber: bobAcc.AccountNumber}); err != nil {
		t.Fatal(err)
	}
	before := auditCount(t, s, "PAYEE_CREATE")

	_, err := s.CreatePayee(ctx, alice, PayeeInput{Nickname: "Bob twice", AccountNumber: bobAcc.AccountNumber})
	wantKind(t, err, errs.Conflict, "payee_exists")
	if errs.As(err).Message != "This account is already saved as a payee" {
		t.Fatalf("message %q", errs.As(err).Message)
	}
	_, err = s.CreatePayee(ctx, alice, PayeeInput{Nickname: "Me", AccountNumber: mine.AccountNumber})
	wantKind(t, err, errs.Unprocessable, "own_account")
	_, err = s.CreatePayee(ctx, alice, PayeeInput{Nickname: "Nobody", AccountNumber: "NOSUCH00001"})
	wantKind(t, err, errs.NotFound, "account_not_found")
	_, err = s.CreatePayee(ctx, alice, PayeeInput{Nickname: "Closed", AccountNumber: closed.AccountNumber})
	wantKind(t, err, errs.NotFound, "account_not_found")

	for name, in := range map[string]PayeeInput{
		"no nickname":       {Nickname: "   ", AccountNumber: bobAcc.AccountNumber},
		"long nickname":     {Nickname: strings.Repeat("é", 101), AccountNumber: bobAcc.AccountNumber},
		"control character": {Nickname: "Bob\x00", AccountNumber: bobAcc.AccountNumber},
		"newline":           {Nickname: "Bob\nJones", AccountNumber: bobAcc.AccountNumber},
		"not UTF-8":         {Nickname: "Bob\xff", AccountNumber: bobAcc.AccountNumber},
		"no account":        {Nickname: "Bob"},
		"long account":      {Nickname: "Bob", AccountNumber: strings.Repeat("1", 35)},
	} {
		_, err := s.CreatePayee(ctx, alice, in)
		var e *errs.Error
		if !errors.As(err, &e) || e.Kind != errs.Invalid || len(e.Fields) != 1 {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := s.CreatePayee(ctx, alice, PayeeInput{Nickname: strings.Repeat("é", 100), AccountNumber: closed.AccountNumber}); errs.KindOf(err) == errs.Invalid {
		t.Fatalf("a nickname of 100 characters: %v", err)
	}
	other := bob.UserID
	_, err = s.CreatePayee(ctx, alice, PayeeInput{Nickname: "Bob", AccountNumber: bobAcc.AccountNumber, UserID: &other})
	wantKind(t, err, errs.Forbidden, "forbidden")
	_, err = s.CreatePayee(ctx, admin, PayeeInput{Nickname: "Bob", AccountNumber: bobAcc.AccountNumber})
	wantKind(t, err, errs.Forbidden, "customer_only")
	_, err = s.ListPayees(ctx, admin)
	wantKind(t, err, errs.Forbidden, "customer_only")
	wantKind(t, s.DeletePayee(ctx, admin, 1), errs.Forbidden, "customer_only")
	if n := auditCount(t, s, "PAYEE_CREATE"); n != before {
		t.Fatalf("refusals wrote %d audit rows", n-before)
	}
}

// Saving the same account at once from many requests: one payee, the rest
// payee_exists.
func TestPayeeCreateRace(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice, bob := newCustomer(t, s, "Alice Race"), newCustomer(t, s, "Bob Race")
	bobAcc := openAccount(t, s, bob, "0")
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, dup := 0, 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.CreatePayee(ctx, alice, PayeeInput{Nickname: "Bob", AccountNumber: bobAcc.AccountNumber})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case errs.As(err).Code == "payee_exists":
				dup++
			default:
				t.Errorf("create: %v", err)
			}
		}()
	}
	wg.Wait()
	if ok != 1 || dup != 7 {
		t.Fatalf("%d created, %d payee_exists", ok, dup)
	}
}

// A payee shows its holder's name: saving one counts against the account
// lookup limit, so payees are no way around it.
func TestPayeeCreateCountsAsLookup(t *testing.T) {
	t.Parallel()
	base := newService(t)
	s := New(base.db, base.tokens, Settings{LookupPerMinute: 2})
	alice, bob := newCustomer(t, s, "Alice Enumerate"), newCustomer(t, s, "Bob Enumerate")
	acc := openAccount(t, s, bob, "0")
	if _, err := s.LookupAccount(ctx, alice, acc.AccountNumber); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreatePayee(ctx, alice, PayeeInput{Nickname: "Bob", AccountNumber: acc.AccountNumber}); err != nil {
		t.Fatal(err)
	}
	_, err := s.CreatePayee(ctx, alice, PayeeInput{Nickname: "Guess", AccountNumber: "GUESS000001"})
	wantKind(t, err, errs.RateLimited, "too_many_lookups")
}
