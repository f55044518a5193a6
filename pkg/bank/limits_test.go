package bank

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// newLimitedService is newService with the default daily limit set to limit.
func newLimitedService(t testing.TB, limit string) *Service {
	t.Helper()
	s := newService(t)
	s.settings.DailyTransferLimit = amt(t, limit)
	return s
}

// passDay makes the database's today look like a new day to the daily
// limit: every count moves one day back, as if sent yesterday. (The day of
// a payment is the database's; the test cannot move its clock on.)
func passDay(t testing.TB, s *Service) {
	t.Helper()
	if _, err := s.db.Exec(`UPDATE daily_outgoing SET day = day - 1`); err != nil {
		t.Fatal(err)
	}
}

// sendTo transfers amount from one account to another as a.
func sendTo(s *Service, a Actor, from, to Account, amount money.Amount, key string) error {
	_, err := s.Transfer(ctx, a, TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: amount}, key)
	return err
}

// sentToday sums the DEBIT rows of account id written by payments to
// another account (transfers and accepted requests): the ledger's view of
// what the limit counted.
func sentToday(t testing.TB, s *Service, id int64) money.Amount {
	t.Helper()
	var sum money.Amount
	if err := s.db.Get(&sum, `SELECT coalesce(sum(amount), 0) FROM transactions
		WHERE account_id = $1 AND transaction_type = 'DEBIT' AND kind IN ('transfer', 'request')`, id); err != nil {
		t.Fatal(err)
	}
	return sum
}

// limitsOf returns the actor's limits by currency.
func limitsOf(t testing.TB, s *Service, a Actor) map[string]DailyLimit {
	t.Helper()
	rows, err := s.DailyLimits(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]DailyLimit{}
	for _, r := range rows {
		out[r.Currency] = r
	}
	return out
}

// 32 transfers of 10.00 at once against a limit of 100.00, from four
// accounts of one customer to four others (the accounts' locks alone would
// queue transfers that share one):
// exactly ten go through, the others are refused with daily_limit_exceeded,
// and what left the accounts is exactly the limit.
func TestDailyLimitExactUnderConcurrency(t *testing.T) {
	t.Parallel()
	s := newLimitedService(t, "100.00")
	alice, bob := newCustomer(t, s, "Alice Limit"), newCustomer(t, s, "Bob Limit")
	var froms, tos []Account
	for range 4 {
		froms = append(froms, openAccount(t, s, alice, "1000.00"))
		tos = append(tos, openAccount(t, s, bob, "0"))
	}

	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, refused := 0, 0
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := sendTo(s, alice, froms[i%len(froms)], tos[i%len(tos)], 10_00, "")
			mu.Lock()
			defer mu.Unlock()
			var e *errs.Error
			switch {
			case err == nil:
				ok++
			case errors.As(err, &e) && e.Code == "daily_limit_exceeded" && e.Kind == errs.Unprocessable:
				refused++
			default:
				t.Errorf("transfer: %v", err)
			}
		}()
	}
	wg.Wait()
	if ok != 10 || refused != 22 {
		t.Fatalf("%d transfers went through and %d were refused; want 10 and 22", ok, refused)
	}
	var sent, left, received money.Amount
	for i, from := range froms {
		received += balanceOf(t, s, tos[i].ID)
		sent += sentToday(t, s, from.ID)
		b := balanceOf(t, s, from.ID)
		if b != ledgerSum(t, s, from.ID) {
			t.Fatalf("account %d: balance differs from its ledger", from.ID)
		}
		left += b
	}
	if sent != 100_00 || left != 3900_00 || received != 100_00 {
		t.Fatalf("sent today %s, left %s; want 100.00 and 3900.00", sent, left)
	}
	if l := limitsOf(t, s, alice)["USD"]; l.UsedToday != 100_00 || l.DailyTransferLimit != 100_00 {
		t.Fatalf("limits %+v", l)
	}
	if n := auditCount(t, s, "TRANSFER"); n != 10 {
		t.Fatalf("%d TRANSFER audit rows, want 10", n)
	}
}

// A refusal moves nothing, writes nothing and gives the Idempotency-Key
// back; its message is the contract's.
func TestDailyLimitRefusalMovesNothing(t *testing.T) {
	t.Parallel()
	s := newLimitedService(t, "100.00")
	alice, bob := newCustomer(t, s, "Alice Refused"), newCustomer(t, s, "Bob Refused")
	from, to := openAccount(t, s, alice, "1000.00"), openAccount(t, s, bob, "0")

	// One transfer over the limit on its own.
	before := stateOf(t, s)
	err := sendTo(s, alice, from, to, 100_01, "k-over")
	wantKind(t, err, errs.Unprocessable, "daily_limit_exceeded")
	if errs.As(err).Message != "Daily transfer limit exceeded" {
		t.Fatalf("message %q", errs.As(err).Message)
	}
	wantUnchanged(t, s, before)

	// Exactly the limit goes through; a cent more is refused.
	if err := sendTo(s, alice, from, to, 100_00, "k-all"); err != nil {
		t.Fatal(err)
	}
	before = stateOf(t, s)
	wantKind(t, sendTo(s, alice, from, to, 1, "k-cent"), errs.Unprocessable, "daily_limit_exceeded")
	wantUnchanged(t, s, before)

	// The refused key was given back: tomorrow it goes through under it.
	passDay(t, s)
	if err := sendTo(s, alice, from, to, 1, "k-cent"); err != nil {
		t.Fatalf("the refused key tomorrow: %v", err)
	}
}

// Insufficient funds is told before the limit, and counts nothing.
func TestDailyLimitAfterFunds(t *testing.T) {
	t.Parallel()
	s := newLimitedService(t, "100.00")
	alice, bob := newCustomer(t, s, "Alice Funds"), newCustomer(t, s, "Bob Funds")
	from, to := openAccount(t, s, alice, "50.00"), openAccount(t, s, bob, "0")
	wantKind(t, sendTo(s, alice, from, to, 200_00, ""), errs.Unprocessable, "insufficient_funds")
	wantKind(t, sendTo(s, alice, from, to, 60_00, ""), errs.Unprocessable, "insufficient_funds")
	if l := limitsOf(t, s, alice)["USD"]; l.UsedToday != 0 {
		t.Fatalf("refused transfers counted: %+v", l)
	}
}

// Paying a money request counts against the payer's limit, under the same
// lock as transfers: requests accepted and transfers made at once never
// pass the limit together, and an accept over it leaves the request
// PENDING with nothing moved.
func TestDailyLimitCountsAcceptedRequests(t *testing.T) {
	t.Parallel()
	s := newLimitedService(t, "100.00")
	alice, bob := newCustomer(t, s, "Alice Payer"), newCustomer(t, s, "Bob Asker")
	from, to := openAccount(t, s, alice, "1000.00"), openAccount(t, s, bob, "0")
	ask := func(amount string) MoneyRequest {
		r, err := s.CreateMoneyRequest(ctx, bob, MoneyRequestInput{RequesterID: to.AccountNumber, RecipientID: from.AccountNumber, Amount: amt(t, amount)})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	if _, err := s.AcceptMoneyRequest(ctx, alice, ask("60.00").ID, ""); err != nil {
		t.Fatal(err)
	}
	wantKind(t, sendTo(s, alice, from, to, 50_00, ""), errs.Unprocessable, "daily_limit_exceeded")
	if err := sendTo(s, alice, from, to, 40_00, ""); err != nil {
		t.Fatal(err)
	}
	r := ask("0.01")
	before := stateOf(t, s)
	_, err := s.AcceptMoneyRequest(ctx, alice, r.ID, "")
	wantKind(t, err, errs.Unprocessable, "daily_limit_exceeded")
	wantUnchanged(t, s, before)
	if requestStatus(t, s, r.ID) != RequestPending {
		t.Fatal("the refused request is no longer PENDING")
	}

	// The next day: ten requests of 10.00 accepted while ten transfers of
	// 10.00 run from another of her accounts, against 100.00: exactly ten
	// payments in all.
	passDay(t, s)
	reqs := make([]MoneyRequest, 10)
	for i := range reqs {
		reqs[i] = ask("10.00")
	}
	other, carol := openAccount(t, s, alice, "1000.00"), openAccount(t, s, newCustomer(t, s, "Carol Payee"), "0")
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	count := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		var e *errs.Error
		switch {
		case err == nil:
			ok++
		case errors.As(err, &e) && e.Code == "daily_limit_exceeded":
		default:
			t.Errorf("payment: %v", err)
		}
	}
	for i := range 10 {
		wg.Add(2)
		go func() { defer wg.Done(); _, err := s.AcceptMoneyRequest(ctx, alice, reqs[i].ID, ""); count(err) }()
		go func() { defer wg.Done(); count(sendTo(s, alice, other, carol, 10_00, "")) }()
	}
	wg.Wait()
	if ok != 10 {
		t.Fatalf("%d payments of 10.00 went through against a limit of 100.00", ok)
	}
	if got := sentToday(t, s, from.ID) + sentToday(t, s, other.ID); got != 200_00 { // 60.00 + 40.00 on the first day, 100.00 on the second
		t.Fatalf("sent over two days %s, want 200.00", got)
	}
	if l := limitsOf(t, s, alice)["USD"]; l.UsedToday != 100_00 {
		t.Fatalf("used today %s", l.UsedToday)
	}
}

// An administrator's limit for one user wins over the default, both ways;
// null gives the default back. Only an administrator sets one, audited.
func TestDailyLimitPerUserOverride(t *testing.T) {
	t.Parallel()
	s := newLimitedService(t, "100.00")
	admin := newAdmin(t, s)
	alice, carol, bob := newCustomer(t, s, "Alice Override"), newCustomer(t, s, "Carol Default"), newCustomer(t, s, "Bob Payee")
	aliceAcc, carolAcc, to := openAccount(t, s, alice, "1000.00"), openAccount(t, s, carol, "1000.00"), openAccount(t, s, bob, "0")

	three := amt(t, "300.00")
	// A raise (from the default 100.00) waits for a second administrator.
	got, err := s.SetDailyLimit(ctx, admin, alice.UserID, &three)
	if err != nil || got.Approval == nil || got.Approval.Kind != "limit_raise" || got.Approval.Status != "pending" {
		t.Fatalf("set: %+v %v", got, err)
	}
	if l := limitsOf(t, s, alice)["USD"]; l.DailyTransferLimit != 100_00 {
		t.Fatalf("the raise ran before its approval: %+v", l)
	}
	d, err := s.ApproveApproval(ctx, newAdmin(t, s), got.Approval.ID)
	if err != nil || d.Approval.Status != "approved" {
		t.Fatalf("approve: %+v %v", d, err)
	}
	if err := sendTo(s, alice, aliceAcc, to, 250_00, ""); err != nil {
		t.Fatalf("alice within her own limit: %v", err)
	}
	wantKind(t, sendTo(s, carol, carolAcc, to, 150_00, ""), errs.Unprocessable, "daily_limit_exceeded")
	if l := limitsOf(t, s, alice)["USD"]; l.DailyTransferLimit != three || l.UsedToday != 250_00 {
		t.Fatalf("alice's limits %+v", l)
	}
	if l := limitsOf(t, s, carol)["USD"]; l.DailyTransferLimit != 100_00 || l.UsedToday != 0 {
		t.Fatalf("carol's limits %+v", l)
	}

	// Lower than the default, and lower than what she sent today.
	ten := amt(t, "10.00")
	if _, err := s.SetDailyLimit(ctx, CLIActor, carol.UserID, &ten); err != nil {
		t.Fatal(err)
	}
	wantKind(t, sendTo(s, carol, carolAcc, to, 10_01, ""), errs.Unprocessable, "daily_limit_exceeded")
	req, err := s.CreateMoneyRequest(ctx, bob, MoneyRequestInput{RequesterID: to.AccountNumber, RecipientID: carolAcc.AccountNumber, Amount: 10_01})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.AcceptMoneyRequest(ctx, carol, req.ID, "")
	wantKind(t, err, errs.Unprocessable, "daily_limit_exceeded")
	if err := sendTo(s, carol, carolAcc, to, 10_00, ""); err != nil {
		t.Fatal(err)
	}
	zero := money.Amount(0)
	if _, err := s.SetDailyLimit(ctx, admin, carol.UserID, &zero); err != nil {
		t.Fatal(err)
	}
	wantKind(t, sendTo(s, carol, carolAcc, to, 1, ""), errs.Unprocessable, "daily_limit_exceeded")

	// Back to the default: alice has sent 250.00 of 100.00.
	got, err = s.SetDailyLimit(ctx, admin, alice.UserID, nil)
	if err != nil || !got.Default || got.DailyTransferLimit != 100_00 {
		t.Fatalf("reset: %+v %v", got, err)
	}
	wantKind(t, sendTo(s, alice, aliceAcc, to, 1, ""), errs.Unprocessable, "daily_limit_exceeded")

	_, err = s.SetDailyLimit(ctx, alice, alice.UserID, &three)
	wantKind(t, err, errs.Forbidden, "admin_only")
	_, err = s.SetDailyLimit(ctx, admin, 999_999, &three)
	wantKind(t, err, errs.NotFound, "user_not_found")
	if n := auditCount(t, s, "USER_LIMIT"); n != 4 {
		t.Fatalf("%d USER_LIMIT audit rows, want 4", n)
	}
	_, err = s.DailyLimits(ctx, admin)
	wantKind(t, err, errs.Forbidden, "customer_only")
}

func TestLimitInput(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{`12.5`: "12.50", `"100.00"`: "100.00", `0`: "0.00", `null`: "default"} {
		got, err := LimitInput{DailyTransferLimit: []byte(raw)}.Limit()
		if err != nil || (got == nil) != (want == "default") || (got != nil && got.String() != want) {
			t.Fatalf("%s: %v %v", raw, got, err)
		}
	}
	for _, raw := range []string{``, `-1`, `1.234`, `"ten"`, `true`, `1e3`} {
		_, err := LimitInput{DailyTransferLimit: []byte(raw)}.Limit()
		wantKind(t, err, errs.Invalid, "invalid_input")
	}
}

// Each currency has its own count.
func TestDailyLimitPerCurrency(t *testing.T) {
	t.Parallel()
	s := newLimitedService(t, "100.00")
	alice, bob := newCustomer(t, s, "Alice Euro"), newCustomer(t, s, "Bob Euro")
	usd, eur := openTyped(t, s, alice, "1000.00", 1), openTyped(t, s, alice, "1000.00", 3)
	bobUSD, bobEUR := openTyped(t, s, bob, "0", 1), openTyped(t, s, bob, "0", 3)
	if err := sendTo(s, alice, usd, bobUSD, 100_00, ""); err != nil {
		t.Fatal(err)
	}
	if err := sendTo(s, alice, eur, bobEUR, 100_00, ""); err != nil {
		t.Fatalf("euros after a day's dollars: %v", err)
	}
	wantKind(t, sendTo(s, alice, usd, bobUSD, 1, ""), errs.Unprocessable, "daily_limit_exceeded")
	wantKind(t, sendTo(s, alice, eur, bobEUR, 1, ""), errs.Unprocessable, "daily_limit_exceeded")
	rows, err := s.DailyLimits(ctx, alice)
	if err != nil || len(rows) != 2 || rows[0].Currency != "EUR" || rows[1].Currency != "USD" || rows[0].UsedToday != 100_00 || rows[1].UsedToday != 100_00 {
		t.Fatalf("limits %+v %v", rows, err)
	}
	if rows := limitsOf(t, s, bob); len(rows) != 2 || rows["USD"].UsedToday != 0 {
		t.Fatalf("bob's limits %+v", rows)
	}
}

// The count starts again at 00:00 UTC, by the database's clock: a payment
// at 23:59 counts against its day, one a minute later against the next.
// Old days' counts are purged.
func TestDailyLimitResetsNextDay(t *testing.T) {
	t.Parallel()
	s := newLimitedService(t, "100.00")
	alice, bob := newCustomer(t, s, "Alice Midnight"), newCustomer(t, s, "Bob Midnight")
	from, to := openAccount(t, s, alice, "1000.00"), openAccount(t, s, bob, "0")
	var today time.Time
	if err := s.db.Get(&today, `SELECT date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`); err != nil {
		t.Fatal(err)
	}
	// Yesterday at 23:59 (a backdated posting, as the demo seed writes its
	// history): the whole limit, then nothing more that day.
	lateYesterday := backdated(ctx, today.Add(-time.Minute))
	sendAt := func(c context.Context, amount money.Amount) error {
		_, err := s.Transfer(c, alice, TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: amount}, "")
		return err
	}
	if err := sendAt(lateYesterday, 100_00); err != nil {
		t.Fatal(err)
	}
	wantKind(t, sendAt(lateYesterday, 1), errs.Unprocessable, "daily_limit_exceeded")
	if l := limitsOf(t, s, alice)["USD"]; l.UsedToday != 0 {
		t.Fatalf("used today %s after yesterday's payments", l.UsedToday)
	}
	// Today (00:01, and now): the count started again.
	if err := sendAt(backdated(ctx, today.Add(time.Minute)), 60_00); err != nil {
		t.Fatalf("a new day: %v", err)
	}
	if err := sendAt(ctx, 40_00); err != nil {
		t.Fatalf("a new day: %v", err)
	}
	wantKind(t, sendAt(ctx, 1), errs.Unprocessable, "daily_limit_exceeded")
	if l := limitsOf(t, s, alice)["USD"]; l.UsedToday != 100_00 {
		t.Fatalf("used today %s, want 100.00", l.UsedToday)
	}

	days := func() int {
		var n int
		if err := s.db.Get(&n, `SELECT count(*) FROM daily_outgoing`); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := days(); n != 2 {
		t.Fatalf("%d daily rows", n)
	}
	passDay(t, s)
	passDay(t, s) // yesterday's row is now three days old, today's two
	if _, err := s.ExpireMoneyRequests(ctx); err != nil {
		t.Fatal(err)
	}
	if n := days(); n != 0 {
		t.Fatalf("%d daily rows after the purge", n)
	}
}

// An administrator's deposits and withdrawals, and transfers between one's
// own accounts, do not count.
func TestDailyLimitIgnoresDepositsAndOwnAccounts(t *testing.T) {
	t.Parallel()
	s := newLimitedService(t, "100.00")
	admin := newAdmin(t, s)
	alice, bob := newCustomer(t, s, "Alice Own"), newCustomer(t, s, "Bob Own")
	checking, savings, to := openAccount(t, s, alice, "0"), openAccount(t, s, alice, "0"), openAccount(t, s, bob, "0")
	if _, err := s.Deposit(ctx, admin, checking.AccountNumber, FundsInput{Amount: 500_00}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Withdraw(ctx, admin, checking.AccountNumber, FundsInput{Amount: 200_00}, ""); err != nil {
		t.Fatal(err)
	}
	if err := sendTo(s, alice, checking, savings, 250_00, ""); err != nil {
		t.Fatalf("between her own accounts: %v", err)
	}
	if l := limitsOf(t, s, alice)["USD"]; l.UsedToday != 0 {
		t.Fatalf("used %s", l.UsedToday)
	}
	if err := sendTo(s, alice, savings, to, 100_00, ""); err != nil {
		t.Fatalf("the whole limit after deposits: %v", err)
	}
}
