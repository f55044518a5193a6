package bank

import (
	"strings"
	"testing"
	"time"

	"meridian/pkg/auth"

	"meridian/pkg/db"
	"meridian/pkg/errs"
	"meridian/pkg/testdb"
)

func TestSeedDemo(t *testing.T) {
	t.Parallel()
	s := newService(t)
	created, err := s.SeedDemo(ctx)
	if err != nil || !created {
		t.Fatalf("SeedDemo: %v %v", created, err)
	}
	for _, d := range DemoSignIns {
		res, err := s.Login(ctx, LoginInput{Email: d.Email, Password: d.Password})
		if err != nil || res.User.Role != d.Role {
			t.Fatalf("sign in as %s: %+v %v", d.Email, res.User, err)
		}
	}
	alice, bob := signInAs(t, s, "alice@meridian.test", "alice12345"), signInAs(t, s, "bob@meridian.test", "bob12345")
	if alice.FullName != "Alice Smith" || bob.FullName != "Bob Jones" {
		t.Fatalf("names %q %q", alice.FullName, bob.FullName)
	}
	if accs, _ := s.ListAccounts(ctx, alice, nil); len(accs) != 2 {
		t.Fatalf("alice's accounts %+v", accs)
	}
	if accs, _ := s.ListAccounts(ctx, bob, nil); len(accs) != 1 {
		t.Fatalf("bob's accounts %+v", accs)
	}
	reqs, err := s.ListMoneyRequests(ctx, alice, nil)
	if err != nil {
		t.Fatal(err)
	}
	pending := 0
	for _, r := range reqs {
		if r.Status == "PENDING" && r.Direction == "incoming" {
			pending++
		}
	}
	if pending != 1 {
		t.Fatalf("alice has %d pending incoming requests; want 1: %+v", pending, reqs)
	}
	sum, err := s.UserSummary(ctx, alice)
	if err != nil || sum.PendingRequests != 1 || sum.TotalTransfers == 0 || sum.TotalReceivedAmount == 0 {
		t.Fatalf("alice's summary %+v %v", sum, err)
	}
	months, err := s.UserMonthly(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	active := 0
	for _, m := range months {
		if m.Total != "0" {
			active++
		}
	}
	if active < 4 {
		t.Fatalf("alice's chart has %d active months: %+v", active, months)
	}
	if n := messagesOf(t, s, alice.UserID); len(n) == 0 {
		t.Fatal("alice has no notifications")
	}
	plans, err := s.ListScheduledTransfers(ctx, alice, 0)
	if err != nil || len(plans) != 1 || plans[0].Frequency != FrequencyMonthly || plans[0].ToAccountID != "200300400" ||
		plans[0].Status != ScheduleActive || plans[0].NextRunAt == nil || !plans[0].NextRunAt.After(time.Now()) || plans[0].NextRunAt.Day() != 1 {
		t.Fatalf("alice's scheduled transfers %+v %v", plans, err)
	}
	wantLedgersBalanced(t, s)
	if p, err := s.ListPayees(ctx, alice); err != nil || len(p) != 1 || p[0].AccountNumber != "200300400" || p[0].HolderName != "Bob Jones" {
		t.Fatalf("alice's payees %+v %v", p, err)
	}
	// Bob's low limit: a transfer of $150 is refused.
	if l, err := s.DailyLimits(ctx, bob); err != nil || len(l) != 1 || l[0].DailyTransferLimit != DemoBobDailyLimit {
		t.Fatalf("bob's limits %+v %v", l, err)
	}
	_, err = s.Transfer(ctx, bob, TransferInput{AccountID: "200300400", ToAccountID: "100200300", Amount: 150_00}, "")
	wantKind(t, err, errs.Unprocessable, "daily_limit_exceeded")

	before := stateOf(t, s)
	var users int
	s.db.Get(&users, `SELECT count(*) FROM users`)
	created, err = s.SeedDemo(ctx)
	if err != nil || created {
		t.Fatalf("second SeedDemo: %v %v", created, err)
	}
	wantUnchanged(t, s, before)
	var after int
	s.db.Get(&after, `SELECT count(*) FROM users`)
	if after != users {
		t.Fatalf("users %d -> %d", users, after)
	}
}

func TestSeedDemoSkipsAUsedDatabase(t *testing.T) {
	t.Parallel()
	s := newService(t)
	newCustomer(t, s, "Early Bird")
	created, err := s.SeedDemo(ctx)
	if err != nil || created {
		t.Fatalf("SeedDemo on a used database: %v %v", created, err)
	}
	var n int
	s.db.Get(&n, `SELECT count(*) FROM accounts WHERE class = 'customer'`)
	if n != 0 {
		t.Fatalf("%d accounts", n)
	}
}

func signInAs(t testing.TB, s *Service, email, password string) Actor {
	t.Helper()
	res, err := s.Login(ctx, LoginInput{Email: email, Password: password})
	if err != nil {
		t.Fatalf("login %s: %v", email, err)
	}
	a, err := s.Authenticate(ctx, res.Token)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// wantLedgersBalanced checks every account: balance equals its ledger, none negative.
func wantLedgersBalanced(t testing.TB, s *Service) {
	t.Helper()
	var bad []string
	if err := s.db.Select(&bad, `
		SELECT a.account_number FROM accounts a JOIN ledger_balances l ON l.account_id = a.id
		WHERE a.balance <> l.balance OR (a.balance < 0 AND a.class = 'customer')`); err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Fatalf("%d accounts whose balance is negative or differs from the ledger, e.g. %s", len(bad), bad[0])
	}
	wantBooksBalanced(t, s)
}

// wantBooksBalanced fails unless, per currency, every account's balance,
// the customers' and the bank's, sums to zero (double entry), and every
// posting's legs do too.
func wantBooksBalanced(t testing.TB, s *Service) {
	t.Helper()
	rows, err := s.TrialBalance(ctx, CLIActor)
	if err != nil {
		t.Fatal(err)
	}
	if bad := Unbalanced(rows); len(bad) > 0 {
		t.Fatalf("the books do not balance: %v (trial balance %+v)", bad, rows)
	}
	var legs []string
	if err := s.db.Select(&legs, `SELECT t.posting_id::text || ' ' || a.currency FROM transactions t JOIN accounts a ON a.id = t.account_id
		WHERE t.posting_id IS NOT NULL GROUP BY t.posting_id, a.currency
		HAVING sum(CASE t.transaction_type WHEN 'CREDIT' THEN t.amount ELSE -t.amount END) <> 0 LIMIT 5`); err != nil {
		t.Fatal(err)
	}
	if len(legs) > 0 {
		t.Fatalf("postings whose legs do not sum to zero in a currency: %v", legs)
	}
}

// bulkFingerprint digests everything SeedBulk decides: users, accounts,
// balances and ledger rows (not the dates, which follow the clock).
func bulkFingerprint(t testing.TB, s *Service) string {
	t.Helper()
	var fp string
	if err := s.db.Get(&fp, `SELECT md5(
		(SELECT string_agg(full_name || email || phone_number, ',' ORDER BY email) FROM users) ||
		(SELECT string_agg(a.account_number || ':' || a.account_type_id || ':' || a.balance, ',' ORDER BY a.account_number) FROM accounts a) ||
		(SELECT string_agg(a.account_number || t.transaction_type || t.kind || t.amount || f.account_number || g.account_number || t.description, ',' ORDER BY t.id)
			FROM transactions t JOIN accounts a ON a.id = t.account_id JOIN accounts f ON f.id = t.from_account_id JOIN accounts g ON g.id = t.to_account_id))`); err != nil {
		t.Fatal(err)
	}
	return fp
}

func TestSeedBulk(t *testing.T) {
	t.Parallel()
	opts := BulkOptions{Users: 300, AccountsPerUser: 2, TransfersPerUser: 5, Seed: 7}
	s := newService(t)
	st, err := s.SeedBulk(ctx, s.DB(), opts)
	if err != nil {
		t.Fatal(err)
	}
	// Each opening balance is two legs (the account's and the vault's), each transfer two.
	if st.Users != 300 || st.Accounts != 600 || st.Transfers != 1500 || st.LedgerRows != 1200+3000 {
		t.Fatalf("stats %+v", st)
	}
	var users, accounts, ledger, creds int
	s.db.Get(&users, `SELECT count(*) FROM users WHERE email LIKE '%@bulk.meridian.test'`)
	s.db.Get(&accounts, `SELECT count(*) FROM accounts WHERE class = 'customer'`)
	s.db.Get(&ledger, `SELECT count(*) FROM transactions`)
	s.db.Get(&creds, `SELECT count(*) FROM credentials`)
	if users != 300 || creds != 300 || accounts != 600 || ledger != 4200 {
		t.Fatalf("users %d, credentials %d, accounts %d, ledger rows %d", users, creds, accounts, ledger)
	}
	var selfTransfers int
	s.db.Get(&selfTransfers, `SELECT count(*) FROM transactions WHERE kind = 'transfer' AND from_account_id = to_account_id`)
	if selfTransfers != 0 {
		t.Fatalf("%d transfers from an account to itself", selfTransfers)
	}
	wantLedgersBalanced(t, s)
	if n := auditCount(t, s, "SEED_BULK"); n != 1 {
		t.Fatalf("%d SEED_BULK audit rows", n)
	}
	// Bulk users can sign in and use the bank like anyone.
	u := signInAs(t, s, "user17@bulk.meridian.test", BulkPassword)
	accs, err := s.ListAccounts(ctx, u, nil)
	if err != nil || len(accs) != 2 {
		t.Fatalf("user17's accounts %+v %v", accs, err)
	}
	hist, _, err := s.History(ctx, u, HistoryQuery{})
	if err != nil || len(hist) < 2 {
		t.Fatalf("user17's history %d rows, %v", len(hist), err)
	}

	// Deterministic: the same seed on another empty database gives the same
	// data; another seed does not.
	same := newService(t)
	if _, err := same.SeedBulk(ctx, same.DB(), opts); err != nil {
		t.Fatal(err)
	}
	other := newService(t)
	opts.Seed = 8
	if _, err := other.SeedBulk(ctx, other.DB(), opts); err != nil {
		t.Fatal(err)
	}
	a, b, c := bulkFingerprint(t, s), bulkFingerprint(t, same), bulkFingerprint(t, other)
	if a != b {
		t.Fatal("the same seed gave different data")
	}
	if a == c {
		t.Fatal("another seed gave the same data")
	}

	// A second run adds more users after the first ones.
	st, err = s.SeedBulk(ctx, s.DB(), BulkOptions{Users: 10, Seed: 1})
	if err != nil || st.Users != 10 || st.Accounts != 10 {
		t.Fatalf("second run %+v %v", st, err)
	}
	signInAs(t, s, "user310@bulk.meridian.test", BulkPassword)
	wantLedgersBalanced(t, s)

	for _, bad := range []BulkOptions{{Users: 0}, {Users: 1, AccountsPerUser: 6}, {Users: 1, TransfersPerUser: -1}} {
		_, err := s.SeedBulk(ctx, s.DB(), bad)
		wantKind(t, err, errs.Invalid, "invalid_input")
	}
}

// BenchmarkSeedBulk measures the bulk seed at the size of the benchmarks:
// go test ./pkg/bank -run '^$' -bench SeedBulk -benchtime 1x
func BenchmarkSeedBulk(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := newService(b)
		b.StartTimer()
		st, err := s.SeedBulk(ctx, s.DB(), BulkOptions{Users: 100_000, AccountsPerUser: 1, TransfersPerUser: 5, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		// As meridian seed does after the load (as the tables' owner).
		if err := db.VacuumAnalyze(ctx, s.db, "users", "accounts", "transactions"); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(st.LedgerRows), "ledger-rows")
	}
}

// The seeds run as the runtime role, which may neither change a ledger row
// nor switch a trigger off: the demo's history is dated as it is written,
// and the bulk load keeps every foreign key and the ledger totals.
func TestSeedsAsRuntimeRole(t *testing.T) {
	t.Parallel()
	app, superURL := testdb.NewAsApp(t)
	owner, err := db.Open(ctx, superURL)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	tokens, _ := auth.NewTokens([]byte(strings.Repeat("s", 32)), time.Hour)
	s := New(app, tokens, Settings{})
	if created, err := s.SeedDemo(ctx); err != nil || !created {
		t.Fatalf("SeedDemo as the runtime role: %v %v", created, err)
	}
	var months int
	if err := s.db.Get(&months, `SELECT count(DISTINCT date_trunc('month', created_at)) FROM transactions`); err != nil || months < 4 {
		t.Fatalf("the demo ledger spans %d months (%v), want its history spread out", months, err)
	}
	// The opening row is dated when the account was opened, each transfer's
	// two rows share one date.
	var odd int
	s.db.Get(&odd, `SELECT count(*) FROM transactions t JOIN accounts a ON a.id = t.account_id
		WHERE t.kind = 'opening' AND a.class = 'customer' AND t.created_at <> a.created_at`)
	if odd != 0 {
		t.Fatalf("%d opening rows not dated with their account", odd)
	}
	// The bulk seed writes the ledger directly: as the schema's owner, which
	// the runtime role may not.
	st, err := s.SeedBulk(ctx, owner, BulkOptions{Users: 50, AccountsPerUser: 2, TransfersPerUser: 3, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if st.Users != 50 || st.Transfers != 150 {
		t.Fatalf("stats %+v", st)
	}
	wantLedgersBalanced(t, s)
	var totals, scan int64
	s.db.Get(&totals, `SELECT sum(transactions) FROM ledger_totals`)
	s.db.Get(&scan, `SELECT count(*) FROM transactions WHERE user_id IS NOT NULL`) // the totals count the customers' rows
	if totals != scan {
		t.Fatalf("ledger totals count %d rows, the ledger has %d", totals, scan)
	}
}

// Bulk users share a published password: SeedBulk refuses a database
// holding users no seed created, unless forced; demo and bulk users do not
// count against it.
func TestSeedBulkRefusesARealDatabase(t *testing.T) {
	t.Parallel()
	s := newService(t)
	if _, err := s.SeedDemo(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SeedBulk(ctx, s.DB(), BulkOptions{Users: 3, Seed: 1}); err != nil {
		t.Fatalf("bulk seed after the demo seed: %v", err)
	}
	if err := s.CheckTestDatabase(ctx); err != nil {
		t.Fatalf("demo and bulk users only: %v", err)
	}
	newCustomer(t, s, "Real Person")
	before := stateOf(t, s)
	_, err := s.SeedBulk(ctx, s.DB(), BulkOptions{Users: 3, Seed: 2})
	wantKind(t, err, errs.Conflict, "not_a_test_database")
	wantKind(t, s.CheckTestDatabase(ctx), errs.Conflict, "not_a_test_database")
	wantUnchanged(t, s, before)
	st, err := s.SeedBulk(ctx, s.DB(), BulkOptions{Users: 3, Seed: 2, Force: true})
	if err != nil || st.Users != 3 {
		t.Fatalf("forced bulk seed: %+v %v", st, err)
	}
}

// TestSeedBulkDatesNothingInTheFuture: bulk data is history; an account
// opens an hour after its holder joins, so a holder who "joined" in the
// last hour would have had an account, and its opening balance, dated
// after the seed ran (seed 35 draws one such holder among 300). A restore
// to a point in time rightly refuses ledger rows begun after it.
func TestSeedBulkDatesNothingInTheFuture(t *testing.T) {
	t.Parallel()
	s := newService(t)
	if _, err := s.SeedBulk(ctx, s.db, BulkOptions{Users: 300, AccountsPerUser: 1, Seed: 35}); err != nil {
		t.Fatal(err)
	}
	var future int
	if err := s.db.Get(&future, `SELECT (SELECT count(*) FROM users WHERE created_at > now()) + (SELECT count(*) FROM accounts WHERE created_at > now())
		+ (SELECT count(*) FROM transactions WHERE created_at > now())`); err != nil {
		t.Fatal(err)
	}
	if future != 0 {
		t.Fatalf("%d users, accounts or ledger rows are dated after the seed", future)
	}
}
