//go:build cluster

// Package cluster runs Meridian as it runs on more than one machine and checks
// what only such a deployment can get wrong. It is built only with the tag
// "cluster" (make cluster-test), so `go test ./...` never starts a cluster;
// run that way, every missing prerequisite is a failure, never a skip.
//
// scripts/cluster/cluster.sh brings the cluster up on loopback: a PostgreSQL
// primary and a synchronous standby (pg_basebackup; synchronous_commit =
// remote_apply), PgBouncer in transaction mode in front of the primary, two
// `meridian serve` instances (queries through PgBouncer, LISTEN directly,
// reads from the standby) and HAProxy in front of them, from the files in
// deploy/. Then, in order:
//
//	(a) a transfer made through instance A is pushed to a WebSocket held by
//	    instance B;
//	(b) a read right after a write, served by instance B from the standby,
//	    sees the write;
//	(d) transfers/s through HAProxy with one instance and with two, and the
//	    transfer p50 with synchronous_commit = remote_apply and local;
//	(c) the failover drill (then (a) again: the LISTEN sessions found the
//	    new primary by themselves): under transfer load through HAProxy, the primary
//	    is stopped at once (pg_ctl -m immediate), the standby promoted and
//	    PgBouncer repointed (cluster.sh failover); then every transfer
//	    answered 201 is in the new primary's ledger, no transfer is there
//	    that was not answered 201, every balance equals its ledger, the
//	    balances of each currency add up to the ledger totals, and the
//	    longest time without a 201 is reported;
//	(c') the same drill on a second cluster without PgBouncer, where
//	    serve's database_url lists both nodes with
//	    target_session_attrs=read-write: the failover is the stop and the
//	    promotion, nothing is repointed.
//
// The figures are printed as "CLUSTER <name>: <value>" lines for the README.
//
// Environment: MERIDIAN_BIN (default ../../bin/meridian), CLUSTER_LOAD
// (seconds per throughput run, default 10), CLUSTER_CONCURRENCY (default 16).
package cluster

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"meridian/pkg/db"
	"meridian/pkg/loadtest"
	"meridian/pkg/money"
)

const seedUsers = 40

// headerCommitLSN is server.HeaderCommitLSN: a write's answer tells its
// commit position; a read that sends it back is served by a replica only
// once the replica has replayed it.
const headerCommitLSN = "X-Meridian-Commit-LSN"

func TestCluster(t *testing.T) {
	bin := prerequisites(t)
	loadSecs := envInt(t, "CLUSTER_LOAD", 10)
	concurrency := envInt(t, "CLUSTER_CONCURRENCY", 16)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	c := up(t, bin, "CLUSTER_POOLER=pgbouncer")

	owner, err := db.Open(ctx, c.env["OWNER_PRIMARY_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer func() { owner.Close() }()
	owner.SetMaxOpenConns(2)
	before, err := loadtest.TakeMark(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	c.meridian(t, c.env["APP_PRIMARY_URL"], "seed", "--users", strconv.Itoa(seedUsers), "--seed", "3")
	customers, err := loadtest.BulkCustomers(ctx, owner, before.MaxUserID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(customers) != seedUsers {
		t.Fatalf("seeded %d customers, found %d", seedUsers, len(customers))
	}
	probe, load := customers[:4], customers[4:]

	t.Run("PushAcrossInstances", func(t *testing.T) { pushAcrossInstances(ctx, t, c, probe[0], probe[1]) })
	t.Run("ReadYourWriteOnStandby", func(t *testing.T) { readYourWrite(ctx, t, c, probe[2], probe[3]) })

	// (d) Throughput: one instance, then two, through HAProxy; then two
	// with synchronous_commit = local, for the cost of the synchronous standby.
	d, err := loadtest.New(loadtest.Options{BaseURL: c.env["URL"], Customers: load, Concurrency: concurrency,
		Duration: time.Duration(loadSecs) * time.Second, Seed: 5, RequestTimeout: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Login(ctx); err != nil {
		t.Fatal(err)
	}
	run := func(name string) *loadtest.Report {
		t.Helper()
		rep, err := d.RunTransfers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Errors > 0 {
			t.Errorf("%s: %d errors (%v): %v", name, rep.Errors, rep.Status, rep.ErrorSamples)
		}
		// About 5% of the load asks for more than any balance (422); a figure
		// made mostly of refusals (a daily limit reached, say) measures nothing.
		if rep.TransfersPerSecond < 0.8*rep.PerSecond {
			t.Errorf("%s: only %.0f of %.0f requests/s were payments (answers %v)", name, rep.TransfersPerSecond, rep.PerSecond, rep.Status)
		}
		t.Logf("%s: %d requests in %s, %.0f/s (201: %.0f/s), p50 %s p99 %s, answers %v", name, rep.Requests,
			rep.Elapsed.Round(time.Millisecond), rep.PerSecond, rep.TransfersPerSecond, rep.Latency.P50, rep.Latency.P99, rep.Status)
		return rep
	}
	c.haproxy(t, "disable server meridian/b")
	one := run("one instance (b drained)")
	c.haproxy(t, "enable server meridian/b")
	c.waitServersUp(ctx, t, 2)
	two := run("two instances")
	c.script(t, "sync-commit", "local")
	local := run("two instances, synchronous_commit = local")
	c.script(t, "sync-commit", "remote_apply")
	// Again with remote_apply: the machine's other work moves the figures
	// by tens of per cent; two runs of remote_apply around the local one
	// show how much.
	two2 := run("two instances, again")

	t.Run("Failover", func(t *testing.T) {
		failover(ctx, t, c, owner, load, concurrency, "with PgBouncer")
	})
	// The LISTEN sessions found the new primary by themselves.
	t.Run("PushAfterFailover", func(t *testing.T) { pushAcrossInstances(ctx, t, c, probe[1], probe[0]) })
	// The same drill on a second cluster without PgBouncer: serve's
	// database_url lists both nodes with target_session_attrs=read-write,
	// so the failover is the stop and the promotion only.
	t.Run("FailoverWithoutPooler", func(t *testing.T) { failoverWithoutPooler(ctx, t, bin, concurrency) })

	fmt.Printf("CLUSTER throughput one instance: %.0f transfer requests/s (p50 %s, p99 %s)\n", one.PerSecond, ms(one.Latency.P50), ms(one.Latency.P99))
	fmt.Printf("CLUSTER throughput two instances: %.0f and %.0f transfer requests/s (p50 %s and %s, p99 %s and %s)\n", two.PerSecond, two2.PerSecond,
		ms(two.Latency.P50), ms(two2.Latency.P50), ms(two.Latency.P99), ms(two2.Latency.P99))
	fmt.Printf("CLUSTER throughput ratio two/one: %.2f (first two-instance run; %.2f with the second) (%d clients, %d s each, HAProxy -> serve -> PgBouncer -> primary)\n",
		two.PerSecond/one.PerSecond, two2.PerSecond/one.PerSecond, concurrency, loadSecs)
	fmt.Printf("CLUSTER transfer p50 synchronous_commit=remote_apply: %s and %s (p99 %s and %s; %.0f and %.0f/s); local: %s (p99 %s; %.0f/s)\n",
		ms(two.Latency.P50), ms(two2.Latency.P50), ms(two.Latency.P99), ms(two2.Latency.P99), two.PerSecond, two2.PerSecond,
		ms(local.Latency.P50), ms(local.Latency.P99), local.PerSecond)
}

// pushAcrossInstances: the recipient holds a WebSocket on instance B; each
// transfer is made through instance A; every one must be pushed.
func pushAcrossInstances(ctx context.Context, t *testing.T, c *cluster, from, to loadtest.Customer) {
	client := loadtest.NewClient(2, 15*time.Second)
	tokA, err := loadtest.SignIn(ctx, client, c.env["SERVE_A_URL"], from.Email, from.Password)
	if err != nil {
		t.Fatal(err)
	}
	tokB, err := loadtest.SignIn(ctx, client, c.env["SERVE_B_URL"], to.Email, to.Password)
	if err != nil {
		t.Fatal(err)
	}
	wsURL := "ws" + strings.TrimPrefix(c.env["SERVE_B_URL"], "http") + "/ws?user_id=" + strconv.FormatInt(to.UserID, 10)
	conn, resp, err := (&websocket.Dialer{HandshakeTimeout: 5 * time.Second}).DialContext(ctx, wsURL, http.Header{"Authorization": {"Bearer " + tokB}})
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("WebSocket on instance B: HTTP %d: %v", status, err)
	}
	defer conn.Close()
	msgs := make(chan string, 64)
	go func() {
		defer close(msgs)
		for {
			_, m, err := conn.ReadMessage()
			if err != nil {
				return
			}
			var p struct {
				Message string `json:"message"`
				UserID  int64  `json:"user_id"`
			}
			if json.Unmarshal(m, &p) == nil && p.Message != "" {
				msgs <- p.Message
			}
		}
	}()
	const n = 10
	var worst time.Duration
	for i := 0; i < n; i++ {
		amount := money.Amount(101 + i) // 1.01, 1.02, ...: each push names its own amount
		start := time.Now()
		id := transfer(ctx, t, client, c.env["SERVE_A_URL"], tokA, from.Accounts[0], to.Accounts[0], amount)
		want := amount.String()
		deadline := time.After(5 * time.Second)
	wait:
		for {
			select {
			case m, ok := <-msgs:
				if !ok {
					t.Fatalf("the WebSocket on instance B closed before the push of transfer %d", id)
				}
				if strings.Contains(m, want) {
					break wait
				}
			case <-deadline:
				t.Fatalf("transfer %d (%s) made through instance A was not pushed to the WebSocket on instance B within 5 s", id, want)
			}
		}
		if d := time.Since(start); d > worst {
			worst = d
		}
	}
	t.Logf("%d transfers through A, each pushed to the socket on B; slowest request-to-push %s", n, worst.Round(time.Millisecond))
	fmt.Printf("CLUSTER push across instances: %d of %d pushed, slowest request-to-push %s\n", n, n, ms(worst))
}

// readYourWrite: each transfer is made through instance A, and the sender's
// history is read through instance B at once, which serves it from the
// standby; the new transfer must be in it, every time. The standby must
// have served reads (its meridian_app sessions and committed transactions).
func readYourWrite(ctx context.Context, t *testing.T, c *cluster, from, to loadtest.Customer) {
	standby, err := db.Open(ctx, c.env["OWNER_STANDBY_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer standby.Close()
	client := loadtest.NewClient(2, 15*time.Second)
	tok, err := loadtest.SignIn(ctx, client, c.env["SERVE_A_URL"], from.Email, from.Password)
	if err != nil {
		t.Fatal(err)
	}
	xacts := func() int64 {
		var n int64
		// The statistics of the standby's own sessions (read-only transactions count).
		if err := standby.GetContext(ctx, &n, `SELECT COALESCE(sum(xact_commit), 0) FROM pg_stat_database WHERE datname = 'meridian'`); err != nil {
			t.Fatal(err)
		}
		return n
	}
	x0 := xacts()
	f0 := metric(ctx, t, client, c.env["SERVE_B_URL"], "meridian_replica_fallbacks_total")
	const n = 50
	for i := 0; i < n; i++ {
		id, lsn := transferLSN(ctx, t, client, c.env["SERVE_A_URL"], tok, from.Accounts[0], to.Accounts[0], money.Amount(100+i))
		if lsn == "" {
			t.Fatalf("transfer %d through instance A: no %s in the answer (database_read_urls not in effect?)", id, headerCommitLSN)
		}
		// Instance B never saw the write: the client carries its position.
		status, body := get(ctx, t, client, c.env["SERVE_B_URL"]+"/api/user/transactions/history?limit=5", tok, lsn)
		if status != http.StatusOK {
			t.Fatalf("history through instance B: HTTP %d: %s", status, body)
		}
		var page struct {
			Data []struct {
				ID int64 `json:"id"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatalf("history: %v: %s", err, body)
		}
		found := false
		for _, r := range page.Data {
			found = found || r.ID == id
		}
		if !found {
			t.Fatalf("read %d: transfer %d, answered 201 by instance A, is not in the history read at once through instance B: %s", i, id, body)
		}
	}
	var sessions int
	if err := standby.GetContext(ctx, &sessions, `SELECT count(*) FROM pg_stat_activity WHERE usename = 'meridian_app' AND datname = 'meridian'`); err != nil {
		t.Fatal(err)
	}
	// A session's statistics reach the shared view at the end of a
	// transaction at most once a second, or after 10 s idle.
	served := xacts() - x0
	for wait := time.Now(); served < n && time.Since(wait) < 15*time.Second; served = xacts() - x0 {
		time.Sleep(250 * time.Millisecond)
	}
	fallbacks := metric(ctx, t, client, c.env["SERVE_B_URL"], "meridian_replica_fallbacks_total") - f0
	t.Logf("%d writes through A each seen by the read through B at once; the standby has %d meridian_app sessions and committed %d transactions meanwhile; %v reads fell back to the primary", n, sessions, served, fallbacks)
	if fallbacks != 0 {
		t.Errorf("instance B sent %v of the %d reads to the primary (meridian_replica_fallbacks_total): with remote_apply the standby has every answered write", fallbacks, n)
	}
	if sessions == 0 || served < n {
		t.Fatalf("the standby has %d meridian_app sessions and committed %d transactions for %d reads: the reads were not served by it (database_read_urls)", sessions, served, n)
	}
	fmt.Printf("CLUSTER read your write on the standby: %d of %d reads through instance B saw the write made a moment before through instance A (the standby committed %d transactions meanwhile)\n", n, n, served)
}

// failoverWithoutPooler brings up a cluster with CLUSTER_POOLER=none and
// runs the failover drill on it, then the push check.
func failoverWithoutPooler(ctx context.Context, t *testing.T, bin string, concurrency int) {
	c := up(t, bin, "CLUSTER_POOLER=none")
	owner, err := db.Open(ctx, c.env["OWNER_PRIMARY_URL"])
	if err != nil {
		t.Fatal(err)
	}
	owner.SetMaxOpenConns(2)
	defer func() { owner.Close() }()
	before, err := loadtest.TakeMark(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	const users = 20
	c.meridian(t, c.env["APP_PRIMARY_URL"], "seed", "--users", strconv.Itoa(users), "--seed", "4")
	customers, err := loadtest.BulkCustomers(ctx, owner, before.MaxUserID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(customers) != users {
		t.Fatalf("seeded %d customers, found %d", users, len(customers))
	}
	failover(ctx, t, c, owner, customers[2:], concurrency, "without PgBouncer")
	pushAcrossInstances(ctx, t, c, customers[0], customers[1])
}

// failover runs transfers through HAProxy, fails the primary over to the
// standby under that load, and checks the ledger on the new primary.
func failover(ctx context.Context, t *testing.T, c *cluster, owner *sqlx.DB, load []loadtest.Customer, concurrency int, label string) {
	mark, err := loadtest.TakeMark(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	d, err := loadtest.New(loadtest.Options{BaseURL: c.env["URL"], Customers: load, Concurrency: concurrency / 2,
		Duration: 5 * time.Minute, Seed: 17, ErrorBackoff: 50 * time.Millisecond, RequestTimeout: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Login(ctx); err != nil {
		t.Fatal(err)
	}
	run := d.Start(ctx)
	defer run.Stop()

	// The longest stretch without a new 201, sampled every 10 ms.
	var gapMu sync.Mutex
	var longest time.Duration
	var watching atomic.Bool
	watching.Store(true)
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		last, lastAt := d.Succeeded(), time.Now()
		for watching.Load() {
			time.Sleep(10 * time.Millisecond)
			if n := d.Succeeded(); n != last {
				gapMu.Lock()
				if g := time.Since(lastAt); g > longest {
					longest = g
				}
				gapMu.Unlock()
				last, lastAt = n, time.Now()
			}
		}
	}()

	time.Sleep(3 * time.Second)
	n0 := d.Succeeded()
	if n0 == 0 {
		t.Fatal("no transfer succeeded in the 3 s before the failover")
	}
	killedAt := time.Now()
	c.script(t, "failover")
	scripted := time.Since(killedAt)
	// Wait until transfers succeed again (a 201 after the script is back:
	// some in flight before the primary stopped may still have answered
	// while the script ran), then let the load run a while.
	n1 := d.Succeeded()
	for d.Succeeded() == n1 {
		if time.Since(killedAt) > 60*time.Second {
			t.Fatalf("no transfer succeeded in the 60 s after the failover; serve logs:\n%s", c.logs())
		}
		time.Sleep(10 * time.Millisecond)
	}
	firstAfter := time.Since(killedAt)
	time.Sleep(4 * time.Second)
	rep, err := run.Stop()
	watching.Store(false)
	<-watchDone
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("load: %d requests, %d answered 201, %d 422, %d errors (%d unknown outcome); answers %v; p50 %s p99 %s max %s",
		rep.Requests, rep.Transfers, rep.Refused, rep.Errors, rep.Uncertain, rep.Status, rep.Latency.P50, rep.Latency.P99, rep.Latency.Max)
	for _, s := range rep.ErrorSamples {
		t.Logf("  error sample: %s", s)
	}
	rctx, rcancel := context.WithTimeout(ctx, 2*time.Minute)
	resolution, err := d.Resolve(rctx)
	rcancel()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("unknown outcomes: %d; retried with the same Idempotency-Key: %d had committed, %d committed now, %d refused, %d other, %d unresolved",
		resolution.Uncertain, resolution.Replayed, resolution.CommittedNow, resolution.Refused, resolution.Other, resolution.Unresolved)
	if resolution.Unresolved > 0 || resolution.Other > 0 {
		t.Errorf("after the failover, %d transfers have no definite answer and %d answered unexpectedly: %v",
			resolution.Unresolved, resolution.Other, resolution.OtherSamples)
	}
	// Contract §5: an answer that said nothing had changed stands for a
	// transfer that did not commit.
	if resolution.Lies > 0 {
		t.Errorf("%d answers said that nothing had changed, yet had committed: %v", resolution.Lies, resolution.LieSamples)
	}

	// The ledger, on the new primary (the promoted standby).
	newPrimary, err := db.Open(ctx, c.env["OWNER_STANDBY_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer newPrimary.Close()
	var inRecovery bool
	if err := newPrimary.GetContext(ctx, &inRecovery, `SELECT pg_is_in_recovery()`); err != nil || inRecovery {
		t.Fatalf("the standby was not promoted (in recovery %v, %v)", inRecovery, err)
	}
	committed := d.Committed()
	exact := mark.MaxTransactionID
	if resolution.Unresolved > 0 {
		exact = 0
	}
	expected := mark.TotalBalance
	inv, err := loadtest.CheckInvariants(ctx, newPrimary, loadtest.InvariantOptions{ExpectedTotal: &expected, Committed: committed, ExactSince: exact})
	if err != nil {
		t.Fatal(err)
	}
	if !inv.OK {
		for _, p := range inv.Problems {
			t.Errorf("invariant: %s", p)
		}
		if len(inv.MissingCommitted) > 0 {
			t.Errorf("answered 201 but missing from the new primary's ledger: %v", inv.MissingCommitted)
		}
		if len(inv.Unanswered) > 0 {
			t.Errorf("in the ledger but never answered 201: %v", inv.Unanswered)
		}
	}
	checkCurrencyTotals(ctx, t, newPrimary)

	gapMu.Lock()
	gap := longest
	gapMu.Unlock()
	t.Logf("failover: script %s; a 201 again %s after it began; longest time without a 201 %s; %d transfers answered 201 checked in the new primary's ledger",
		scripted.Round(time.Millisecond), firstAfter.Round(time.Millisecond), gap.Round(time.Millisecond), inv.CommittedChecked)
	lost := len(inv.MissingCommitted)
	fmt.Printf("CLUSTER failover %s: %d transfers answered 201 (%d during the drill, %d settled by retrying their Idempotency-Key), %d checked in the new primary's ledger, %d lost, %d without a 201; invariant %s\n",
		label, len(committed), rep.Transfers, resolution.Replayed+resolution.CommittedNow, inv.CommittedChecked, lost, len(inv.Unanswered), map[bool]string{true: "holds", false: "BROKEN"}[inv.OK && !t.Failed()])
	fmt.Printf("CLUSTER failover %s unavailability: %.1f s without a 201 (a 201 again %.1f s after the failover began; the failover script took %.1f s)\n",
		label, gap.Seconds(), firstAfter.Seconds(), scripted.Seconds())
}

// checkCurrencyTotals: per currency, the balances add up to the ledger
// totals' net (every balance comes from the ledger), and the totals count
// every ledger row.
func checkCurrencyTotals(ctx context.Context, t *testing.T, x *sqlx.DB) {
	var rows []struct {
		Currency string `db:"currency"`
		Balances string `db:"balances"`
		Net      string `db:"net"`
		Counted  int64  `db:"counted"`
		Rows     int64  `db:"rows"`
		Equal    bool   `db:"equal"`
	}
	err := x.SelectContext(ctx, &rows, `
		WITH b AS (SELECT currency, sum(balance) AS balances FROM accounts GROUP BY currency),
		l AS (SELECT currency, sum(net) AS net, sum(transactions) AS counted FROM ledger_totals GROUP BY currency),
		r AS (SELECT a.currency, count(*) AS rows FROM transactions t JOIN accounts a ON a.id = t.account_id GROUP BY a.currency)
		SELECT COALESCE(b.currency, l.currency) AS currency, COALESCE(b.balances, 0)::text AS balances,
			COALESCE(l.net, 0)::text AS net, COALESCE(l.counted, 0) AS counted, COALESCE(r.rows, 0) AS rows,
			COALESCE(b.balances, 0) = COALESCE(l.net, 0) AS equal
		FROM b FULL JOIN l ON l.currency = b.currency LEFT JOIN r ON r.currency = COALESCE(b.currency, l.currency)
		ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if !r.Equal || r.Counted != r.Rows {
			t.Errorf("currency %s: balances %s, ledger totals net %s; ledger rows %d, counted in the totals %d", r.Currency, r.Balances, r.Net, r.Rows, r.Counted)
		}
	}
	t.Logf("per currency, balances equal the ledger totals: %+v", rows)
}

// cluster is one run of scripts/cluster/cluster.sh.
type cluster struct {
	root, dir, bin string
	env            map[string]string
}

func up(t *testing.T, bin string, env ...string) *cluster {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("/tmp", "mclt")
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{root: root, dir: dir, bin: bin}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("logs:\n%s", c.logs())
		}
		cmd := c.cmd("stop")
		if t.Failed() && os.Getenv("CLUSTER_KEEP_ON_FAILURE") == "1" {
			cmd.Env = append(cmd.Env, "CLUSTER_KEEP=1")
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("cluster.sh stop: %v\n%s", err, out)
		}
	})
	start := time.Now()
	var out []byte
	for attempt := 0; ; attempt++ {
		cmd := c.cmd("up")
		// The load sends each customer's money over and over: a limit it never
		// reaches keeps every run measuring payments (each still checked
		// against the limit), not daily_limit_exceeded refusals.
		cmd.Env = append(cmd.Env, "CLUSTER_BASE_PORT="+strconv.Itoa(freeBase(t)), "CLUSTER_DEMO=0",
			"CLUSTER_DAILY_TRANSFER_LIMIT=1000000000.00")
		cmd.Env = append(cmd.Env, env...)
		out, err = cmd.CombinedOutput()
		if err == nil {
			break
		}
		if attempt < 2 && bytes.Contains(out, []byte("is in use")) {
			continue // another process took a port of the range first: another range
		}
		t.Fatalf("cluster.sh up: %v\n%s", err, out)
	}
	t.Logf("cluster up in %s:\n%s", time.Since(start).Round(time.Millisecond), out)
	c.env = readEnv(t, filepath.Join(dir, "cluster.env"))
	for _, k := range []string{"URL", "SERVE_A_URL", "SERVE_B_URL", "APP_PRIMARY_URL", "OWNER_PRIMARY_URL", "OWNER_STANDBY_URL", "HAPROXY_SOCKET"} {
		if c.env[k] == "" {
			t.Fatalf("cluster.env has no %s", k)
		}
	}
	return c
}

func (c *cluster) cmd(args ...string) *exec.Cmd {
	cmd := exec.Command("bash", append([]string{filepath.Join(c.root, "scripts/cluster/cluster.sh")}, args...)...)
	cmd.Env = append(os.Environ(), "CLUSTER_DIR="+c.dir, "MERIDIAN_BIN="+c.bin)
	return cmd
}

func (c *cluster) script(t *testing.T, args ...string) {
	t.Helper()
	out, err := c.cmd(args...).CombinedOutput()
	if err != nil {
		t.Fatalf("cluster.sh %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if len(out) > 0 {
		t.Logf("cluster.sh %s:\n%s", strings.Join(args, " "), strings.TrimSpace(string(out)))
	}
}

// meridian runs a command of the binary against dsn (as meridian_app).
func (c *cluster) meridian(t *testing.T, dsn string, args ...string) {
	t.Helper()
	cmd := exec.Command(c.bin, append(args, "--data-dir", filepath.Join(c.dir, "cli"), "--log-level", "warn")...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MERIDIAN_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "MERIDIAN_DATABASE_URL="+dsn)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("meridian %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// haproxy sends one command to HAProxy's runtime API.
func (c *cluster) haproxy(t *testing.T, command string) string {
	t.Helper()
	conn, err := net.DialTimeout("unix", c.env["HAPROXY_SOCKET"], 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write([]byte(command + "\n")); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	_, _ = b.ReadFrom(conn)
	return b.String()
}

// waitServersUp waits until n servers of the backend are UP.
func (c *cluster) waitServersUp(ctx context.Context, t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		up := 0
		sc := bufio.NewScanner(strings.NewReader(c.haproxy(t, "show stat")))
		for sc.Scan() {
			f := strings.Split(sc.Text(), ",")
			if len(f) > 17 && f[0] == "meridian" && f[1] != "BACKEND" && f[1] != "FRONTEND" && f[17] == "UP" {
				up++
			}
		}
		if up >= n {
			return
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("HAProxy: %d servers UP after 30 s, want %d", up, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (c *cluster) logs() string {
	var b strings.Builder
	files, _ := filepath.Glob(filepath.Join(c.dir, "log", "*.log"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if len(lines) > 15 {
			lines = lines[len(lines)-15:]
		}
		fmt.Fprintf(&b, "== %s\n%s\n", filepath.Base(f), strings.Join(lines, "\n"))
	}
	return b.String()
}

// transfer makes one transfer and returns its id; anything but 201 fails the test.
func transfer(ctx context.Context, t *testing.T, client *http.Client, base, token, from, to string, amount money.Amount) int64 {
	id, _ := transferLSN(ctx, t, client, base, token, from, to, amount)
	return id
}

// transferLSN makes one transfer and returns its id and the commit position
// the answer tells (X-Meridian-Commit-LSN).
func transferLSN(ctx context.Context, t *testing.T, client *http.Client, base, token, from, to string, amount money.Amount) (int64, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"account_id": from, "to_account_id": to, "amount": amount, "description": "Cluster test"})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/user/money-transfer", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", uuid.NewString())
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("transfer through %s: HTTP %d: %s", base, resp.StatusCode, b.String())
	}
	var out struct {
		Transaction struct {
			ID int64 `json:"id"`
		} `json:"transaction"`
	}
	if err := json.Unmarshal(b.Bytes(), &out); err != nil || out.Transaction.ID == 0 {
		t.Fatalf("transfer: no transaction id in %s", b.String())
	}
	return out.Transaction.ID, resp.Header.Get(headerCommitLSN)
}

// metric reads one unlabelled figure from an instance's /metrics.
func metric(ctx context.Context, t *testing.T, client *http.Client, base, name string) float64 {
	t.Helper()
	status, body := get(ctx, t, client, base+"/metrics", "", "")
	if status != http.StatusOK {
		t.Fatalf("%s/metrics: HTTP %d", base, status)
	}
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatalf("%s/metrics: %q", base, line)
			}
			return f
		}
	}
	t.Fatalf("%s/metrics has no %s", base, name)
	return 0
}

func get(ctx context.Context, t *testing.T, client *http.Client, u, token, lsn string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if lsn != "" {
		req.Header.Set(headerCommitLSN, lsn)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.Bytes()
}

// prerequisites fails (never skips) when something the cluster needs is missing.
func prerequisites(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("MERIDIAN_BIN")
	if bin == "" {
		bin = "../../bin/meridian"
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Fatalf("%s: %v (make cluster-test builds it; or go build -o bin/meridian ./cmd/meridian)", abs, err)
	}
	var missing []string
	tools := []string{"pgbouncer", "haproxy", "curl"}
	if os.Geteuid() == 0 {
		tools = append(tools, "runuser") // PostgreSQL and PgBouncer refuse root
	}
	for _, p := range tools {
		if _, err := exec.LookPath(p); err != nil {
			if _, err := os.Stat("/usr/sbin/" + p); err != nil {
				missing = append(missing, p)
			}
		}
	}
	if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_basebackup"); len(m) == 0 {
		missing = append(missing, "PostgreSQL server binaries in /usr/lib/postgresql/*/bin")
	}
	if len(missing) > 0 {
		t.Fatalf("missing: %s (make deps-cluster installs them)", strings.Join(missing, ", "))
	}
	return abs
}

// freeBase picks a base port with the cluster's 21 ports free.
func freeBase(t *testing.T) int {
	t.Helper()
	for i := 0; i < 50; i++ {
		base := 20000 + rand.IntN(400)*100
		free := true
		for _, off := range []int{0, 1, 2, 10, 11, 20} {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+off))
			if err != nil {
				free = false
				break
			}
			l.Close()
		}
		if free {
			return base
		}
	}
	t.Fatal("no free range of ports")
	return 0
}

func readEnv(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	return env
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q is not a positive number", name, v)
	}
	return n
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + " ms"
}
