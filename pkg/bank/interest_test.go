package bank

import (
	"fmt"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"meridian/pkg/errs"
)

// openAt opens an account of type typeID as if on at: its opening balance
// dated at, and the account too.
func openAt(t testing.TB, s *Service, a Actor, typeID int, balance string, at time.Time) Account {
	t.Helper()
	acc, err := s.CreateAccount(backdated(ctx, at), a, AccountInput{AccountNumber: fmt.Sprintf("ACC%07d", accountSeq.Add(1)),
		Balance: amt(t, balance), AccountTypeID: typeID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`UPDATE accounts SET created_at = $2 WHERE id = $1`, acc.ID, at); err != nil {
		t.Fatal(err)
	}
	return acc
}

// movement is money in (+) or out (-) of an account at a moment.
type movement struct {
	at     time.Time
	amount *big.Rat
}

// interestModel computes, independently of interest.sql, what the
// contract's formula pays an account opened on opened (movements of its
// own besides interest) through the day through: each day's end-of-day
// balance x rate / 100 / 365 to 6 decimals half even, carried, the whole
// cents paid on each 1st (counting in that day's balance), the fraction
// carried on. It returns the payments ("YYYY-MM-DD amount") and what is
// accrued and unpaid after through.
func interestModel(opened, through time.Time, rate string, moves []movement) ([]string, *big.Rat) {
	r, _ := new(big.Rat).SetString(rate)
	perDay := new(big.Rat).Quo(r, big.NewRat(100*365, 1))
	var pays []string
	carry, period := new(big.Rat), new(big.Rat)
	accruedSince := false
	for d := opened; !d.After(through); d = d.AddDate(0, 0, 1) {
		if d.Day() == 1 && accruedSince {
			total := new(big.Rat).Add(carry, period)
			cents := new(big.Int).Quo(new(big.Int).Mul(total.Num(), big.NewInt(100)), total.Denom()) // truncated
			pay := new(big.Rat).SetFrac(cents, big.NewInt(100))
			if cents.Sign() > 0 {
				pays = append(pays, d.Format(time.DateOnly)+" "+pay.FloatString(2))
				moves = append(moves, movement{d, pay})
			}
			carry.Sub(total, pay)
			period.SetInt64(0)
			accruedSince = false
		}
		bal := new(big.Rat)
		for _, m := range moves {
			if m.at.Before(d.AddDate(0, 0, 1)) {
				bal.Add(bal, m.amount)
			}
		}
		if bal.Sign() > 0 {
			period.Add(period, halfEven(new(big.Rat).Mul(bal, perDay), 6))
			accruedSince = true
		}
	}
	return pays, new(big.Rat).Add(carry, period)
}

// interestPaid lists an account's interest postings as "YYYY-MM-DD amount".
func interestPaid(t testing.TB, s *Service, id int64) []string {
	t.Helper()
	var out []string
	if err := s.db.Select(&out, `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') || ' ' || amount FROM transactions
		WHERE account_id = $1 AND kind = 'interest' ORDER BY id`, id); err != nil {
		t.Fatal(err)
	}
	return out
}

func money2(a string) *big.Rat {
	r, _ := new(big.Rat).SetString(a)
	return r
}

// Interest to the cent of the contract's formula across month ends and a
// leap February, with money moving in and out mid-month; what accrued
// since the last payment is shown to the 1/10000 of a cent.
func TestInterestExactCents(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice := newCustomer(t, s, "Alice Interest")
	opened := day(t, "2024-01-15").Add(10 * time.Hour)
	acc := openAt(t, s, alice, 2, "10000.00", opened) // Savings, 2.00 %
	dep := day(t, "2024-02-10").Add(12 * time.Hour)
	wd := day(t, "2024-02-29").Add(15 * time.Hour)
	if _, err := s.Deposit(backdated(ctx, dep), CLIActor, acc.AccountNumber, FundsInput{Amount: 2500_00}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Withdraw(backdated(ctx, wd), CLIActor, acc.AccountNumber, FundsInput{Amount: 700_00}, ""); err != nil {
		t.Fatal(err)
	}
	through := day(t, "2024-04-02")
	run, err := s.RunInterest(ctx, CLIActor, through)
	if err != nil || run.Accounts != 1 || run.Payments != 3 {
		t.Fatalf("run: %+v %v", run, err)
	}
	wantPays, wantAccrued := interestModel(day(t, "2024-01-15"), through, "2.00",
		[]movement{{opened, money2("10000")}, {dep, money2("2500")}, {wd, money2("-700")}})
	if got := interestPaid(t, s, acc.ID); strings.Join(got, ", ") != strings.Join(wantPays, ", ") {
		t.Fatalf("paid %v, want %v", got, wantPays)
	}
	t.Logf("paid %v; accrued since %s", wantPays, wantAccrued.FloatString(6))
	info, err := s.AccountInterest(ctx, alice, acc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := money2(string(info.Accrued)); got.Cmp(wantAccrued) != 0 || info.Rate != "2" || info.LastPostedAt == nil ||
		!info.LastPostedAt.Equal(day(t, "2024-04-01")) {
		t.Fatalf("interest %+v, want accrued %s", info, wantAccrued.FloatString(6))
	}
	// Again: nothing more (each day accrues once, each month is paid once).
	if again, err := s.RunInterest(ctx, CLIActor, through); err != nil || again.Days != 0 || again.Payments != 0 {
		t.Fatalf("again: %+v %v", again, err)
	}
	if m := messagesOf(t, s, alice.UserID); len(m) == 0 || !strings.HasPrefix(m[0], "Interest of $") {
		t.Fatalf("alice was told %v", m)
	}
	_, err = s.AccountInterest(ctx, newCustomer(t, s, "Mallory Interest"), acc.ID)
	wantKind(t, err, errs.NotFound, "account_not_found")
	wantBooksBalanced(t, s)
}

// A catch-up of 40 missed days gives the same cents, on the same days, as
// running every day; both are the contract's formula.
func TestInterestCatchUp(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice := newCustomer(t, s, "Alice CatchUp")
	opened := day(t, "2025-03-10").Add(9 * time.Hour)
	daily, late := openAt(t, s, alice, 2, "3456.78", opened), openAt(t, s, alice, 2, "3456.78", opened)
	in := day(t, "2025-04-20").Add(18 * time.Hour)
	for _, acc := range []Account{daily, late} {
		if _, err := s.Deposit(backdated(ctx, in), CLIActor, acc.AccountNumber, FundsInput{Amount: 1234_56}, ""); err != nil {
			t.Fatal(err)
		}
	}
	end := day(t, "2025-06-03")
	for d := day(t, "2025-03-10"); !d.After(end); d = d.AddDate(0, 0, 1) {
		if _, err := s.accrue(ctx, daily.ID, d.Format(time.DateOnly), false); err != nil {
			t.Fatal(err)
		}
	}
	gap := end.AddDate(0, 0, -40)
	if _, err := s.accrue(ctx, late.ID, gap.Format(time.DateOnly), false); err != nil {
		t.Fatal(err)
	}
	r, err := s.accrue(ctx, late.ID, end.Format(time.DateOnly), false)
	if err != nil || r.Days != 40 || r.Payments != 2 {
		t.Fatalf("catch-up: %+v %v", r, err)
	}
	want, _ := interestModel(day(t, "2025-03-10"), end, "2.00", []movement{{opened, money2("3456.78")}, {in, money2("1234.56")}})
	a, b := interestPaid(t, s, daily.ID), interestPaid(t, s, late.ID)
	if strings.Join(a, ", ") != strings.Join(want, ", ") || strings.Join(b, ", ") != strings.Join(want, ", ") {
		t.Fatalf("every day %v, caught up %v, want %v", a, b, want)
	}
	wantBooksBalanced(t, s)
}

// Instances running interest at the same moment accrue each day and pay
// each month once per account.
func TestInterestExactlyOnceAcrossRuns(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice := newCustomer(t, s, "Alice Once")
	opened := day(t, "2026-06-20").Add(8 * time.Hour)
	var accs []Account
	for i := range 6 {
		accs = append(accs, openAt(t, s, alice, []int{2, 3, 6}[i%3], fmt.Sprintf("%d.%02d", 1000+i*777, i), opened))
	}
	through := day(t, "2026-09-05")
	var wg sync.WaitGroup
	errsOf := make([]error, 4)
	for i := range errsOf {
		wg.Add(1)
		go func() { defer wg.Done(); _, errsOf[i] = s.RunInterest(ctx, CLIActor, through) }()
	}
	wg.Wait()
	for _, err := range errsOf {
		if err != nil {
			t.Fatal(err)
		}
	}
	// Whatever each run skipped, one more run finishes the work.
	if _, err := s.RunInterest(ctx, CLIActor, through); err != nil {
		t.Fatal(err)
	}
	for i, acc := range accs {
		want, _ := interestModel(day(t, "2026-06-20"), through, "2.00", []movement{{opened, money2(fmt.Sprintf("%d.%02d", 1000+i*777, i))}})
		if got := interestPaid(t, s, acc.ID); strings.Join(got, ", ") != strings.Join(want, ", ") {
			t.Errorf("account %d paid %v, want %v", i, got, want)
		}
		var days int
		if err := s.db.Get(&days, `SELECT count(*) FROM interest_accruals WHERE account_id = $1`, acc.ID); err != nil || days != int(through.Sub(day(t, "2026-06-20")).Hours()/24)+1 {
			t.Errorf("account %d accrued %d days (%v)", i, days, err)
		}
	}
	wantBooksBalanced(t, s)
}

// Rates: set by an administrator per account type, 0 to 100 with up to 4
// decimals, audited; the type's accounts accrue at it from then on.
func TestSetInterestRate(t *testing.T) {
	t.Parallel()
	s := newService(t)
	admin, alice := newAdmin(t, s), newCustomer(t, s, "Alice Rate")
	r, err := s.SetInterestRate(ctx, admin, 1, InterestRateInput{InterestRate: "0.5"})
	if err != nil || r.InterestRate != "0.5" || r.TypeName != "Checking" {
		t.Fatalf("set: %+v %v", r, err)
	}
	for _, bad := range []Rate{"-1", "100.00001", "101", "abc", "", "1.12345"} {
		_, err := s.SetInterestRate(ctx, admin, 1, InterestRateInput{InterestRate: bad})
		wantKind(t, err, errs.Invalid, "invalid_input")
	}
	_, err = s.SetInterestRate(ctx, admin, 99, InterestRateInput{InterestRate: "1"})
	wantKind(t, err, errs.NotFound, "account_type_not_found")
	_, err = s.SetInterestRate(ctx, alice, 1, InterestRateInput{InterestRate: "1"})
	wantKind(t, err, errs.Forbidden, "")
	types, err := s.AccountTypes(ctx, alice)
	if err != nil || types[0].InterestRate != "0.5" || types[1].InterestRate != "2" {
		t.Fatalf("types %+v %v", types, err)
	}
	if auditCount(t, s, "INTEREST_RATE") != 1 {
		t.Fatal("no INTEREST_RATE audit row")
	}
}

// Closing an account pays what it accrued first: the payment leaves a
// balance to move out, then it closes.
func TestCloseAccountPaysInterest(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice := newCustomer(t, s, "Alice Close")
	opened := s.now().UTC().AddDate(0, 0, -20)
	savings := openAt(t, s, alice, 2, "50000.00", opened)
	checking := openAccount(t, s, alice, "0")
	if err := sendTo(s, alice, savings, checking, 50000_00, ""); err != nil {
		t.Fatal(err)
	}
	err := s.CloseAccount(ctx, alice, savings.ID)
	wantKind(t, err, errs.Unprocessable, "balance_not_zero")
	paid := balanceOf(t, s, savings.ID)
	if paid <= 0 {
		t.Fatalf("closing paid %s", paid)
	}
	if err := sendTo(s, alice, savings, checking, paid, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.CloseAccount(ctx, alice, savings.ID); err != nil {
		t.Fatal(err)
	}
	// Nothing more accrues or is paid after it closed.
	if _, err := s.RunInterest(ctx, CLIActor, s.now().AddDate(0, 2, 0)); err != nil {
		t.Fatal(err)
	}
	if b := balanceOf(t, s, savings.ID); b != 0 {
		t.Fatalf("a closed account was paid %s", b)
	}
	wantBooksBalanced(t, s)
}
