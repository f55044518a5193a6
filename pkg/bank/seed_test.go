package bank

import (
	"fmt"
	neturl "net/url"
	"os"
	"strings"
	"testing"

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
	wantLedgersBalanced(t, s)

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
	s.db.Get(&n, `SELECT count(*) FROM accounts`)
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
		SELECT a.account_number FROM accounts a
		LEFT JOIN (SELECT account_id, sum(CASE transaction_type WHEN 'CREDIT' THEN amount ELSE -amount END) AS l
			FROM transactions GROUP BY account_id) t ON t.account_id = a.id
		WHERE a.balance <> COALESCE(t.l, 0) OR a.balance < 0`); err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Fatalf("%d accounts whose balance is negative or differs from the ledger, e.g. %s", len(bad), bad[0])
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
	st, err := s.SeedBulk(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if st.Users != 300 || st.Accounts != 600 || st.Transfers != 1500 || st.LedgerRows != 600+3000 {
		t.Fatalf("stats %+v", st)
	}
	var users, accounts, ledger, creds int
	s.db.Get(&users, `SELECT count(*) FROM users WHERE email LIKE '%@bulk.meridian.test'`)
	s.db.Get(&accounts, `SELECT count(*) FROM accounts`)
	s.db.Get(&ledger, `SELECT count(*) FROM transactions`)
	s.db.Get(&creds, `SELECT count(*) FROM credentials`)
	if users != 300 || creds != 300 || accounts != 600 || ledger != 3600 {
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
	if _, err := same.SeedBulk(ctx, opts); err != nil {
		t.Fatal(err)
	}
	other := newService(t)
	opts.Seed = 8
	if _, err := other.SeedBulk(ctx, opts); err != nil {
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
	st, err = s.SeedBulk(ctx, BulkOptions{Users: 10, Seed: 1})
	if err != nil || st.Users != 10 || st.Accounts != 10 {
		t.Fatalf("second run %+v %v", st, err)
	}
	signInAs(t, s, "user310@bulk.meridian.test", BulkPassword)
	wantLedgersBalanced(t, s)

	for _, bad := range []BulkOptions{{Users: 0}, {Users: 1, AccountsPerUser: 6}, {Users: 1, TransfersPerUser: -1}} {
		_, err := s.SeedBulk(ctx, bad)
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
		st, err := s.SeedBulk(ctx, BulkOptions{Users: 100_000, AccountsPerUser: 1, TransfersPerUser: 5, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(st.LedgerRows), "ledger-rows")
	}
}

// Without the right to skip triggers (not a superuser), SeedBulk still
// works, with every foreign key checked.
func TestSeedBulkWithoutSuperuser(t *testing.T) {
	t.Parallel()
	url := testdb.URL(t)
	role := fmt.Sprintf("bulk_tester_%d", os.Getpid())
	setup, err := db.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		setup.Exec(`DROP OWNED BY ` + role)
		setup.Exec(`DROP ROLE IF EXISTS ` + role)
		setup.Close()
	})
	for _, q := range []string{
		`DO $$ BEGIN CREATE ROLE ` + role + ` NOSUPERUSER NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`,
		`GRANT ALL ON ALL TABLES IN SCHEMA public TO ` + role,
		`GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO ` + role,
	} {
		if _, err := setup.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	dsn := url + " options='-c role=" + role + "'"
	if strings.Contains(url, "://") {
		sep := "?"
		if strings.Contains(url, "?") {
			sep = "&"
		}
		dsn = url + sep + "options=" + neturl.QueryEscape("-c role="+role)
	}
	conn, err := db.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	var super bool
	if err := conn.Get(&super, `SELECT rolsuper FROM pg_roles WHERE rolname = current_user`); err != nil || super {
		t.Fatalf("still a superuser (%v)", err)
	}
	s := New(conn, nil, Settings{})
	st, err := s.SeedBulk(ctx, BulkOptions{Users: 50, AccountsPerUser: 2, TransfersPerUser: 3, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if st.Users != 50 || st.Transfers != 150 {
		t.Fatalf("stats %+v", st)
	}
	wantLedgersBalanced(t, s)
}
