package bank

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"meridian/pkg/auth"
	"meridian/pkg/errs"
	"meridian/pkg/money"
	"meridian/pkg/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

var ctx = context.Background()

const testPassword = "password123"

// newService returns a Service on a fresh, migrated database of its own.
func newService(t testing.TB) *Service {
	t.Helper()
	tokens, err := auth.NewTokens([]byte(strings.Repeat("s", 32)), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return New(testdb.New(t), tokens, Settings{RequestsTTL: time.Hour, LookupPerMinute: 1000})
}

var userSeq atomic.Int64

// newCustomer registers a customer with a unique email and signs them in.
func newCustomer(t testing.TB, s *Service, name string) Actor {
	t.Helper()
	email := fmt.Sprintf("%s%d@example.test", strings.ToLower(strings.Fields(name)[0]), userSeq.Add(1))
	if _, err := s.Register(ctx, Actor{}, RegisterInput{FullName: name, Email: email, PhoneNumber: "+1 555 0100", Password: testPassword}); err != nil {
		t.Fatalf("register %s: %v", name, err)
	}
	return signIn(t, s, email)
}

// newAdmin creates an admin from the CLI and signs them in.
func newAdmin(t testing.TB, s *Service) Actor {
	t.Helper()
	email := fmt.Sprintf("admin%d@example.test", userSeq.Add(1))
	if _, err := s.Register(ctx, CLIActor, RegisterInput{FullName: "Ada Admin", Email: email, PhoneNumber: "+1 555 0199", Password: testPassword, Role: RoleAdmin}); err != nil {
		t.Fatalf("register admin: %v", err)
	}
	return signIn(t, s, email)
}

// signIn logs in with the test password and returns the authenticated actor.
func signIn(t testing.TB, s *Service, email string) Actor {
	t.Helper()
	res, err := s.Login(ctx, LoginInput{Email: email, Password: testPassword})
	if err != nil {
		t.Fatalf("login %s: %v", email, err)
	}
	a, err := s.Authenticate(ctx, res.Token)
	if err != nil {
		t.Fatalf("authenticate %s: %v", email, err)
	}
	return a
}

var accountSeq atomic.Int64

// openAccount opens a USD checking account with the given opening balance (e.g. "100.00").
func openAccount(t testing.TB, s *Service, a Actor, balance string) Account {
	t.Helper()
	b, err := money.Parse(balance)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := s.CreateAccount(ctx, a, AccountInput{AccountNumber: fmt.Sprintf("ACC%07d", accountSeq.Add(1)), Balance: b, AccountTypeID: 1})
	if err != nil {
		t.Fatalf("open account: %v", err)
	}
	return acc
}

// wantKind fails unless err is a domain error of the given kind (and code, if not empty).
func wantKind(t testing.TB, err error, kind errs.Kind, code string) {
	t.Helper()
	var e *errs.Error
	if err == nil || !errors.As(err, &e) || e.Kind != kind || (code != "" && e.Code != code) {
		t.Fatalf("got error %v; want kind %d code %q", err, kind, code)
	}
}

// auditCount counts audit rows of an action.
func auditCount(t testing.TB, s *Service, action string) int {
	t.Helper()
	var n int
	if err := s.db.Get(&n, `SELECT count(*) FROM audit_log WHERE action_type = $1`, action); err != nil {
		t.Fatal(err)
	}
	return n
}

// balanceOf reads an account's balance from the database.
func balanceOf(t testing.TB, s *Service, id int64) money.Amount {
	t.Helper()
	var b money.Amount
	if err := s.db.Get(&b, `SELECT balance FROM accounts WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	return b
}

// ledgerSum is an account's balance as its ledger says it (the view
// ledger_balances, migrations/0010: credits minus debits).
func ledgerSum(t testing.TB, s *Service, id int64) money.Amount {
	t.Helper()
	var b money.Amount
	if err := s.db.Get(&b, `SELECT balance FROM ledger_balances WHERE account_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	return b
}
