package bank

import (
	"encoding/json"
	"meridian/pkg/money"
	"reflect"
	"strings"
	"testing"
	"time"

	"meridian/pkg/errs"
)

func TestDashboardsEmpty(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice := newCustomer(t, s, "Alice Smith")
	admin := newAdmin(t, s)

	sum, err := s.UserSummary(ctx, alice)
	zero := money.Amount(0)
	if err != nil || !reflect.DeepEqual(sum, UserSummary{ByCurrency: []CurrencyTotals{}, HomeCurrency: "USD", TotalBalanceHome: &zero}) {
		t.Fatalf("user summary %+v %v", sum, err)
	}
	b, _ := json.Marshal(sum)
	if string(b) != `{"total_transactions":0,"pending_requests":0,"total_transfers":0,"total_sent_amount":0,"total_received_amount":0,"by_currency":[],"home_currency":"USD","total_balance_home":0}` {
		t.Fatalf("JSON %s", b)
	}
	months, err := s.UserMonthly(ctx, alice)
	if err != nil || len(months) != 12 {
		t.Fatalf("monthly %+v %v", months, err)
	}
	for _, m := range months {
		if m.Total != "0" {
			t.Fatalf("monthly %+v", months)
		}
	}
	if last := months[11].Name; last != time.Now().UTC().Format("Jan") {
		t.Fatalf("last month %q", last)
	}
	b, _ = json.Marshal(months[:1])
	if !strings.HasPrefix(string(b), `[{"name":"`) || !strings.HasSuffix(string(b), `","total":0}]`) {
		t.Fatalf("JSON %s", b)
	}

	// Every currency the bank offers, the base currency first.
	as, err := s.AdminSummary(ctx, admin)
	if err != nil || !reflect.DeepEqual(as, AdminSummary{TotalUsers: 2, ByCurrency: []CurrencyTotals{{Currency: "USD"}, {Currency: "EUR"}, {Currency: "GBP"}}}) {
		t.Fatalf("admin summary %+v %v", as, err)
	}
	b, _ = json.Marshal(as)
	if string(b) != `{"total_balance":0,"total_users":2,"total_transactions":0,"pending_requests":0,"total_transfers":0,"total_sent_amount":0,"total_received_amount":0,`+
		`"by_currency":[{"currency":"USD","total_balance":0,"total_sent_amount":0,"total_received_amount":0},{"currency":"EUR","total_balance":0,"total_sent_amount":0,"total_received_amount":0},`+
		`{"currency":"GBP","total_balance":0,"total_sent_amount":0,"total_received_amount":0}]}` {
		t.Fatalf("JSON %s", b)
	}
	users, err := s.AdminMonthlyUsers(ctx, admin)
	if err != nil || len(users) != 12 || users[11].Total != "2" {
		t.Fatalf("monthly users %+v %v", users, err)
	}

	_, err = s.UserSummary(ctx, admin)
	wantKind(t, err, errs.Forbidden, "")
	_, err = s.UserMonthly(ctx, admin)
	wantKind(t, err, errs.Forbidden, "")
	_, err = s.AdminSummary(ctx, alice)
	wantKind(t, err, errs.Forbidden, "")
	_, err = s.AdminMonthlyUsers(ctx, alice)
	wantKind(t, err, errs.Forbidden, "")
}

// With the clock at 2027-02-15, the charts run from March 2026 to February
// 2027, across the new year, and the summaries count what they should.
func TestDashboardsAcrossYearBoundary(t *testing.T) {
	t.Parallel()
	s := newService(t)
	day := func(v string) time.Time {
		d, err := time.Parse(time.DateTime, v)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	clock := fixClock(s, day("2027-02-15 12:00:00"))
	alice := newCustomer(t, s, "Alice Smith")
	bob := newCustomer(t, s, "Bob Jones")
	admin := newAdmin(t, s)
	a := openAccount(t, s, alice, "200.00")
	b := openAccount(t, s, bob, "100.00")
	backdate := func(id int64, when string) {
		t.Helper()
		// Both rows of the payment: the DEBIT id and the CREDIT after it.
		if _, err := s.db.Exec(`UPDATE transactions SET created_at = $2 WHERE id IN ($1::bigint, $1::bigint + 1)`, id, day(when)); err != nil {
			t.Fatal(err)
		}
	}
	move := func(who Actor, from, to Account, amount, when string) {
		t.Helper()
		res, err := s.Transfer(ctx, who, TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: amt(t, amount)}, "")
		if err != nil {
			t.Fatal(err)
		}
		backdate(res.Transaction.ID, when)
	}
	move(alice, a, b, "100.00", "2026-02-28 23:59:59") // before the window
	move(alice, a, b, "7.00", "2026-03-01 00:00:00")   // the first month
	move(alice, a, b, "10.00", "2026-12-20 10:00:00")
	move(bob, b, a, "4.00", "2027-01-10 10:00:00")
	move(alice, a, b, "1.00", "2027-02-01 00:00:00")
	move(alice, a, b, "2.50", "2027-02-28 23:59:59") // later this month still counts
	// A paid request, alice paying bob, in January.
	req, err := s.CreateMoneyRequest(ctx, bob, MoneyRequestInput{RequesterID: b.AccountNumber, RecipientID: a.AccountNumber, Amount: amt(t, "3.00")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AcceptMoneyRequest(ctx, alice, req.ID, ""); err != nil {
		t.Fatal(err)
	}
	var reqDebit int64
	s.db.Get(&reqDebit, `SELECT id FROM transactions WHERE kind = 'request' AND transaction_type = 'DEBIT'`)
	backdate(reqDebit, "2027-01-31 23:59:59")
	// Opening balances are not payments: put them in the window to prove it.
	s.db.Exec(`UPDATE transactions SET created_at = $1 WHERE kind = 'opening'`, day("2027-01-05 00:00:00"))
	// Pending requests: one to alice (counts for her), one to bob (counts
	// for him), one to alice that has expired (counts for nobody).
	if _, err := s.CreateMoneyRequest(ctx, bob, MoneyRequestInput{RequesterID: b.AccountNumber, RecipientID: a.AccountNumber, Amount: 100}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateMoneyRequest(ctx, alice, MoneyRequestInput{RequesterID: a.AccountNumber, RecipientID: b.AccountNumber, Amount: 100}); err != nil {
		t.Fatal(err)
	}
	clock.add(-2 * time.Hour)
	if _, err := s.CreateMoneyRequest(ctx, bob, MoneyRequestInput{RequesterID: b.AccountNumber, RecipientID: a.AccountNumber, Amount: 100}); err != nil {
		t.Fatal(err)
	}
	clock.add(2 * time.Hour)
	// Users joined in December, January and February.
	for id, when := range map[int64]string{alice.UserID: "2026-12-31 23:59:59", bob.UserID: "2027-01-01 00:00:00", admin.UserID: "2027-02-14 00:00:00"} {
		if _, err := s.db.Exec(`UPDATE users SET created_at = $2 WHERE id = $1`, id, day(when)); err != nil {
			t.Fatal(err)
		}
	}

	names := []string{"Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec", "Jan", "Feb"}
	wantChart := func(who string, got []MonthPoint, err error, totals map[string]string) {
		t.Helper()
		if err != nil || len(got) != 12 {
			t.Fatalf("%s: %+v %v", who, got, err)
		}
		for i, m := range got {
			want := totals[m.Name]
			if want == "" {
				want = "0"
			}
			if m.Name != names[i] || string(m.Total) != want {
				t.Fatalf("%s: month %d is %+v; want %s %s (all: %+v)", who, i, m, names[i], want, got)
			}
		}
	}
	months, err := s.UserMonthly(ctx, alice)
	wantChart("alice", months, err, map[string]string{"Mar": "7", "Dec": "10", "Jan": "7", "Feb": "3.5"})
	months, err = s.UserMonthly(ctx, bob)
	wantChart("bob", months, err, map[string]string{"Mar": "7", "Dec": "10", "Jan": "7", "Feb": "3.5"})
	users, err := s.AdminMonthlyUsers(ctx, admin)
	wantChart("users", users, err, map[string]string{"Dec": "1", "Jan": "1", "Feb": "1"})
	if months[11].Amount() != 350 {
		t.Fatalf("Amount() = %v", months[11].Amount())
	}

	sum, err := s.UserSummary(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	home := amt(t, "80.50")
	want := UserSummary{TotalTransactions: 8, PendingRequests: 1, TotalTransfers: 6, TotalSentAmount: amt(t, "123.50"), TotalReceivedAmount: amt(t, "4.00"),
		ByCurrency:   []CurrencyTotals{{Currency: "USD", TotalBalance: amt(t, "80.50"), TotalSentAmount: amt(t, "123.50"), TotalReceivedAmount: amt(t, "4.00")}},
		HomeCurrency: "USD", TotalBalanceHome: &home}
	if !reflect.DeepEqual(sum, want) {
		t.Fatalf("alice's summary %+v; want %+v", sum, want)
	}
	sum, err = s.UserSummary(ctx, bob)
	bobHome := amt(t, "219.50")
	want = UserSummary{TotalTransactions: 8, PendingRequests: 1, TotalTransfers: 1, TotalSentAmount: amt(t, "4.00"), TotalReceivedAmount: amt(t, "123.50"),
		ByCurrency:   []CurrencyTotals{{Currency: "USD", TotalBalance: amt(t, "219.50"), TotalSentAmount: amt(t, "4.00"), TotalReceivedAmount: amt(t, "123.50")}},
		HomeCurrency: "USD", TotalBalanceHome: &bobHome}
	if err != nil || !reflect.DeepEqual(sum, want) {
		t.Fatalf("bob's summary %+v %v; want %+v", sum, err, want)
	}
	as, err := s.AdminSummary(ctx, admin)
	wantAdmin := AdminSummary{TotalBalance: amt(t, "300.00"), TotalUsers: 3, TotalTransactions: 16, PendingRequests: 2,
		TotalTransfers: 7, TotalSentAmount: amt(t, "127.50"), TotalReceivedAmount: amt(t, "127.50"),
		ByCurrency: []CurrencyTotals{{Currency: "USD", TotalBalance: amt(t, "300.00"), TotalSentAmount: amt(t, "127.50"), TotalReceivedAmount: amt(t, "127.50")}, {Currency: "EUR"}, {Currency: "GBP"}}}
	if err != nil || !reflect.DeepEqual(as, wantAdmin) {
		t.Fatalf("admin summary %+v %v; want %+v", as, err, wantAdmin)
	}
	b2, _ := json.Marshal(as)
	if !strings.Contains(string(b2), `"total_balance":300,`) || !strings.Contains(string(b2), `"total_sent_amount":127.5,`) {
		t.Fatalf("JSON %s", b2)
	}
}

// Dollars and euros are never added together: the top-level amounts count
// only the base currency (USD), and by_currency has each currency the
// customer holds or has moved money in; the admin's has every currency.
func TestDashboardsKeepCurrencies(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice := newCustomer(t, s, "Alice Smith")
	bob := newCustomer(t, s, "Bob Jones")
	carol := newCustomer(t, s, "Carol King")
	dave := newCustomer(t, s, "Dave Ray")
	admin := newAdmin(t, s)
	aU, aE := openTyped(t, s, alice, "1000.00", 1), openTyped(t, s, alice, "500.00", 3)
	bU, bE := openTyped(t, s, bob, "100.00", 2), openTyped(t, s, bob, "50.00", 3)
	cE := openTyped(t, s, carol, "20.00", 3)
	// Dave holds an empty dollar account, and closed an empty euro one.
	openTyped(t, s, dave, "0.00", 1)
	if err := s.CloseAccount(ctx, dave, openTyped(t, s, dave, "0.00", 3).ID); err != nil {
		t.Fatal(err)
	}
	move := func(who Actor, from, to Account, amount string) {
		t.Helper()
		if _, err := s.Transfer(ctx, who, TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: amt(t, amount)}, ""); err != nil {
			t.Fatal(err)
		}
	}
	move(alice, aU, bU, "10.00")
	move(alice, aE, bE, "200.00")
	move(bob, bE, aE, "5.00")
	move(carol, cE, bE, "1.00")
	req, err := s.CreateMoneyRequest(ctx, alice, MoneyRequestInput{RequesterID: aE.AccountNumber, RecipientID: bE.AccountNumber, Amount: amt(t, "3.00")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AcceptMoneyRequest(ctx, bob, req.ID, ""); err != nil {
		t.Fatal(err)
	}

	usd := func(balance, sent, received string) CurrencyTotals {
		return CurrencyTotals{Currency: "USD", TotalBalance: amt(t, balance), TotalSentAmount: amt(t, sent), TotalReceivedAmount: amt(t, received)}
	}
	eur := func(balance, sent, received string) CurrencyTotals {
		c := usd(balance, sent, received)
		c.Currency = "EUR"
		return c
	}
	for _, c := range []struct {
		who  string
		as   Actor
		want UserSummary
	}{
		{"alice", alice, UserSummary{TotalTransactions: 6, TotalTransfers: 2, TotalSentAmount: amt(t, "10.00"),
			ByCurrency: []CurrencyTotals{usd("990.00", "10.00", "0.00"), eur("308.00", "200.00", "8.00")}}},
		{"bob", bob, UserSummary{TotalTransactions: 7, TotalTransfers: 2, TotalReceivedAmount: amt(t, "10.00"),
			ByCurrency: []CurrencyTotals{usd("110.00", "0.00", "10.00"), eur("243.00", "8.00", "201.00")}}},
		// Only euros: the dollar figures are zero, and no dollar row.
		{"carol", carol, UserSummary{TotalTransactions: 2, TotalTransfers: 1, ByCurrency: []CurrencyTotals{eur("19.00", "1.00", "0.00")}}},
		// An empty account is held; a closed one without payments is not.
		{"dave", dave, UserSummary{ByCurrency: []CurrencyTotals{usd("0.00", "0.00", "0.00")}}},
	} {
		got, err := s.UserSummary(ctx, c.as)
		// In dollars: with no EUR rate set, a customer holding euros has no
		// total (dave holds only dollars: 0.00).
		c.want.HomeCurrency = "USD"
		if c.who == "dave" {
			c.want.TotalBalanceHome = new(money.Amount)
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s's summary %+v %v;\nwant %+v", c.who, got, err, c.want)
		}
	}

	as, err := s.AdminSummary(ctx, admin)
	wantAdmin := AdminSummary{TotalBalance: amt(t, "1100.00"), TotalUsers: 5, TotalTransactions: 15, TotalTransfers: 5,
		TotalSentAmount: amt(t, "10.00"), TotalReceivedAmount: amt(t, "10.00"),
		ByCurrency: []CurrencyTotals{usd("1100.00", "10.00", "10.00"), eur("570.00", "209.00", "209.00"), {Currency: "GBP"}}}
	if err != nil || !reflect.DeepEqual(as, wantAdmin) {
		t.Fatalf("admin summary %+v %v;\nwant %+v", as, err, wantAdmin)
	}
	b, _ := json.Marshal(as.ByCurrency[1])
	if string(b) != `{"currency":"EUR","total_balance":570,"total_sent_amount":209,"total_received_amount":209}` {
		t.Fatalf("JSON %s", b)
	}

	// The chart is in dollars too: this month, alice sent $10.00 (and €208 moved).
	months, err := s.UserMonthly(ctx, alice)
	if err != nil || months[11].Total != "10" {
		t.Fatalf("alice's chart %+v %v", months, err)
	}
}
