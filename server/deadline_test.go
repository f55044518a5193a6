package server

import (
	"io"
	"net/http"
	"testing"
	"time"

	"meridian/pkg/auth"
	"meridian/pkg/bank"
	"meridian/pkg/db"
	"meridian/pkg/testdb"
)

// newEnvWithPool is newEnv with options for the pool. Its server has the
// default deadline (for the setup); withTimeout swaps in one with another.
func newEnvWithPool(t *testing.T, opts ...db.Option) *testEnv {
	t.Helper()
	super := testdb.URL(t)
	url := testdb.AppURL(super)
	conn, err := db.Open(ctxBG, url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	tokens, _ := auth.NewTokens(testSecret, time.Hour)
	e := &testEnv{t: t, url: url, superURL: super, svc: bank.New(conn, tokens, bank.Settings{RequestsTTL: time.Hour, LookupPerMinute: 1000})}
	e.srv = New(e.svc, NewHub(e.svc, quiet), Options{Logger: quiet, Version: "test"})
	return e
}

// withTimeout replaces e's server by one on the same service and hub whose
// requests have the given deadline.
func (e *testEnv) withTimeout(d time.Duration) {
	e.srv = New(e.svc, e.srv.hub, Options{Logger: quiet, Version: "test", RequestTimeout: d})
}

// lockAccount holds a row lock on an account from another connection until
// the returned function is called, so a payment touching it is held back.
func (e *testEnv) lockAccount(id int64) (release func()) {
	e.t.Helper()
	return e.holdRows(e.url, `SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, id)
}

// lockDailyCount holds the row of user's USD count of today against the
// daily limit (daily_outgoing) from another connection, as a payment of
// theirs in flight does, until the returned function is called.
func (e *testEnv) lockDailyCount(user int64) (release func()) {
	e.t.Helper()
	return e.holdRows(e.superURL, `INSERT INTO daily_outgoing (user_id, currency, day, total) VALUES ($1, 'USD', (now() AT TIME ZONE 'UTC')::date, 0)
		ON CONFLICT (user_id, currency, day) DO UPDATE SET total = daily_outgoing.total`, user)
}

// holdRows runs stmt in a transaction of its own on url, which keeps the
// locks it took until the returned function (or the test's end) ends it.
func (e *testEnv) holdRows(url, stmt string, args ...any) (release func()) {
	e.t.Helper()
	other, err := db.Open(ctxBG, url)
	if err != nil {
		e.t.Fatal(err)
	}
	tx, err := other.Begin()
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := tx.Exec(stmt, args...); err != nil {
		e.t.Fatal(err)
	}
	done := false
	release = func() {
		if !done {
			done = true
			tx.Rollback()
			other.Close()
		}
	}
	e.t.Cleanup(release)
	return release
}

// TestRequestDeadline: a request that outlives its deadline answers 503
// timeout with Retry-After, and nothing of it commits: no money moved, no
// ledger row, and its Idempotency-Key stays free. Whatever the lock it
// meets: an account held by another transaction (the posting waits in the
// queue, never on the lock, until its request's deadline), or the sender's
// daily count (post_batch waits for that one, no longer than the
// connection's lock_timeout allows: the request's own deadline is far).
func TestRequestDeadline(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		timeout time.Duration
		opts    []db.Option
		lock    func(e *testEnv, account int64, sender int64) (release func())
	}{
		{"held account, request deadline", 300 * time.Millisecond, nil,
			func(e *testEnv, account, _ int64) func() { return e.lockAccount(account) }},
		{"held daily count, lock_timeout", time.Minute, []db.Option{db.Timeouts(300 * time.Millisecond)},
			func(e *testEnv, _, sender int64) func() { return e.lockDailyCount(sender) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnvWithPool(t, c.opts...)
			a := e.customer("Tim Out")
			b := e.customer("Bea Later")
			aid, anum := e.account(a, "100.00")
			_, bnum := e.account(b, "0")
			e.withTimeout(c.timeout)
			release := c.lock(e, aid, a.ID)

			start := time.Now()
			r := e.want(e.do("POST", "/api/user/money-transfer", a.Token,
				map[string]any{"account_id": anum, "to_account_id": bnum, "amount": "10.00"}, "Idempotency-Key", "slow-1"), 503, "transfer past its deadline")
			if code := r.JSON(t)["code"]; code != "timeout" || r.Header.Get("Retry-After") == "" {
				t.Fatalf("got %v, Retry-After %q", code, r.Header.Get("Retry-After"))
			}
			if took := time.Since(start); took > 900*time.Millisecond {
				t.Fatalf("answered after %s", took)
			}
			release()

			var balance string
			var rows int
			e.svc.DB().Get(&balance, `SELECT balance::text FROM accounts WHERE id = $1`, aid)
			e.svc.DB().Get(&rows, `SELECT count(*) FROM transactions WHERE kind = 'transfer'`)
			if balance != "100.00" || rows != 0 {
				t.Fatalf("after a timed-out transfer: balance %s, %d transfer rows", balance, rows)
			}
			r = e.want(e.do("POST", "/api/user/money-transfer", a.Token,
				map[string]any{"account_id": anum, "to_account_id": bnum, "amount": "10.00"}, "Idempotency-Key", "slow-1"), 201, "the same transfer once the lock is gone")
			if r.Header.Get("Idempotent-Replayed") != "" {
				t.Fatal("the timed-out attempt stored its key")
			}
		})
	}
}

// TestWebSocketOutlivesRequestTimeout: /ws is exempt from the deadline.
func TestWebSocketOutlivesRequestTimeout(t *testing.T) {
	t.Parallel()
	e := newEnvWithPool(t)
	a := e.customer("Wendy Long")
	b := e.customer("Paul Payer")
	_, anum := e.account(a, "0")
	_, bnum := e.account(b, "50.00")
	payer, err := e.svc.Authenticate(ctxBG, b.Token)
	if err != nil {
		t.Fatal(err)
	}
	e.withTimeout(200 * time.Millisecond)
	e.startHub()
	base := e.listen()
	conn, status := dialWS(t, base, "token="+a.Token)
	if status != 101 {
		t.Fatalf("dial: %d", status)
	}
	time.Sleep(600 * time.Millisecond) // three deadlines
	if _, err := e.svc.Transfer(ctxBG, payer, bank.TransferInput{AccountID: bnum, ToAccountID: anum, Amount: 100}, ""); err != nil {
		t.Fatal(err)
	}
	if p := readPush(t, conn, 3*time.Second); p.UserID != a.ID {
		t.Fatalf("push %+v", p)
	}
}

// TestDeadlinePerRequest: each request on a kept-alive connection gets its
// own deadline, not the spent one of the request before.
func TestDeadlinePerRequest(t *testing.T) {
	t.Parallel()
	e := newEnvWithPool(t)
	a := e.customer("Kay Alive")
	e.withTimeout(300 * time.Millisecond)
	base := e.listen()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	for i := 0; i < 3; i++ {
		req, _ := http.NewRequest("GET", base+"/api/auth/me", nil)
		req.Header.Set("Authorization", "Bearer "+a.Token)
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("request %d on one connection: %d", i, res.StatusCode)
		}
		time.Sleep(400 * time.Millisecond) // past the previous request's deadline
	}
}
