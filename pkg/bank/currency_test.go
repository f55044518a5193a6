package bank

import (
	"errors"
	"strings"
	"testing"
	"time"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// Money keeps its currency: every text that shows an amount (notifications,
// audit descriptions, error messages) writes the symbol of the account's
// currency, never a dollar sign for euros.

// auditDesc is the newest audit description of an action.
func auditDesc(t testing.TB, s *Service, action string) string {
	t.Helper()
	var d string
	if err := s.db.Get(&d, `SELECT description FROM audit_log WHERE action_type = $1 ORDER BY id DESC LIMIT 1`, action); err != nil {
		t.Fatalf("audit %s: %v", action, err)
	}
	return d
}

// fieldMessage is the per-field message of a validation error.
func fieldMessage(t testing.TB, err error, field string) string {
	t.Helper()
	var e *errs.Error
	if !errors.As(err, &e) || e.Kind != errs.Invalid {
		t.Fatalf("got %v; want a validation error on %s", err, field)
	}
	return e.Fields[field]
}

func TestTextsWriteTheCurrency(t *testing.T) {
	t.Parallel()
	s := newService(t)
	clock := fixClock(s, time.Now().UTC().Truncate(time.Second))
	alice := newCustomer(t, s, "Alice Smith")
	bob := newCustomer(t, s, "Bob Jones")
	aEUR := openTyped(t, s, alice, "500.00", 3)
	bEUR := openTyped(t, s, bob, "50.00", 3)
	aUSD := openTyped(t, s, alice, "100.00", 1)
	bUSD := openTyped(t, s, bob, "10.00", 1)

	want := func(what, got, text string) {
		t.Helper()
		if got != text {
			t.Fatalf("%s: %q; want %q", what, got, text)
		}
	}
	wantIn := func(what, got, part string) {
		t.Helper()
		if !strings.Contains(got, part) || (strings.Contains(part, "€") && strings.Contains(got, "$")) {
			t.Fatalf("%s: %q; want it to contain %q and no $", what, got, part)
		}
	}
	var opened string
	s.db.Get(&opened, `SELECT description FROM audit_log WHERE action_type = 'ACCOUNT_CREATE' AND account_number = $1`, aEUR.AccountNumber)
	wantIn("EUR account opened", opened, "with €500.00")
	s.db.Get(&opened, `SELECT description FROM audit_log WHERE action_type = 'ACCOUNT_CREATE' AND account_number = $1`, aUSD.AccountNumber)
	if !strings.Contains(opened, "with $100.00") {
		t.Fatalf("USD account opened: %q", opened)
	}

	// Transfers.
	if _, err := s.Transfer(ctx, alice, TransferInput{AccountID: aEUR.AccountNumber, ToAccountID: bEUR.AccountNumber, Amount: amt(t, "1234.50")}, ""); err == nil {
		t.Fatal("overdraft accepted")
	}
	if _, err := s.Transfer(ctx, alice, TransferInput{AccountID: aEUR.AccountNumber, ToAccountID: bEUR.AccountNumber, Amount: amt(t, "12.50")}, ""); err != nil {
		t.Fatal(err)
	}
	want("EUR transfer notification", messagesOf(t, s, bob.UserID)[0], "You received €12.50 from account "+aEUR.AccountNumber)
	wantIn("EUR transfer audit", auditDesc(t, s, "TRANSFER"), "Transferred €12.50 from")
	if _, err := s.Transfer(ctx, alice, TransferInput{AccountID: aUSD.AccountNumber, ToAccountID: bUSD.AccountNumber, Amount: amt(t, "12.50")}, ""); err != nil {
		t.Fatal(err)
	}
	want("USD transfer notification", messagesOf(t, s, bob.UserID)[0], "You received $12.50 from account "+aUSD.AccountNumber)

	// Money requests: created, accepted, declined, expired.
	ask := func(amount string) MoneyRequest {
		t.Helper()
		r, err := s.CreateMoneyRequest(ctx, alice, MoneyRequestInput{RequesterID: aEUR.AccountNumber, RecipientID: bEUR.AccountNumber, Amount: amt(t, amount)})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := ask("3.00")
	want("EUR request notification", messagesOf(t, s, bob.UserID)[0], "Alice Smith requested €3.00 from your account "+bEUR.AccountNumber)
	wantIn("EUR request audit", auditDesc(t, s, "REQUEST_CREATE"), "Requested €3.00 from account")
	if _, err := s.AcceptMoneyRequest(ctx, bob, r.ID, ""); err != nil {
		t.Fatal(err)
	}
	want("EUR accepted notification", messagesOf(t, s, alice.UserID)[0], "Your request for €3.00 from account "+bEUR.AccountNumber+" was accepted")
	wantIn("EUR accept audit", auditDesc(t, s, "REQUEST_ACCEPT"), "paid €3.00 from")
	r = ask("4.00")
	if _, err := s.DeclineMoneyRequest(ctx, bob, r.ID); err != nil {
		t.Fatal(err)
	}
	want("EUR declined notification", messagesOf(t, s, alice.UserID)[0], "Your request for €4.00 from account "+bEUR.AccountNumber+" was declined")
	wantIn("EUR decline audit", auditDesc(t, s, "REQUEST_DECLINE"), "for €4.00")
	ask("5.00")
	clock.add(2 * time.Hour)
	if n, err := s.ExpireMoneyRequests(ctx); err != nil || n != 1 {
		t.Fatalf("expired %d %v", n, err)
	}
	want("EUR expired notification", messagesOf(t, s, alice.UserID)[0], "Your request for €5.00 from account "+bEUR.AccountNumber+" has expired")
	wantIn("EUR expiry audit", auditDesc(t, s, "REQUEST_EXPIRE"), "for €5.00")

	// A balance edit.
	if _, err := s.UpdateAccount(ctx, alice, aEUR.ID, AccountInput{AccountNumber: aEUR.AccountNumber, Balance: amt(t, "1000.00"), AccountTypeID: 3}); err != nil {
		t.Fatal(err)
	}
	wantIn("EUR account update audit", auditDesc(t, s, "ACCOUNT_UPDATE"), "balance €490.50 -> €1,000.00")

	// The largest amount, written in the account's currency.
	over := money.DefaultMax + 1
	_, err := s.Transfer(ctx, alice, TransferInput{AccountID: aEUR.AccountNumber, ToAccountID: bEUR.AccountNumber, Amount: over}, "")
	want("EUR transfer over the maximum", fieldMessage(t, err, "amount"), "Amount must not exceed €1,000,000,000.00")
	_, err = s.Transfer(ctx, alice, TransferInput{AccountID: aUSD.AccountNumber, ToAccountID: bUSD.AccountNumber, Amount: over}, "")
	want("USD transfer over the maximum", fieldMessage(t, err, "amount"), "Amount must not exceed $1,000,000,000.00")
	_, err = s.CreateMoneyRequest(ctx, alice, MoneyRequestInput{RequesterID: aEUR.AccountNumber, RecipientID: bEUR.AccountNumber, Amount: over})
	want("EUR request over the maximum", fieldMessage(t, err, "amount"), "Amount must not exceed €1,000,000,000.00")
	_, err = s.CreateAccount(ctx, alice, AccountInput{AccountNumber: "EUROMAX001", Balance: over, AccountTypeID: 3})
	want("EUR opening balance over the maximum", fieldMessage(t, err, "balance"), "Balance must not exceed €1,000,000,000.00")
	_, err = s.CreateAccount(ctx, alice, AccountInput{AccountNumber: "USDMAX0001", Balance: over, AccountTypeID: 1})
	want("USD opening balance over the maximum", fieldMessage(t, err, "balance"), "Balance must not exceed $1,000,000,000.00")
}
