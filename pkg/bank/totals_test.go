package bank

import (
	"math/rand"
	"reflect"
	"sync"
	"testing"

	"meridian/pkg/money"
)

// TestAdminSummaryMatchesLedgerScan checks that the sharded ledger totals
// behind the admin summary always equal a full scan of the ledger and of the
// balances, currency by currency, after demo data, a bulk load and
// concurrent transfers in dollars and euros.
func TestAdminSummaryMatchesLedgerScan(t *testing.T) {
	t.Parallel()
	s := newService(t)
	if _, err := s.SeedDemo(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SeedBulk(ctx, s.DB(), BulkOptions{Users: 40, AccountsPerUser: 2, TransfersPerUser: 3, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	adm := newAdmin(t, s)
	check := func(when string, currencies int) {
		t.Helper()
		got, err := s.AdminSummary(ctx, adm)
		if err != nil {
			t.Fatal(err)
		}
		// The same figures from a scan of the ledger and of the balances, per currency.
		var scan []currencyRow
		// The customers' rows and balances: the bank's own accounts carry the
		// other side (double entry), and the dashboard leaves them out.
		if err := s.db.Select(&scan, `SELECT a.currency::text AS currency, `+ledgerTotals+`,
			(SELECT COALESCE(sum(b.balance), 0) FROM accounts b WHERE b.currency = a.currency AND b.class = 'customer') AS total_balance
			FROM transactions t JOIN accounts a ON a.id = t.account_id WHERE a.class = 'customer' GROUP BY a.currency`); err != nil {
			t.Fatal(err)
		}
		want := AdminSummary{PendingRequests: got.PendingRequests}
		if err := s.db.Get(&want.TotalUsers, `SELECT count(*) FROM users`); err != nil {
			t.Fatal(err)
		}
		byCurrency := map[string]CurrencyTotals{}
		for _, r := range scan {
			want.TotalTransactions += r.Transactions
			want.TotalTransfers += r.Transfers
			if r.Currency == "USD" {
				want.TotalBalance, want.TotalSentAmount, want.TotalReceivedAmount = r.TotalBalance, r.TotalSentAmount, r.TotalReceivedAmount
			}
			byCurrency[r.Currency] = r.CurrencyTotals
		}
		for _, c := range got.ByCurrency {
			w, ok := byCurrency[c.Currency]
			if !ok {
				w = CurrencyTotals{Currency: c.Currency} // offered, never used
			}
			want.ByCurrency = append(want.ByCurrency, w)
			delete(byCurrency, c.Currency)
		}
		if len(byCurrency) != 0 {
			t.Fatalf("%s: currencies missing from the summary: %+v", when, byCurrency)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: summary %+v, scan %+v", when, got, want)
		}
		if got.TotalTransactions == 0 || got.TotalBalance == 0 || len(scan) != currencies {
			t.Fatalf("%s: empty totals %+v (currencies %+v)", when, got, scan)
		}
	}
	check("after seeding", 1)

	// Concurrent transfers from many connections spread over the shards.
	a, b := newCustomer(t, s, "Tess Total"), newCustomer(t, s, "Uma Unit")
	// Three dollar accounts and two euro accounts: transfers stay within a currency.
	accs := []Account{openAccount(t, s, a, "500.00"), openAccount(t, s, a, "500.00"), openAccount(t, s, b, "500.00"),
		openTyped(t, s, a, "300.00", 3), openTyped(t, s, b, "300.00", 3)}
	owner := map[int64]Actor{accs[0].ID: a, accs[1].ID: a, accs[2].ID: b, accs[3].ID: a, accs[4].ID: b}
	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(g)))
			for i := 0; i < 20; i++ {
				from, to := accs[r.Intn(3)], accs[r.Intn(3)]
				if g%2 == 1 {
					from, to = accs[3+r.Intn(2)], accs[3+r.Intn(2)]
				}
				if from.ID == to.ID {
					continue
				}
				s.Transfer(ctx, owner[from.ID], TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: money.Amount(1 + r.Intn(5000))}, "")
			}
		}(g)
	}
	wg.Wait()
	if _, err := s.UpdateAccount(ctx, a, accs[0].ID, AccountInput{AccountNumber: accs[0].AccountNumber, Balance: 123, AccountTypeID: 1}); err != nil {
		t.Fatal(err)
	}
	check("after concurrent transfers and an adjustment", 2)
}

// TestLedgerTotalsHaveNoBypass: migrations/0002 let a session skip the
// ledger totals with meridian.bulk_ledger = 'on'; since 0006 no setting
// does, for one row or a bulk INSERT ... SELECT.
func TestLedgerTotalsHaveNoBypass(t *testing.T) {
	t.Parallel()
	s := newService(t)
	a := newCustomer(t, s, "Tom Totals")
	acc := openAccount(t, s, a, "0.00")
	tx := s.db.MustBegin()
	defer tx.Rollback()
	tx.MustExec(`SET LOCAL meridian.bulk_ledger = 'on'`)
	tx.MustExec(`INSERT INTO transactions (account_id, user_id, transaction_type, kind, amount, from_account_id, to_account_id)
		VALUES ($1, $2, 'CREDIT', 'adjustment', 5, $1, $1)`, acc.ID, a.UserID)
	tx.MustExec(`INSERT INTO transactions (account_id, user_id, transaction_type, kind, amount, from_account_id, to_account_id)
		SELECT $1, $2, 'CREDIT', 'adjustment', 1, $1, $1 FROM generate_series(1, 3)`, acc.ID, a.UserID)
	var totals, rows int64
	var net, sum string
	if err := tx.QueryRow(`SELECT sum(transactions), sum(net)::text FROM ledger_totals`).Scan(&totals, &net); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(`SELECT (SELECT count(*) FROM transactions), (SELECT sum(balance)::text FROM ledger_balances)`).Scan(&rows, &sum); err != nil {
		t.Fatal(err)
	}
	if totals != rows || net != sum {
		t.Fatalf("totals %d rows / net %s, ledger %d rows / %s", totals, net, rows, sum)
	}
}
