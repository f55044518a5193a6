package bank

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// The bank invariant under load: 32 goroutines make 1,280 random transfers
// among 10 accounts of 4 customers, many of them overdrafts and many in
// opposite pairs (A to B while B to A), while an administrator deposits into
// and withdraws from the same accounts (withdrawals often more than the
// balance). Afterwards no money was made or lost (the total moved by exactly
// the deposits less the withdrawals that went through), no balance is
// negative, every balance equals its ledger, and every refusal was a 422
// Insufficient funds (or, for a busy sender, Daily transfer limit exceeded),
// never an internal error (a 500): no deadlock, no
// serialization failure, no constraint error leaked.
func TestBankInvariant(t *testing.T) {
	t.Parallel()
	s := newService(t)
	var customers []Actor
	for _, name := range []string{"Alice Smith", "Bob Jones", "Carol King", "Dan Brown"} {
		customers = append(customers, newCustomer(t, s, name))
	}
	admin := newAdmin(t, s)
	type acct struct {
		owner  Actor
		number string
		id     int64
	}
	var accts []acct
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 10 {
		owner := customers[i%len(customers)]
		a := openAccount(t, s, owner, fmt.Sprintf("%d.%02d", 20+rng.IntN(200), rng.IntN(100)))
		accts = append(accts, acct{owner, a.AccountNumber, a.ID})
	}
	// What the customers hold (the bank's own accounts carry the other side).
	total := func() money.Amount {
		var sum money.Amount
		if err := s.db.Get(&sum, `SELECT sum(balance) FROM accounts WHERE class = 'customer'`); err != nil {
			t.Fatal(err)
		}
		return sum
	}
	var ledgerBefore int
	s.db.Get(&ledgerBefore, `SELECT count(*) FROM transactions`)
	deadlocksBefore := deadlocks(t, s)
	totalBefore := total()

	// A wrong lock order would show as deadlocks, each costing PostgreSQL's
	// deadlock_timeout and a retry: bound the run so it fails instead of crawling.
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	const workers, perWorker = 32, 40
	var (
		wg           sync.WaitGroup
		start        = make(chan struct{})
		ok, refused  atomic.Int64
		limited      atomic.Int64
		mu           sync.Mutex
		unexpected   []error
		startedAt    = time.Now()
		pairsStarted atomic.Int64
		// The administrator's movements that went through, and the money they moved.
		deposits, withdrawals, deposited, withdrawn, overdrawn atomic.Int64
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 99))
			<-start
			for i := range perWorker {
				if w%4 == 3 && i%4 == 0 {
					// The bank moves money in or out of a random account.
					acct := accts[r.IntN(len(accts))]
					amount := money.Amount(1 + r.IntN(120_00))
					var err error
					if i%8 == 0 {
						if _, err = s.Deposit(ctx, admin, acct.number, FundsInput{Amount: amount}, ""); err == nil {
							deposits.Add(1)
							deposited.Add(int64(amount))
						}
					} else if _, err = s.Withdraw(ctx, admin, acct.number, FundsInput{Amount: amount}, ""); err == nil {
						withdrawals.Add(1)
						withdrawn.Add(int64(amount))
					}
					switch {
					case err == nil:
					case errs.KindOf(err) == errs.Unprocessable && errs.As(err).Code == "insufficient_funds":
						overdrawn.Add(1)
					default:
						mu.Lock()
						unexpected = append(unexpected, err)
						mu.Unlock()
					}
					continue
				}
				var from, to int
				if w%2 == 0 || i%2 == 0 {
					// Opposite pairs: workers 2k and 2k+1 cross the same two
					// accounts at the same step, in opposite directions.
					k := (w/2 + i) % len(accts)
					from, to = k, (k+1+i%3)%len(accts)
					if w%2 == 1 {
						from, to = to, from
					}
					pairsStarted.Add(1)
				} else {
					from = r.IntN(len(accts))
					to = (from + 1 + r.IntN(len(accts)-1)) % len(accts)
				}
				// Up to 120.00: often more than the sender holds.
				amount := money.Amount(1 + r.IntN(120_00))
				_, err := s.Transfer(ctx, accts[from].owner, TransferInput{AccountID: accts[from].number, ToAccountID: accts[to].number, Amount: amount}, "")
				switch {
				case err == nil:
					ok.Add(1)
				case errs.KindOf(err) == errs.Unprocessable && errs.As(err).Code == "insufficient_funds":
					refused.Add(1)
				case errs.KindOf(err) == errs.Unprocessable && errs.As(err).Code == "daily_limit_exceeded":
					limited.Add(1) // the sender passed the default daily limit (10,000.00)
				default:
					mu.Lock()
					unexpected = append(unexpected, err)
					mu.Unlock()
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	t.Logf("%d operations in %v: %d transfers made, %d refused for insufficient funds, %d over the daily limit, %d in opposite pairs; %d deposits, %d withdrawals, %d refused",
		workers*perWorker, time.Since(startedAt), ok.Load(), refused.Load(), limited.Load(), pairsStarted.Load(), deposits.Load(), withdrawals.Load(), overdrawn.Load())

	if len(unexpected) > 0 {
		t.Fatalf("%d unexpected errors, first: %v", len(unexpected), unexpected[0])
	}
	if ok.Load() == 0 || refused.Load() == 0 || deposits.Load() == 0 || withdrawals.Load() == 0 {
		t.Fatalf("the load did not exercise every outcome: %d transfers made, %d refused, %d deposits, %d withdrawals",
			ok.Load(), refused.Load(), deposits.Load(), withdrawals.Load())
	}
	if got, want := total(), totalBefore+money.Amount(deposited.Load()-withdrawn.Load()); got != want {
		t.Fatalf("money was made or lost: total %s, want %s (%s before, %s deposited, %s withdrawn)",
			got, want, totalBefore, money.Amount(deposited.Load()), money.Amount(withdrawn.Load()))
	}
	var negative int
	s.db.Get(&negative, `SELECT count(*) FROM accounts WHERE balance < 0 AND class = 'customer'`)
	if negative != 0 {
		t.Fatalf("%d negative balances", negative)
	}
	wantBooksBalanced(t, s)
	for _, a := range accts {
		if b, l := balanceOf(t, s, a.id), ledgerSum(t, s, a.id); b != l {
			t.Fatalf("account %s: balance %s, ledger %s", a.number, b, l)
		}
	}
	var ledgerAfter, transfers, moves, notes int
	s.db.Get(&ledgerAfter, `SELECT count(*) FROM transactions`)
	s.db.Get(&transfers, `SELECT count(*) FROM audit_log WHERE action_type = 'TRANSFER'`)
	s.db.Get(&moves, `SELECT count(*) FROM audit_log WHERE action_type IN ('DEPOSIT', 'WITHDRAWAL')`)
	s.db.Get(&notes, `SELECT count(*) FROM notifications`)
	made, bank := int(ok.Load()), int(deposits.Load()+withdrawals.Load())
	// Every posting is two legs: a transfer's two customers, a deposit's or
	// withdrawal's customer and vault.
	if ledgerAfter-ledgerBefore != 2*made+2*bank || transfers != made || moves != bank || notes != made+bank {
		t.Fatalf("%d transfers and %d deposits or withdrawals made, but %d new ledger rows, %d transfer and %d deposit or withdrawal audit rows, %d notifications",
			made, bank, ledgerAfter-ledgerBefore, transfers, moves, notes)
	}
	if d := deadlocks(t, s); d != deadlocksBefore {
		t.Fatalf("PostgreSQL detected %d deadlocks (retried away, but the lock order is wrong)", d-deadlocksBefore)
	}
}

// deadlocks reads the test database's deadlock counter. Statistics reach
// the counter within about a second of the transaction, so wait that long.
func deadlocks(t testing.TB, s *Service) int64 {
	t.Helper()
	time.Sleep(1200 * time.Millisecond)
	var n int64
	if _, err := s.db.Exec(`SELECT pg_stat_clear_snapshot()`); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Get(&n, `SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()`); err != nil {
		t.Fatal(err)
	}
	return n
}
