//go:build cluster

// Package cluster runs Meridian as it runs on more than one machine and checks
// what only such a deployment can get wrong. It is built only with the tag
// "cluster" (make cluster-test), so `go test ./...` never starts a cluster;
// run that way, every missing prerequisite is a failure, never a skip.
//
// scripts/cluster/cluster.sh brings the cluster up on loopback: two
// PostgreSQL nodes run by Patroni (leader key in etcd; synchronous_mode,
// synchronous_commit = remote_apply; WAL archived by pgBackRest), HAProxy in
// front of them following Patroni's REST checks (a primary port, a replica
// port), PgBouncer in transaction mode on the primary port, two `meridian
// serve` instances (queries through PgBouncer, LISTEN and reads through
// HAProxy) and HAProxy in front of them, from the files in deploy/. Then, in
// order:
//
//	(a) a transfer made through instance A is pushed to a WebSocket held by
//	    instance B;
//	(b) a read right after a write, served by instance B from the standby,
//	    sees the write;
//	(d) transfers/s through HAProxy with one instance and with two, and the
//	    transfer p50 with synchronous_commit = remote_apply and local;
//	(c) the failover drill, CLUSTER_FAILOVERS times in a row (3): under
//	    transfer load through HAProxy, the primary's postmaster gets SIGKILL,
//	    and nothing else is done: Patroni promotes the synchronous standby,
//	    HAProxy follows, serve goes on. Then every transfer answered 201 is in
//	    the new primary's ledger, no transfer is there that was not answered
//	    201, the invariant holds, the longest time without a 201 is reported,
//	    and the old primary is back as a standby on the new timeline
//	    (rewound with pg_rewind when it had WAL the new primary lacks); then
//	    (a) again: the LISTEN sessions found the new primary by themselves;
//	(e) a point-in-time restore with pgBackRest of the whole cluster's
//	    archive to a time T in the middle of the second drill's load, across
//	    the failovers' timelines: every transfer answered before T is there,
//	    none sent after it (loadtest.CheckRestored).
//
// The figures are printed as "CLUSTER <name>: <value>" lines for the README.
//
// Environment: MERIDIAN_BIN (default ../../bin/meridian), CLUSTER_LOAD
// (seconds per throughput run, default 10), CLUSTER_CONCURRENCY (default 16),
// CLUSTER_FAILOVERS (default 3), CLUSTER_POOLER (pgbouncer, or none: serve
// straight to HAProxy's primary port).
package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
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
	rounds := envInt(t, "CLUSTER_FAILOVERS", 3)
	pooler := os.Getenv("CLUSTER_POOLER")
	if pooler == "" {
		pooler = "pgbouncer"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()

	c := up(t, bin, "CLUSTER_POOLER="+pooler)

	// The owner through HAProxy's primary port: whichever node is primary.
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

	// (c) The failover drill, round after round: each kills whichever node
	// is primary then.
	start, err := loadtest.TakeMark(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	var all []loadtest.Committed
	var target time.Time
	var drills []drill
	for r := 1; r <= rounds; r++ {
		ok := t.Run(fmt.Sprintf("Failover%d", r), func(t *testing.T) {
			dr := failover(ctx, t, c, owner, load, concurrency, r)
			drills = append(drills, dr)
			all = append(all, dr.committed...)
			if r == 2 || rounds == 1 {
				target = dr.target
			}
		})
		if !ok {
			t.FailNow()
		}
	}
	// The LISTEN sessions found the new primary by themselves.
	t.Run("PushAfterFailover", func(t *testing.T) { pushAcrossInstances(ctx, t, c, probe[1], probe[0]) })
	t.Run("PointInTimeRestore", func(t *testing.T) { pointInTimeRestore(ctx, t, c, target, all, start.TotalBalance) })
	t.Run("Doctor", func(t *testing.T) { doctorOnCluster(t, c) })

	fmt.Printf("CLUSTER throughput one instance: %.0f transfer requests/s (p50 %s, p99 %s)\n", one.PerSecond, ms(one.Latency.P50), ms(one.Latency.P99))
	fmt.Printf("CLUSTER throughput two instances: %.0f and %.0f transfer requests/s (p50 %s and %s, p99 %s and %s)\n", two.PerSecond, two2.PerSecond,
		ms(two.Latency.P50), ms(two2.Latency.P50), ms(two.Latency.P99), ms(two2.Latency.P99))
	fmt.Printf("CLUSTER throughput ratio two/one: %.2f (first two-instance run; %.2f with the second) (%d clients, %d s each, HAProxy -> serve -> %s -> primary)\n",
		two.PerSecond/one.PerSecond, two2.PerSecond/one.PerSecond, concurrency, loadSecs, map[string]string{"pgbouncer": "PgBouncer -> HAProxy", "none": "HAProxy"}[pooler])
	fmt.Printf("CLUSTER transfer p50 synchronous_commit=remote_apply: %s and %s (p99 %s and %s; %.0f and %.0f/s); local: %s (p99 %s; %.0f/s)\n",
		ms(two.Latency.P50), ms(two2.Latency.P50), ms(two.Latency.P99), ms(two2.Latency.P99), two.PerSecond, two2.PerSecond,
		ms(local.Latency.P50), ms(local.Latency.P99), local.PerSecond)
	var gaps, rejoins []string
	for _, dr := range drills {
		gaps = append(gaps, fmt.Sprintf("%.1f", dr.gap.Seconds()))
		rejoins = append(rejoins, fmt.Sprintf("%.1f", dr.rejoin.Seconds()))
	}
	fmt.Printf("CLUSTER failover drills (%s): %d in a row; seconds without a 201: %s; old primary back as a standby after (s): %s\n",
		pooler, len(drills), strings.Join(gaps, ", "), strings.Join(rejoins, ", "))
}

// drill is what one failover round found.
type drill struct {
	committed []loadtest.Committed
	target    time.Time     // a moment of the load before the kill
	gap       time.Duration // the longest time without a 201
	rejoin    time.Duration // from the kill until the old primary streamed again
}

// failover runs transfers through HAProxy, sends SIGKILL to the primary's
// postmaster under that load, and checks the ledger on the new primary and
// the old primary's return as a standby. Nothing of ours runs between the
// kill and the checks: Patroni, HAProxy and serve do it all.
func failover(ctx context.Context, t *testing.T, c *cluster, owner *sqlx.DB, load []loadtest.Customer, concurrency, round int) drill {
	healthy := c.waitHealthy(ctx, t)
	old := c.primaryNode(ctx)
	if old == "" {
		t.Fatalf("no primary before round %d: %+v", round, healthy)
	}
	mark, err := loadtest.TakeMark(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	d, err := loadtest.New(loadtest.Options{BaseURL: c.env["URL"], Customers: load, Concurrency: concurrency / 2,
		Duration: 5 * time.Minute, Seed: uint64(17 + round), ErrorBackoff: 50 * time.Millisecond, RequestTimeout: 15 * time.Second})
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

	time.Sleep(1500 * time.Millisecond)
	target := time.Now()
	time.Sleep(1500 * time.Millisecond)
	if d.Succeeded() == 0 {
		t.Fatal("no transfer succeeded in the 3 s before the kill")
	}
	logBefore := len(c.patroniLog(old))
	killedAt := time.Now()
	pid := c.killPostmaster(t, old)
	t.Logf("round %d: SIGKILL to %s's postmaster (pid %d)", round, old, pid)
	// A 201 again, after the kill, then the load goes on a while.
	n1 := d.Succeeded()
	for d.Succeeded() == n1 {
		if time.Since(killedAt) > 60*time.Second {
			t.Fatalf("no transfer succeeded in the 60 s after the kill; logs:\n%s", c.logs())
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

	// The new primary: another node, and the one HAProxy's primary port reaches.
	now := c.primaryNode(ctx)
	if now == "" || now == old {
		t.Fatalf("after killing %s, the primary is %q", old, now)
	}
	var port int
	if err := owner.GetContext(ctx, &port, `SELECT inet_server_port()`); err != nil {
		t.Fatal(err)
	}
	if strconv.Itoa(port) != c.env[strings.ToUpper(now)+"_PORT"] {
		t.Fatalf("HAProxy's primary port reaches port %d, but the primary is %s (:%s)", port, now, c.env[strings.ToUpper(now)+"_PORT"])
	}
	committed := d.Committed()
	exact := mark.MaxTransactionID
	if resolution.Unresolved > 0 {
		exact = 0
	}
	expected := mark.TotalBalance
	inv, err := loadtest.CheckInvariants(ctx, owner, loadtest.InvariantOptions{ExpectedTotal: &expected, Committed: committed, ExactSince: exact})
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

	// The old primary comes back as a standby of the new one, on its timeline.
	var back []member
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		ms, err := c.members(ctx)
		if err == nil && rejoined(ms, old, now) {
			back = ms
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is not back as a standby of %s 2 minutes after the kill: %+v (%v); Patroni's log:\n%s", old, now, ms, err, tailText(c.patroniLog(old)[logBefore:], 30))
		}
	}
	rejoin := time.Since(killedAt)
	logSince := c.patroniLog(old)[logBefore:]
	rewound := strings.Contains(logSince, "running pg_rewind from")
	how := "no pg_rewind needed (it had no WAL the new primary lacks)"
	if rewound {
		how = "rewound with pg_rewind"
	}
	gapMu.Lock()
	gap := longest
	gapMu.Unlock()
	t.Logf("round %d: %s killed, %s promoted; a 201 again %s after the kill; longest time without a 201 %s; %s back as a standby after %s (%s); members %+v; %d transfers answered 201 checked in the new primary's ledger",
		round, old, now, firstAfter.Round(time.Millisecond), gap.Round(time.Millisecond), old, rejoin.Round(time.Millisecond), how, back, inv.CommittedChecked)
	fmt.Printf("CLUSTER failover %d (Patroni, SIGKILL of %s's postmaster): %d transfers answered 201 (%d settled by retrying their Idempotency-Key), %d checked in the new primary's ledger, %d lost, %d without a 201; invariant %s; %.1f s without a 201; %s back as a standby in %.1f s, %s\n",
		round, old, len(committed), resolution.Replayed+resolution.CommittedNow, inv.CommittedChecked, len(inv.MissingCommitted), len(inv.Unanswered),
		map[bool]string{true: "holds", false: "BROKEN"}[inv.OK && !t.Failed()], gap.Seconds(), old, rejoin.Seconds(), how)
	return drill{committed: committed, target: target, gap: gap, rejoin: rejoin}
}

// rejoined: old is a running standby (sync or not) on the leader now's timeline.
func rejoined(ms []member, old, now string) bool {
	i := slices.IndexFunc(ms, func(m member) bool { return m.Name == old })
	j := slices.IndexFunc(ms, func(m member) bool { return m.Name == now })
	if i < 0 || j < 0 {
		return false
	}
	o, n := ms[i], ms[j]
	return n.Role == "leader" && (o.Role == "replica" || o.Role == "sync_standby") &&
		(o.State == "running" || o.State == "streaming") && o.Timeline == n.Timeline
}

// waitHealthy waits until one node leads and the other is its synchronous
// standby: a failover then has a standby with every commit to promote.
func (c *cluster) waitHealthy(ctx context.Context, t *testing.T) []member {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		ms, err := c.members(ctx)
		leader := slices.IndexFunc(ms, func(m member) bool { return m.Role == "leader" && m.State == "running" })
		sync := slices.IndexFunc(ms, func(m member) bool {
			return m.Role == "sync_standby" && (m.State == "running" || m.State == "streaming")
		})
		if err == nil && leader >= 0 && sync >= 0 && ms[leader].Timeline == ms[sync].Timeline {
			return ms
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster has no leader with a synchronous standby after 2 minutes: %+v %v", ms, err)
		}
	}
}

// pointInTimeRestore restores the cluster's pgBackRest archive to target
// into a new data dir, starts it alone, and checks it against every
// transfer the drills were answered: those answered before target are
// there, none sent after it.
func pointInTimeRestore(ctx context.Context, t *testing.T, c *cluster, target time.Time, committed []loadtest.Committed, total money.Amount) {
	if target.IsZero() {
		t.Fatal("no restore target: the failover drills did not run")
	}
	// Everything up to now is archived (check switches to a new segment and
	// waits for it).
	c.script(t, "pgbackrest", "check")
	dir := filepath.Join(c.dir, "restored")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	runAs := pgOwner(t, c.env["NODE1_DIR"])
	if runAs != nil {
		if err := os.Chown(dir, int(runAs.Uid), int(runAs.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	started := time.Now()
	c.script(t, "pgbackrest", "--pg1-path="+dir, "--type=time", "--target="+target.UTC().Format("2006-01-02 15:04:05.999999")+"+00",
		"--target-action=promote", "restore")
	port := freeBase(t) + 9
	pgctl := filepath.Join(pgBin(t), "pg_ctl")
	logPath := filepath.Join(c.dir, "log", "restored.log")
	pg := func(args ...string) error {
		cmd := exec.Command(pgctl, append([]string{"-D", dir, "-l", logPath}, args...)...)
		cmd.Dir = "/"
		if runAs != nil {
			if f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
				f.Close()
				os.Chown(logPath, int(runAs.Uid), int(runAs.Gid))
			}
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: runAs}
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("pg_ctl %v: %v\n%s\n%s", args, err, out, tailText(readFile(logPath), 20))
		}
		return nil
	}
	// Alone: its own port, no archiving, no synchronous standby to wait for.
	if err := pg("-w", "-t", "300", "-o", fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories=%s -c archive_mode=off -c synchronous_standby_names= -c cluster_name=restored",
		port, filepath.Join(c.dir, "run")), "start"); err != nil {
		t.Fatal(err)
	}
	defer pg("-m", "immediate", "-w", "stop")
	u, _ := url.Parse(c.env["OWNER_PRIMARY_URL"])
	u.Host = fmt.Sprintf("127.0.0.1:%d", port)
	restored, err := db.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		var recovering bool
		if err := restored.GetContext(ctx, &recovering, `SELECT pg_is_in_recovery()`); err == nil && !recovering {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the restored cluster is still in recovery after 5 minutes:\n%s", tailText(readFile(logPath), 20))
		}
	}
	took := time.Since(started)
	rep, err := loadtest.CheckRestored(ctx, restored, loadtest.RestoredOptions{Target: target, Committed: committed, ExpectedTotal: &total})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		t.Errorf("restored to %s: %s", target.UTC().Format(time.RFC3339Nano), p)
	}
	if rep.Before == 0 || rep.After == 0 {
		t.Errorf("the restore check needs transfers answered before the target (%d) and sent after it (%d)", rep.Before, rep.After)
	}
	t.Logf("pgBackRest restore to %s (across the failovers' timelines) in %s: %d transfers answered before it there, %d sent after it absent, %d in flight at it (%d there)",
		target.UTC().Format(time.RFC3339Nano), took.Round(time.Millisecond), rep.Before, rep.After, rep.Between, rep.BetweenPresent)
	fmt.Printf("CLUSTER pgBackRest point-in-time restore: %d transfers answered before T present, %d sent after T absent, %d straddling T (%d present); invariant %s; restore and replay %.1f s\n",
		rep.Before, rep.After, rep.Between, rep.BetweenPresent, map[bool]string{true: "holds", false: "BROKEN"}[rep.OK], took.Seconds())
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
// standby (HAProxy's replica port); the new transfer must be in it, every
// time. The standby must have served reads (its meridian_app sessions and
// committed transactions).
func readYourWrite(ctx context.Context, t *testing.T, c *cluster, from, to loadtest.Customer) {
	standby, err := db.Open(ctx, c.env["OWNER_REPLICA_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer standby.Close()
	standby.SetMaxOpenConns(1)
	var inRecovery bool
	if err := standby.GetContext(ctx, &inRecovery, `SELECT pg_is_in_recovery()`); err != nil || !inRecovery {
		t.Fatalf("HAProxy's replica port does not reach a standby (in recovery %v, %v)", inRecovery, err)
	}
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

// doctorOnCluster runs `meridian doctor` with instance A's configuration
// (through PgBouncer, the replicas behind HAProxy, archiving by pgBackRest)
// after the failovers: it must pass.
func doctorOnCluster(t *testing.T, c *cluster) {
	env := cleanEnv()
	for k, v := range readEnv(t, filepath.Join(c.dir, "serve-a.env")) {
		if k != "MERIDIAN_ADDR" {
			env = append(env, k+"="+v)
		}
	}
	cmd := exec.Command(c.bin, "doctor", "--data-dir", filepath.Join(c.dir, "cli"), "--log-level", "error", "-o", "json")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	var rep struct {
		OK       bool `json:"ok"`
		Findings []struct {
			Check, Status, Detail string
		} `json:"findings"`
	}
	if jerr := json.Unmarshal(out, &rep); jerr != nil || err != nil || !rep.OK {
		t.Fatalf("meridian doctor on the cluster: %v %v\n%s", err, jerr, out)
	}
	var lines []string
	for _, f := range rep.Findings {
		lines = append(lines, fmt.Sprintf("%s %s", f.Check, f.Status))
		t.Logf("doctor: %-24s %-5s %s", f.Check, f.Status, f.Detail)
	}
	fmt.Printf("CLUSTER doctor after the failovers: passed (%s)\n", strings.Join(lines, ", "))
}
