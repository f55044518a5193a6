// Package fault crashes a real Meridian under load and checks that no money
// is made or lost and that every transfer answered 201 survives.
//
// It drives the built binary (env MERIDIAN_BIN, default ../../bin/meridian):
// `meridian serve` on an embedded PostgreSQL in a temp dir under /tmp, bulk
// customers from `meridian seed`, and transfers from pkg/loadtest in the
// background. During the load it
//
//	(a) kills serve with SIGKILL and starts a new one on the same data dir.
//	    The embedded PostgreSQL that serve had started keeps running (it is
//	    shared by every command on the data dir, and a killed serve leaves
//	    no reference to it behind); the new serve attaches to it, and stops
//	    it when it exits as its last user;
//	(b) restarts PostgreSQL under the running serve with
//	    `pg_ctl -m immediate restart` (as the cluster's owner): a crash and
//	    WAL recovery; serve's pool and LISTEN connection must reconnect.
//
// After each start, while the load runs, the bank deposits into and
// withdraws from a customer's account with `meridian account deposit` and
// `withdraw`.
//
// Then every transfer whose outcome the driver could not know (network
// error or 5xx) is repeated with its Idempotency-Key until it gets a
// definite answer, and the test asserts, in the database: the total of
// balances moved by exactly the deposits less the withdrawals, no balance is
// negative, every balance equals its ledger, every transfer answered 201 is
// in the ledger with its CREDIT row, no transfer is in the ledger that was
// not answered 201 (exactly once), and every deposit and withdrawal that
// succeeded is in the ledger, once.
//
// Environment: FAULT_DURATION (default 24s) is the load time, split in
// segments around the faults; FAULT_LONG=1 runs 5 cycles of both faults
// (FAULT_DURATION then defaults to 100s); FAULT_CONCURRENCY (default 8).
package fault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/db"
	"meridian/pkg/loadtest"
	"meridian/pkg/money"
)

const (
	seedUsers    = 30
	readyTimeout = 90 * time.Second
)

func TestCrashUnderLoad(t *testing.T) {
	bin := binary(t)
	pgctl := findPgCtl(t)
	long := os.Getenv("FAULT_LONG") == "1"
	cycles := 1
	total := 24 * time.Second
	if long {
		cycles, total = 5, 100*time.Second
	}
	if v := os.Getenv("FAULT_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			t.Fatalf("FAULT_DURATION=%q is not a positive duration", v)
		}
		total = d
	}
	concurrency := 8
	if v := os.Getenv("FAULT_CONCURRENCY"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("FAULT_CONCURRENCY=%q is not a positive number", v)
		}
		concurrency = n
	}
	// A warm-up segment, then one after each fault.
	seg := (total / time.Duration(1+2*cycles)).Round(100 * time.Millisecond)

	dir, err := os.MkdirTemp("/tmp", "mflt")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, bin: bin, pgctl: pgctl, dir: dir, port: freePort(t)}
	t.Cleanup(h.cleanup)
	ctx, cancel := context.WithTimeout(context.Background(), total+10*time.Minute)
	defer cancel()

	h.startServe()
	h.waitReady(ctx, "first start")

	dbx := h.openDB(ctx)
	customers, mark := h.seedCustomers(ctx, dbx, seedUsers, 3)

	d, run := h.startLoad(ctx, customers, concurrency, 11)

	// The bank's own movements, made from the command line during the load:
	// their outcome is always known (exit 0, or a refusal).
	var bankNet money.Amount
	bankMoves := 0
	moveMoney := func() {
		t.Helper()
		acct := customers[bankMoves%len(customers)].Accounts[0]
		h.run("account", "deposit", acct, "100.00", "--description", "Fault run deposit")
		bankNet += 100_00
		bankMoves++
		if out, err := h.runErr("account", "withdraw", acct, "0.50"); err == nil {
			bankNet -= 50
			bankMoves++
		} else if !strings.Contains(out, "Insufficient funds") {
			t.Fatalf("meridian account withdraw: %v\n%s", err, out)
		}
	}

	// progress runs the load for one segment and requires some 201s in it:
	// the service came back.
	progress := func(after string) {
		t.Helper()
		moveMoney()
		n0 := d.Succeeded()
		time.Sleep(seg)
		if n := d.Succeeded() - n0; n == 0 {
			t.Fatalf("no transfer succeeded in the %s after %s; serve log:\n%s", seg, after, h.serveLogTail())
		} else {
			t.Logf("%d transfers answered 201 in the %s after %s", n, seg, after)
		}
	}

	progress("the start")
	for c := 1; c <= cycles; c++ {
		// (a) SIGKILL serve, start a new one on the same data dir.
		pgPID := h.postmasterPID()
		h.killServe()
		t.Logf("cycle %d: killed serve (SIGKILL); PostgreSQL pid %d was running", c, pgPID)
		time.Sleep(time.Second) // an outage the load sees as connection errors
		h.startServe()
		h.waitReady(ctx, "restart after SIGKILL")
		t.Logf("cycle %d: serve back; PostgreSQL pid now %d", c, h.postmasterPID())
		progress(fmt.Sprintf("cycle %d's SIGKILL of serve", c))

		// (b) crash-restart PostgreSQL under the running serve.
		old := h.postmasterPID()
		h.pgCtl("-m", "immediate", "-w", "-t", "60", "restart")
		t.Logf("cycle %d: pg_ctl -m immediate restart: PostgreSQL pid %d -> %d", c, old, h.postmasterPID())
		if !h.serveAlive() {
			t.Fatalf("serve exited when PostgreSQL restarted; serve log:\n%s", h.serveLogTail())
		}
		h.waitReady(ctx, "PostgreSQL restart (serve kept running)")
		progress(fmt.Sprintf("cycle %d's PostgreSQL restart", c))
	}

	rep, err := run.Stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("load: %d requests, %d answered 201, %d 422, %d errors (%d with unknown outcome); answers %v; p50 %s p99 %s max %s",
		rep.Requests, rep.Transfers, rep.Refused, rep.Errors, rep.Uncertain, rep.Status, rep.Latency.P50, rep.Latency.P99, rep.Latency.Max)
	for _, s := range rep.ErrorSamples {
		t.Logf("  error sample: %s", s)
	}
	if rep.Transfers == 0 {
		t.Fatal("no transfer succeeded at all")
	}

	rctx, rcancel := context.WithTimeout(ctx, 2*time.Minute)
	resolution, err := d.Resolve(rctx)
	rcancel()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("unknown outcomes: %d; retried with the same Idempotency-Key: %d had committed (replayed), %d committed now, %d refused, %d other, %d unresolved",
		resolution.Uncertain, resolution.Replayed, resolution.CommittedNow, resolution.Refused, resolution.Other, resolution.Unresolved)
	if resolution.Unresolved > 0 {
		t.Errorf("%d transfers still have no definite answer after 2 minutes of retries", resolution.Unresolved)
	}
	if resolution.Other > 0 {
		t.Errorf("retrying with the same Idempotency-Key and body gave unexpected answers: %v", resolution.OtherSamples)
	}
	// Contract §5: an answer that said nothing had changed stands for a
	// transfer that did not commit.
	if resolution.Lies > 0 {
		t.Errorf("%d answers said that nothing had changed, yet had committed: %v", resolution.Lies, resolution.LieSamples)
	}

	committed := d.Committed()
	exact := mark.MaxTransactionID
	if resolution.Unresolved > 0 {
		exact = 0
	}
	checkStart := time.Now()
	expected := mark.TotalBalance + bankNet
	inv, err := loadtest.CheckInvariants(ctx, dbx, loadtest.InvariantOptions{ExpectedTotal: &expected, Committed: committed, ExactSince: exact})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("invariant (checked in %s): %d accounts, %d ledger rows, total %s (expected %s: %s before, %s net from %d deposits and withdrawals), %d transfers answered 201 checked",
		time.Since(checkStart).Round(time.Millisecond), inv.Accounts, inv.LedgerRows, inv.TotalBalance, expected, mark.TotalBalance, bankNet, bankMoves, inv.CommittedChecked)
	var moves int
	if err := dbx.GetContext(ctx, &moves, `SELECT count(*) FROM transactions WHERE id > $1 AND kind IN ('deposit', 'withdrawal') AND user_id IS NOT NULL`, mark.MaxTransactionID); err != nil {
		t.Fatal(err)
	}
	if moves != bankMoves {
		t.Errorf("%d deposits and withdrawals succeeded, %d are in the ledger", bankMoves, moves)
	}
	if !inv.OK {
		for _, p := range inv.Problems {
			t.Errorf("invariant: %s", p)
		}
		if len(inv.Mismatches) > 0 {
			t.Errorf("balance/ledger mismatches: %+v", inv.Mismatches)
		}
		if len(inv.MissingCommitted) > 0 {
			t.Errorf("answered 201 but missing from the ledger: %v", inv.MissingCommitted)
		}
		if len(inv.Unanswered) > 0 {
			t.Errorf("in the ledger but never answered 201: %v", inv.Unanswered)
		}
	}
	if !h.serveAlive() {
		t.Errorf("serve is not running at the end; log:\n%s", h.serveLogTail())
	}
}

// startLoad signs the customers in and starts transfers between them
// through serve in the background, until the returned run is stopped (or
// the test ends).
func (h *harness) startLoad(ctx context.Context, customers []loadtest.Customer, concurrency int, seed uint64) (*loadtest.Driver, *loadtest.Running) {
	h.t.Helper()
	d, err := loadtest.New(loadtest.Options{BaseURL: h.url(), Customers: customers, Concurrency: concurrency,
		Duration: time.Hour, // ended by Stop
		Seed:     seed, ErrorBackoff: 50 * time.Millisecond, RequestTimeout: 15 * time.Second})
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(d.Close)
	if err := d.Login(ctx); err != nil {
		h.t.Fatal(err)
	}
	run := d.Start(ctx)
	h.t.Cleanup(func() { run.Stop() })
	return d, run
}

// harness runs serve and PostgreSQL for one data dir.
type harness struct {
	t      *testing.T
	bin    string
	pgctl  string
	dir    string
	port   int
	serve  *exec.Cmd
	exited chan struct{}
	starts int
	// serveArgs are added to serve's flags (scheduled_test.go: a short
	// scheduler_interval); logName, when set, names its log files.
	serveArgs []string
	logName   string
}

func (h *harness) url() string { return fmt.Sprintf("http://127.0.0.1:%d", h.port) }

// env is the environment without MERIDIAN_* settings, so the flags alone
// decide (embedded database in h.dir).
func (h *harness) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MERIDIAN_") {
			env = append(env, kv)
		}
	}
	return env
}

func (h *harness) startServe() {
	h.t.Helper()
	h.starts++
	name := h.logName
	if name == "" {
		name = "serve"
	}
	logf, err := os.Create(filepath.Join(h.dir, fmt.Sprintf("%s-%d.log", name, h.starts)))
	if err != nil {
		h.t.Fatal(err)
	}
	args := append([]string{"serve", "--addr", fmt.Sprintf("127.0.0.1:%d", h.port), "--data-dir", h.dir,
		"--demo-seed", "false", "--log-level", "warn",
		// The load pays each customer's money away again and again: a daily
		// limit it never reaches keeps it paying (each payment is still
		// checked against the limit) instead of measuring refusals.
		"--daily-transfer-limit", "1000000000.00"}, h.serveArgs...)
	cmd := exec.Command(h.bin, args...)
	cmd.Env = h.env()
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		h.t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		logf.Close()
		close(exited)
	}()
	h.serve, h.exited = cmd, exited
}

func (h *harness) serveAlive() bool {
	if h.serve == nil {
		return false
	}
	select {
	case <-h.exited:
		return false
	default:
		return true
	}
}

func (h *harness) killServe() {
	h.t.Helper()
	if !h.serveAlive() {
		h.t.Fatalf("serve is not running; log:\n%s", h.serveLogTail())
	}
	if err := h.serve.Process.Signal(syscall.SIGKILL); err != nil {
		h.t.Fatal(err)
	}
	<-h.exited
}

// waitReady waits until /readyz answers 200.
func (h *harness) waitReady(ctx context.Context, what string) {
	h.t.Helper()
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(readyTimeout)
	for {
		if !h.serveAlive() {
			h.t.Fatalf("%s: serve exited; log:\n%s", what, h.serveLogTail())
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.url()+"/readyz", nil)
		if res, err := client.Do(req); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			h.t.Fatalf("%s: serve not ready after %s; log:\n%s", what, readyTimeout, h.serveLogTail())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// run runs a meridian command on the data dir and fails the test if it fails.
func (h *harness) run(args ...string) {
	h.t.Helper()
	if out, err := h.runErr(args...); err != nil {
		h.t.Fatalf("meridian %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// openDB opens the embedded cluster's database as meridian over its unix
// socket in h.dir/run, with at most two connections (the checks need no
// more, and serve keeps its own pool); it is closed when the test ends.
func (h *harness) openDB(ctx context.Context) *sqlx.DB {
	h.t.Helper()
	dsn := fmt.Sprintf("host=%s port=5432 user=meridian dbname=meridian sslmode=disable", filepath.Join(h.dir, "run"))
	dbx, err := db.Open(ctx, dsn)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { dbx.Close() })
	dbx.SetMaxOpenConns(2)
	return dbx
}

// seedCustomers seeds n bulk customers with `meridian seed --users n --seed
// seed` (and extra flags) and returns them (those seeded now, with their accounts) and the
// database's mark after the seeding.
func (h *harness) seedCustomers(ctx context.Context, dbx *sqlx.DB, n, seed int, extra ...string) ([]loadtest.Customer, loadtest.Mark) {
	h.t.Helper()
	before, err := loadtest.TakeMark(ctx, dbx)
	if err != nil {
		h.t.Fatal(err)
	}
	h.run(append([]string{"seed", "--users", strconv.Itoa(n), "--seed", strconv.Itoa(seed)}, extra...)...)
	customers, err := loadtest.BulkCustomers(ctx, dbx, before.MaxUserID, 0, 0)
	if err != nil {
		h.t.Fatal(err)
	}
	if len(customers) != n {
		h.t.Fatalf("seeded %d customers, found %d", n, len(customers))
	}
	mark, err := loadtest.TakeMark(ctx, dbx)
	if err != nil {
		h.t.Fatal(err)
	}
	return customers, mark
}

// runErr runs a meridian command on the data dir and returns its output.
func (h *harness) runErr(args ...string) (string, error) {
	cmd := exec.Command(h.bin, append(args, "--data-dir", h.dir, "--log-level", "warn")...)
	cmd.Env = h.env()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// pgCtl runs pg_ctl on the cluster as the user that owns it (PostgreSQL
// refuses to run as root; pgembed runs it as "postgres" then).
func (h *harness) pgCtl(args ...string) {
	h.t.Helper()
	if err := h.pgCtlErr(args...); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) pgCtlErr(args ...string) error {
	pgdata := filepath.Join(h.dir, "postgres")
	pgctl := h.pgctl
	// Prefer the pg_ctl beside the postgres binary the cluster runs
	// (postmaster.opts starts with its path): same major version.
	if b, err := os.ReadFile(filepath.Join(pgdata, "postmaster.opts")); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			cand := filepath.Join(filepath.Dir(strings.Trim(f[0], `"`)), "pg_ctl")
			if _, err := os.Stat(cand); err == nil {
				pgctl = cand
			}
		}
	}
	logPath := filepath.Join(h.dir, "pg_ctl.log")
	full := append([]string{"-D", pgdata, "-l", logPath}, args...)
	cmd := exec.Command(pgctl, full...)
	cmd.Dir = "/"
	cmd.Env = h.env()
	fi, err := os.Stat(pgdata)
	if err != nil {
		return err
	}
	st := fi.Sys().(*syscall.Stat_t)
	if os.Geteuid() == 0 && st.Uid != 0 {
		// The server pg_ctl starts writes its output to logPath: let it.
		if f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
			f.Close()
		}
		if err := os.Chown(logPath, int(st.Uid), int(st.Gid)); err != nil {
			return err
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: st.Uid, Gid: st.Gid}}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctl %s: %v\n%s\npg_ctl.log:\n%s", strings.Join(args, " "), err, out, tail(logPath, 20))
	}
	return nil
}

// postmasterPID reads DIR/postgres/postmaster.pid (0 when absent).
func (h *harness) postmasterPID() int {
	b, err := os.ReadFile(filepath.Join(h.dir, "postgres", "postmaster.pid"))
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(line))
	return pid
}

func (h *harness) serveLogTail() string {
	logs, _ := filepath.Glob(filepath.Join(h.dir, "serve*-*.log"))
	sort.Strings(logs)
	var b strings.Builder
	for _, l := range logs {
		fmt.Fprintf(&b, "--- %s\n%s\n", filepath.Base(l), tail(l, 15))
	}
	fmt.Fprintf(&b, "--- postgres.log\n%s\n", tail(filepath.Join(h.dir, "postgres.log"), 15))
	return b.String()
}

// cleanup stops serve, then any PostgreSQL left for the data dir (one that
// pg_ctl started is not serve's to stop), and removes the data dir unless
// the test failed and FAULT_KEEP=1.
func (h *harness) cleanup() {
	if h.serveAlive() {
		h.serve.Process.Signal(syscall.SIGTERM)
		select {
		case <-h.exited:
		case <-time.After(30 * time.Second):
			h.serve.Process.Kill()
			<-h.exited
		}
	}
	if h.postmasterPID() != 0 {
		if err := h.pgCtlErr("-m", "fast", "-w", "-t", "60", "stop"); err != nil && h.postmasterPID() != 0 {
			h.t.Logf("stopping PostgreSQL: %v", err)
		}
	}
	if h.t.Failed() && os.Getenv("FAULT_KEEP") == "1" {
		h.t.Logf("kept %s", h.dir)
		return
	}
	os.RemoveAll(h.dir)
}

func binary(t *testing.T) string {
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
		if errors.Is(err, fs.ErrNotExist) {
			t.Skipf("%s does not exist: build it first (make build, or go build -o bin/meridian ./cmd/meridian), or set MERIDIAN_BIN", abs)
		}
		t.Fatal(err)
	}
	return abs
}

// findPgCtl finds pg_ctl on PATH or in the newest /usr/lib/postgresql/*/bin.
func findPgCtl(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		return p
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		if fi, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil && fi.Mode()&fs.ModePerm&0o111 != 0 {
			return filepath.Join(d, "pg_ctl")
		}
	}
	t.Fatal("pg_ctl not found (PATH, /usr/lib/postgresql/*/bin); the test restarts PostgreSQL with it")
	return ""
}

func versionOf(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no " + filepath.Base(path) + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
