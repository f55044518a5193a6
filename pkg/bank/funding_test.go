package bank

import (
	"strconv"
	"strings"
	"testing"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// ledgerRows counts an account's ledger rows.
func ledgerRows(t testing.TB, s *Service, id int64) int {
	t.Helper()
	var n int
	if err := s.db.Get(&n, `SELECT count(*) FROM transactions WHERE account_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestDepositAndWithdraw(t *testing.T) {
	t.Parallel()
	s := newService(t)
	admin := newAdmin(t, s)
	c := newCustomer(t, s, "Finn Funds")
	acc := openAccount(t, s, c, "10.00")

	res, err := s.Deposit(ctx, admin, acc.AccountNumber, FundsInput{Amount: 12_50}, "")
	if err != nil {
		t.Fatal(err)
	}
	dep := res.Transaction
	// The other party of a deposit is the bank: its vault (double entry).
	if dep.TransactionType != "CREDIT" || dep.Amount != 12_50 || dep.Description != "Deposit" || dep.AccountID != "MERIDIANVAULTUSD" || dep.ToAccountID != acc.AccountNumber || dep.ID == 0 {
		t.Fatalf("deposit row %+v", dep)
	}
	res, err = s.Withdraw(ctx, CLIActor, acc.AccountNumber, FundsInput{Amount: 2_25, Description: " Cash at the branch "}, "")
	if err != nil {
		t.Fatal(err)
	}
	wd := res.Transaction
	if wd.TransactionType != "DEBIT" || wd.Amount != 2_25 || wd.Description != "Cash at the branch" || wd.ToAccountID != "MERIDIANVAULTUSD" {
		t.Fatalf("withdrawal row %+v", wd)
	}
	if b := balanceOf(t, s, acc.ID); b != 20_25 || ledgerSum(t, s, acc.ID) != b {
		t.Fatalf("balance %s, ledger %s; want 20.25 both", b, ledgerSum(t, s, acc.ID))
	}
	if auditCount(t, s, "DEPOSIT") != 1 || auditCount(t, s, "WITHDRAWAL") != 1 {
		t.Fatal("each movement writes one audit row")
	}
	// The vault holds the other side: 12.50 in, 2.25 out, and the opening 10.00.
	var vault money.Amount
	s.db.Get(&vault, `SELECT balance FROM accounts WHERE account_number = 'MERIDIANVAULTUSD'`)
	if vault != -20_25 {
		t.Fatalf("the vault holds %s, want -20.25", vault)
	}
	wantBooksBalanced(t, s)
	var desc string
	s.db.Get(&desc, `SELECT description FROM audit_log WHERE action_type = 'WITHDRAWAL'`)
	if desc != "Withdrew $2.25 from "+acc.AccountNumber+" (transaction "+strconv.FormatInt(wd.ID, 10)+") (via CLI)" {
		t.Fatalf("withdrawal audit %q", desc)
	}
	msgs := strings.Join(messagesOf(t, s, c.UserID), "|")
	if !strings.Contains(msgs, "$12.50 was deposited into your account "+acc.AccountNumber) || !strings.Contains(msgs, "$2.25 was withdrawn from your account "+acc.AccountNumber) {
		t.Fatalf("the holder was not told: %s", msgs)
	}

	// Refusals move nothing and write nothing.
	rows := ledgerRows(t, s, acc.ID)
	_, err = s.Withdraw(ctx, admin, acc.AccountNumber, FundsInput{Amount: 20_26}, "")
	wantKind(t, err, errs.Unprocessable, "insufficient_funds")
	_, err = s.Deposit(ctx, c, acc.AccountNumber, FundsInput{Amount: 1_00}, "")
	wantKind(t, err, errs.Forbidden, "admin_only")
	_, err = s.Withdraw(ctx, c, acc.AccountNumber, FundsInput{Amount: 1_00}, "")
	wantKind(t, err, errs.Forbidden, "admin_only")
	for _, n := range []string{"NOPE000000", "bad number!", "", strings.Repeat("9", 40)} {
		_, err = s.Deposit(ctx, admin, n, FundsInput{Amount: 1_00}, "")
		wantKind(t, err, errs.NotFound, "account_not_found")
	}
	_, err = s.Deposit(ctx, admin, acc.AccountNumber, FundsInput{Amount: 0}, "")
	wantKind(t, err, errs.Invalid, "invalid_input")
	_, err = s.Deposit(ctx, admin, acc.AccountNumber, FundsInput{Amount: money.DefaultMax + 1}, "")
	wantKind(t, err, errs.Invalid, "invalid_input")
	_, err = s.Deposit(ctx, admin, acc.AccountNumber, FundsInput{Amount: 1_00, Description: "bad\x00"}, "")
	wantKind(t, err, errs.Invalid, "invalid_input")
	if b := balanceOf(t, s, acc.ID); b != 20_25 || ledgerRows(t, s, acc.ID) != rows {
		t.Fatalf("a refusal moved money: balance %s, %d ledger rows (was %d)", b, ledgerRows(t, s, acc.ID), rows)
	}
	if auditCount(t, s, "DEPOSIT") != 1 || auditCount(t, s, "WITHDRAWAL") != 1 {
		t.Fatal("a refusal was audited as a movement")
	}

	// A closed account takes nothing, and gives nothing.
	empty := openAccount(t, s, c, "0")
	if err := s.CloseAccount(ctx, c, empty.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Deposit(ctx, admin, empty.AccountNumber, FundsInput{Amount: 1_00}, "")
	wantKind(t, err, errs.Unprocessable, "account_closed")

	// A customer promoted to Admin keeps an open, empty account: it takes no deposit.
	p := newCustomer(t, s, "Pia Promoted")
	pacc := openAccount(t, s, p, "0")
	if _, err := s.AssignRole(ctx, admin, p.UserID, []string{RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Deposit(ctx, admin, pacc.AccountNumber, FundsInput{Amount: 1_00}, "")
	wantKind(t, err, errs.Unprocessable, "holder_not_customer")
}

// Texts write the account's currency.
func TestDepositInEuros(t *testing.T) {
	t.Parallel()
	s := newService(t)
	admin := newAdmin(t, s)
	c := newCustomer(t, s, "Eli Euro")
	acc, err := s.CreateAccount(ctx, c, AccountInput{AccountNumber: "EUR0000001", AccountTypeID: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Deposit(ctx, admin, acc.AccountNumber, FundsInput{Amount: 1_250_50}, ""); err != nil {
		t.Fatal(err)
	}
	if msgs := strings.Join(messagesOf(t, s, c.UserID), "|"); !strings.Contains(msgs, "€1,250.50 was deposited") {
		t.Fatalf("notification %q", msgs)
	}
	_, err = s.Deposit(ctx, admin, acc.AccountNumber, FundsInput{Amount: money.DefaultMax + 1}, "")
	if e := errs.As(err); e.Fields["amount"] != "Amount must not exceed €1,000,000,000.00" {
		t.Fatalf("over the maximum: %v", err)
	}
}

// With customer_funding off an account opens at 0 and its balance cannot be
// edited; the bank's deposit is how money comes in.
func TestCustomerFundingDisabled(t *testing.T) {
	t.Parallel()
	s := newServiceWith(t, func(st *Settings) { st.DisableCustomerFunding = true })
	if s.PublicConfig().CustomerFunding {
		t.Fatal("PublicConfig says customers fund accounts")
	}
	admin := newAdmin(t, s)
	c := newCustomer(t, s, "Nia Nofund")
	_, err := s.CreateAccount(ctx, c, AccountInput{AccountNumber: "NOFUND0001", Balance: 5_00, AccountTypeID: 1})
	wantKind(t, err, errs.Unprocessable, "customer_funding_disabled")
	acc := openAccount(t, s, c, "0")
	_, err = s.UpdateAccount(ctx, c, acc.ID, AccountInput{AccountNumber: acc.AccountNumber, Balance: 1_00, AccountTypeID: 1})
	wantKind(t, err, errs.Unprocessable, "customer_funding_disabled")

	if _, err := s.Deposit(ctx, admin, acc.AccountNumber, FundsInput{Amount: 40_00}, ""); err != nil {
		t.Fatal(err)
	}
	// An edit that leaves the balance as it is still works.
	got, err := s.UpdateAccount(ctx, c, acc.ID, AccountInput{AccountNumber: acc.AccountNumber + "X", Balance: 40_00, AccountTypeID: 2})
	if err != nil || got.Balance != 40_00 || got.TypeName != "Savings" {
		t.Fatalf("an edit without a balance change: %+v %v", got, err)
	}
	_, err = s.UpdateAccount(ctx, c, acc.ID, AccountInput{AccountNumber: acc.AccountNumber, Balance: 0, AccountTypeID: 1})
	wantKind(t, err, errs.Unprocessable, "customer_funding_disabled")
	if b := balanceOf(t, s, acc.ID); b != 40_00 || ledgerSum(t, s, acc.ID) != b {
		t.Fatalf("balance %s", b)
	}

	// By default (the spec's behaviour) both work.
	on := newService(t)
	if !on.PublicConfig().CustomerFunding {
		t.Fatal("PublicConfig: customer funding is on by default")
	}
	oc := newCustomer(t, on, "Ona Funded")
	oacc := openAccount(t, on, oc, "5.00")
	if _, err := on.UpdateAccount(ctx, oc, oacc.ID, AccountInput{AccountNumber: oacc.AccountNumber, Balance: 7_00, AccountTypeID: 1}); err != nil {
		t.Fatal(err)
	}
}

// The demo data seeds with customer_funding off too: the bank deposits the
// opening balances.
func TestSeedDemoWithoutCustomerFunding(t *testing.T) {
	t.Parallel()
	s := newServiceWith(t, func(st *Settings) { st.DisableCustomerFunding = true })
	if created, err := s.SeedDemo(ctx); err != nil || !created {
		t.Fatalf("SeedDemo: %v %v", created, err)
	}
	var deposits, openings int
	s.db.Get(&deposits, `SELECT count(*) FROM transactions WHERE kind = 'deposit' AND user_id IS NOT NULL`)
	s.db.Get(&openings, `SELECT count(*) FROM transactions WHERE kind = 'opening' AND user_id IS NOT NULL`)
	if deposits != len(demoAccounts) || openings != 0 {
		t.Fatalf("%d deposits, %d opening balances; want %d and 0", deposits, openings, len(demoAccounts))
	}
	wantLedgersBalanced(t, s)
}

// A deposit under an Idempotency-Key (the CLI's --idempotency-key): the same
// key answers the first deposit again and credits nothing twice; another
// amount under it is refused 409. Keys are the actor's: the operator at the
// command line and an administrator each have their own.
func TestDepositIdempotency(t *testing.T) {
	t.Parallel()
	s := newService(t)
	admin := newAdmin(t, s)
	acc := openAccount(t, s, newCustomer(t, s, "Ida Idem"), "0")
	first, err := s.Deposit(ctx, CLIActor, acc.AccountNumber, FundsInput{Amount: 50_00}, "branch-7")
	if err != nil || first.Replayed {
		t.Fatalf("first %+v %v", first, err)
	}
	again, err := s.Deposit(ctx, CLIActor, acc.AccountNumber, FundsInput{Amount: 50_00}, "branch-7")
	if err != nil || !again.Replayed || again.Transaction != first.Transaction {
		t.Fatalf("again %+v %v", again, err)
	}
	_, err = s.Deposit(ctx, CLIActor, acc.AccountNumber, FundsInput{Amount: 50_01}, "branch-7")
	wantKind(t, err, errs.Conflict, "idempotency_key_reused")
	_, err = s.Withdraw(ctx, CLIActor, acc.AccountNumber, FundsInput{Amount: 50_00}, "branch-7")
	wantKind(t, err, errs.Conflict, "idempotency_key_reused")
	if res, err := s.Deposit(ctx, admin, acc.AccountNumber, FundsInput{Amount: 50_00}, "branch-7"); err != nil || res.Replayed {
		t.Fatalf("the admin's own key: %+v %v", res, err)
	}
	if b := balanceOf(t, s, acc.ID); b != 100_00 {
		t.Fatalf("balance %s, want 100.00", b)
	}
}
