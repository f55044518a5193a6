package bank

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"meridian/pkg/auth"
	"meridian/pkg/db"
	"meridian/pkg/money"
	"meridian/pkg/testdb"
)

// TestThroughPgBouncer: every query works through PgBouncer in transaction
// mode with fewer server connections than clients: migrations (down and
// up, and the grants), the demo seed (its lock), and concurrent transfers,
// money requests, history, dashboards and notifications; money is kept
// (every balance equals its ledger, the total is unchanged) and no
// advisory lock is left behind on a server connection. Timeouts that
// PgBouncer refuses as startup parameters are dropped by db.Open, not fatal.
func TestThroughPgBouncer(t *testing.T) {
	super := testdb.URL(t)
	bouncer := testdb.PgBouncer(t, super)

	owner, err := db.Open(ctx, bouncer)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	// Several instances migrate at once: the lock lets one apply each
	// migration. (A session lock would not hold: PgBouncer hands the next
	// statement, of this client or another, whichever server connection is
	// free, and a session's advisory lock is granted again to its session.)
	if _, err := db.Down(ctx, owner, 2); err != nil {
		t.Fatalf("migrate down through PgBouncer: %v", err)
	}
	var applied sync.Map
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			done, err := db.Up(ctx, owner, 0)
			if err != nil {
				t.Errorf("migrate up through PgBouncer: %v", err)
			}
			for _, v := range done {
				if _, twice := applied.LoadOrStore(v, true); twice {
					t.Errorf("migration %d applied twice", v)
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	if err := db.GrantRuntime(ctx, owner, testdb.AppRole); err != nil {
		t.Fatalf("grants through PgBouncer: %v", err)
	}

	pool, err := db.Open(ctx, testdb.AppURL(bouncer), db.Timeouts(5*time.Second))
	if err != nil {
		t.Fatalf("open with timeouts through PgBouncer: %v", err)
	}
	defer pool.Close()
	// PgBouncer refused them as startup parameters, so the pool runs with
	// the role's settings (README: ALTER ROLE … SET statement_timeout).
	if got, err := db.StatementTimeout(ctx, pool); err != nil || got != 0 {
		t.Fatalf("statement_timeout through PgBouncer: %s (%v); want the role's (none)", got, err)
	}
	pool.SetMaxOpenConns(4 * testdb.PgBouncerPoolSize)
	tokens, err := auth.NewTokens([]byte(strings.Repeat("s", 32)), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	s := New(pool, tokens, Settings{RequestsTTL: time.Hour, LookupPerMinute: 1000})
	// Instances starting at once: one seeds the demo data.
	var seeders sync.WaitGroup
	var seeded atomic.Int32
	for i := 0; i < 4; i++ {
		seeders.Add(1)
		go func() {
			defer seeders.Done()
			ok, err := s.SeedDemo(ctx)
			if err != nil {
				t.Errorf("demo seed through PgBouncer: %v", err)
			}
			if ok {
				seeded.Add(1)
			}
		}()
	}
	seeders.Wait()
	if n := seeded.Load(); n != 1 || t.Failed() {
		t.Fatalf("%d instances seeded the demo data, want 1", n)
	}

	const workers, rounds = 8, 6
	type pair struct {
		a, b       Actor
		accA, accB Account
	}
	pairs := make([]pair, workers/2)
	for i := range pairs {
		p := &pairs[i]
		p.a, p.b = newCustomer(t, s, "Pool Alice"), newCustomer(t, s, "Pool Bob")
		p.accA, p.accB = openAccount(t, s, p.a, "100.00"), openAccount(t, s, p.b, "100.00")
	}
	var total money.Amount
	if err := pool.Get(&total, `SELECT sum(balance) FROM accounts`); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, workers*rounds*8)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			p := pairs[w/2]
			me, other, mine, theirs := p.a, p.b, p.accA, p.accB
			if w%2 == 1 {
				me, other, mine, theirs = p.b, p.a, p.accB, p.accA
			}
			fail := func(what string, err error) {
				if err != nil {
					errc <- fmt.Errorf("worker %d %s: %w", w, what, err)
				}
			}
			for i := 0; i < rounds; i++ {
				_, err := s.Transfer(ctx, me, TransferInput{AccountID: mine.AccountNumber, ToAccountID: theirs.AccountNumber, Amount: 1_00, Description: "pooled"}, fmt.Sprintf("k-%d-%d", w, i))
				fail("transfer", err)
				req, err := s.CreateMoneyRequest(ctx, me, MoneyRequestInput{RequesterID: mine.AccountNumber, RecipientID: theirs.AccountNumber, Amount: 50, Description: "pooled request"})
				fail("request", err)
				if err == nil {
					_, err = s.AcceptMoneyRequest(ctx, other, req.ID, "")
					fail("accept", err)
				}
				_, _, err = s.History(ctx, me, HistoryQuery{})
				fail("history", err)
				_, err = s.UserSummary(ctx, me)
				fail("summary", err)
				_, err = s.ListMoneyRequests(ctx, me, nil)
				fail("list requests", err)
				_, err = s.ListNotifications(ctx, me, nil, "all", 0)
				fail("notifications", err)
			}
		}(w)
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	if err := s.SealPending(ctx); err != nil {
		t.Fatalf("sealing through PgBouncer: %v", err)
	}
	var after money.Amount
	if err := pool.Get(&after, `SELECT sum(balance) FROM accounts`); err != nil {
		t.Fatal(err)
	}
	if after != total {
		t.Fatalf("money changed through PgBouncer: %s before, %s after", total, after)
	}
	for _, p := range pairs {
		for _, acc := range []Account{p.accA, p.accB} {
			if b, l := balanceOf(t, s, acc.ID), ledgerSum(t, s, acc.ID); b != l {
				t.Fatalf("account %s: balance %s, ledger %s", acc.AccountNumber, b, l)
			}
		}
		rows, _, err := s.History(ctx, p.a, HistoryQuery{AccountNumber: p.accA.AccountNumber, Page: Page{Limit: 1000}})
		if err != nil || len(rows) != 1+4*rounds {
			t.Fatalf("history of %s: %d rows (%v), want %d", p.accA.AccountNumber, len(rows), err, 1+4*rounds)
		}
	}
	direct, err := db.Open(ctx, super)
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	var locks int
	if err := direct.Get(&locks, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'`); err != nil || locks != 0 {
		t.Fatalf("%d advisory locks left on PgBouncer's server connections (%v)", locks, err)
	}
}
