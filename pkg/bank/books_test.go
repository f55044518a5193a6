package bank

import (
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// Everything that moves money at once: transfers, exchanges, reversals,
// deposits, withdrawals and interest runs from many goroutines. Afterwards
// every currency sums to zero, every posting's legs too, and every
// account's balance is the sum of its ledger rows.
func TestBooksBalanceUnderEverything(t *testing.T) {
	t.Parallel()
	s := newService(t)
	s.settings.FXSpreadBps = 50
	admin := newAdmin(t, s)
	if _, err := s.SetFXRate(ctx, admin, "EUR", "USD", "1.0842"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetFXRate(ctx, admin, "GBP", "USD", "1.2650"); err != nil {
		t.Fatal(err)
	}
	type holder struct {
		a             Actor
		usd, eur, gbp Account
	}
	holders := make([]holder, 6)
	for i := range holders {
		a := newCustomer(t, s, "Holder Books")
		holders[i] = holder{a, openTyped(t, s, a, "5000.00", 2), openTyped(t, s, a, "3000.00", 3), openTyped(t, s, a, "2000.00", 6)}
	}
	var posted sync.Map // ledger row ids of postings made, to reverse
	var done, refused atomic.Int64
	expected := func(err error) bool {
		var e *errs.Error
		return errors.As(err, &e) && (e.Kind == errs.Unprocessable || e.Kind == errs.Conflict || e.Kind == errs.NotFound)
	}
	var wg sync.WaitGroup
	deadline := time.Now().Add(4 * time.Second)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 99))
			for time.Now().Before(deadline) {
				h, o := holders[r.IntN(len(holders))], holders[r.IntN(len(holders))]
				var err error
				var id int64
				switch r.IntN(6) {
				case 0: // a transfer
					var res TransferResult
					res, err = s.Transfer(ctx, h.a, TransferInput{AccountID: h.usd.AccountNumber, ToAccountID: o.usd.AccountNumber, Amount: money.Amount(1 + r.IntN(20000))}, "")
					id = res.Transaction.ID
				case 1: // an exchange, to oneself or another
					to := []Account{h.eur, o.eur, h.gbp, o.gbp}[r.IntN(4)]
					var q FXQuote
					if q, err = s.CreateFXQuote(ctx, h.a, FXQuoteInput{FromAccountID: h.usd.AccountNumber, ToAccountID: to.AccountNumber, Amount: money.Amount(200 + r.IntN(30000))}); err == nil {
						var res TransferResult
						res, err = s.Exchange(ctx, h.a, FXTransferInput{QuoteID: q.ID}, "")
						id = res.Transaction.ID
					}
				case 2: // a deposit or a withdrawal
					acc := []Account{h.usd, h.eur, h.gbp}[r.IntN(3)]
					var res TransferResult
					if r.IntN(2) == 0 {
						res, err = s.Deposit(ctx, admin, acc.AccountNumber, FundsInput{Amount: money.Amount(1 + r.IntN(50000))}, "")
					} else {
						res, err = s.Withdraw(ctx, admin, acc.AccountNumber, FundsInput{Amount: money.Amount(1 + r.IntN(50000))}, "")
					}
					id = res.Transaction.ID
				case 3: // a reversal of something posted
					posted.Range(func(k, _ any) bool {
						if r.IntN(4) == 0 {
							_, err = s.ReverseTransaction(ctx, admin, k.(int64), ReverseInput{Reason: "Concurrency"}, "")
							return false
						}
						return true
					})
				case 4: // interest, through a day ahead
					_, err = s.RunInterest(ctx, CLIActor, s.now().AddDate(0, 0, 5+r.IntN(40)))
				case 5: // between one's own accounts of a currency
					_, err = s.Transfer(ctx, h.a, TransferInput{AccountID: h.eur.AccountNumber, ToAccountID: o.eur.AccountNumber, Amount: money.Amount(1 + r.IntN(5000))}, "")
				}
				switch {
				case err == nil:
					done.Add(1)
					if id != 0 {
						posted.Store(id, true)
					}
				case expected(err):
					refused.Add(1)
				default:
					t.Errorf("unexpected: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d went through, %d refused", done.Load(), refused.Load())
	if done.Load() < 50 {
		t.Fatalf("only %d operations went through", done.Load())
	}
	wantBooksBalanced(t, s)
	for _, h := range holders {
		for _, acc := range []Account{h.usd, h.eur, h.gbp} {
			if b, l := balanceOf(t, s, acc.ID), ledgerSum(t, s, acc.ID); b != l {
				t.Fatalf("account %s: balance %s, ledger %s", acc.AccountNumber, b, l)
			}
		}
	}
	var kinds []string
	if err := s.db.Select(&kinds, `SELECT DISTINCT kind FROM transactions ORDER BY kind`); err != nil {
		t.Fatal(err)
	}
	t.Logf("kinds posted: %v", kinds)
	for _, k := range []string{"deposit", "exchange", "interest", "reversal", "transfer", "withdrawal"} {
		found := false
		for _, got := range kinds {
			found = found || got == k
		}
		if !found {
			t.Errorf("no %s was posted while the others ran", k)
		}
	}
}
