package pgembed

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// helperEnv names the data dir a helper process attaches to.
const helperEnv = "PGEMBED_TEST_HELPER_DIR"

// TestMain runs the tests, or, when started by helper() with
// $PGEMBED_TEST_HELPER_DIR set, serves as that helper process instead.
func TestMain(m *testing.M) {
	if dir := os.Getenv(helperEnv); dir != "" {
		os.Exit(runHelper(dir))
	}
	os.Exit(m.Run())
}

// runHelper is a separate OS process (this test binary again) that uses the
// cluster as a Meridian command would: it starts or attaches to the cluster
// in dir, prints "ready <owned> <pid>", then answers commands on stdin:
// "query" (SELECT 1, prints ok) and "stop" (Stop, then exit). It returns
// the exit code the test reads: 0 stopped, 3 could not start, 4 could not
// stop, 5 stdin closed without "stop".
func runHelper(dir string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	c, err := Start(ctx, Options{DataDir: dir, Fast: true})
	cancel()
	if err != nil {
		fmt.Println("error", err)
		return 3
	}
	fmt.Println("ready", c.Owned(), c.PID())
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		switch sc.Text() {
		case "query":
			db, err := sql.Open("postgres", c.URL())
			var one int
			if err == nil {
				err = db.QueryRow("SELECT 1").Scan(&one)
				db.Close()
			}
			if err != nil {
				fmt.Println("error", strings.ReplaceAll(err.Error(), "\n", " "))
			} else {
				fmt.Println("ok")
			}
		case "stop":
			if err := c.Stop(); err != nil {
				fmt.Println("error", err)
				return 4
			}
			fmt.Println("stopped")
			return 0
		}
	}
	return 5
}

// helperProc is a Meridian-like process using the cluster.
type helperProc struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
	owned bool
	pid   int
}

func helper(t *testing.T, dataDir string) *helperProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+dataDir)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &helperProc{t: t, cmd: cmd, in: in, out: bufio.NewScanner(outPipe)}
	t.Cleanup(func() {
		if h.cmd.ProcessState == nil {
			h.cmd.Process.Kill()
			h.cmd.Wait()
		}
	})
	f := strings.Fields(h.line())
	if len(f) != 3 || f[0] != "ready" {
		t.Fatalf("helper: %v", f)
	}
	h.owned = f[1] == "true"
	h.pid, _ = strconv.Atoi(f[2])
	return h
}

// line returns the helper's next output line that is ours (the test
// binary may print PASS and the like too).
func (h *helperProc) line() string {
	h.t.Helper()
	for h.out.Scan() {
		l := h.out.Text()
		if strings.HasPrefix(l, "ready") || strings.HasPrefix(l, "ok") || strings.HasPrefix(l, "stopped") || strings.HasPrefix(l, "error") {
			return l
		}
	}
	h.t.Fatalf("helper %d ended without answering", h.cmd.Process.Pid)
	return ""
}

func (h *helperProc) do(command string) string {
	h.t.Helper()
	fmt.Fprintln(h.in, command)
	return h.line()
}

// stop has the helper Stop its cluster and exit.
func (h *helperProc) stop() {
	h.t.Helper()
	if got := h.do("stop"); got != "stopped" {
		h.t.Fatalf("helper stop: %s", got)
	}
	if err := h.cmd.Wait(); err != nil {
		h.t.Fatalf("helper exit: %v", err)
	}
}

// serverGone waits until no postmaster runs for the data dir.
func serverGone(dataDir string, d time.Duration) bool {
	c := &Cluster{pgData: filepath.Join(dataDir, "postgres")}
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if !fileExists(filepath.Join(c.pgData, "postmaster.pid")) {
			return true
		}
	}
	return false
}

// TestLastUserStopsTheServer: process A starts the cluster, B attaches, A
// exits: B still has its database. C attaches and is killed with SIGKILL:
// it leaves no reference behind. When B exits, the last user, the server
// stops.
func TestLastUserStopsTheServer(t *testing.T) {
	t.Parallel()
	dataDir := newDataDir(t)
	a := helper(t, dataDir)
	b := helper(t, dataDir)
	if !a.owned || b.owned || a.pid != b.pid {
		t.Fatalf("A owned=%v pid=%d, B owned=%v pid=%d: want A to start the server and B to attach", a.owned, a.pid, b.owned, b.pid)
	}
	a.stop()
	if serverGone(dataDir, 500*time.Millisecond) {
		t.Fatal("the server stopped when A exited although B still uses it")
	}
	if got := b.do("query"); got != "ok" {
		t.Fatalf("B after A exited: %s", got)
	}

	c := helper(t, dataDir)
	if c.owned || c.pid != a.pid {
		t.Fatalf("C owned=%v pid=%d, want it attached to %d", c.owned, c.pid, a.pid)
	}
	c.cmd.Process.Signal(syscall.SIGKILL)
	c.cmd.Wait()
	if got := b.do("query"); got != "ok" {
		t.Fatalf("B after C was killed: %s", got)
	}

	b.stop()
	if !serverGone(dataDir, 40*time.Second) {
		t.Fatal("the server is still running after its last user exited")
	}
	if entries, _ := os.ReadDir(filepath.Join(dataDir, "clients")); len(entries) != 0 {
		t.Fatalf("references left behind: %v", entries)
	}
}

// Within one process too, each Cluster is a user of its own: the one that
// started the server stopping first does not stop it.
func TestStopOfStarterKeepsServerForOthers(t *testing.T) {
	t.Parallel()
	dataDir := newDataDir(t)
	first := start(t, Options{DataDir: dataDir})
	second := start(t, Options{DataDir: dataDir})
	if !first.Owned() || second.Owned() {
		t.Fatal("want the first to start and the second to attach")
	}
	if err := first.Stop(); err != nil {
		t.Fatal(err)
	}
	if got := queryString(t, second.URL(), "SELECT 1"); got != "1" {
		t.Fatalf("second after the first stopped: %q", got)
	}
	if err := second.Stop(); err != nil {
		t.Fatal(err)
	}
	if !serverGone(dataDir, 10*time.Second) {
		t.Fatal("server still running after both stopped")
	}
}

// A cluster made before the roles existed has its objects owned by the
// superuser; Start with OwnerRole gives them to the owner, and both roles
// are plain (no superuser) and sign in over the socket.
func TestRolesAdoptExistingObjects(t *testing.T) {
	t.Parallel()
	dataDir := newDataDir(t)
	old := start(t, Options{DataDir: dataDir})
	execSQL(t, old.URL(),
		"CREATE TABLE t (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, s serial)",
		"CREATE SEQUENCE free_seq",
		"CREATE VIEW v AS SELECT id FROM t",
		"CREATE TYPE mood AS ENUM ('ok')",
		"CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'")
	c := start(t, Options{DataDir: dataDir, OwnerRole: "meridian_owner", AppRole: "meridian_app"})
	got := queryString(t, c.URL(), `SELECT string_agg(DISTINCT owner, ',') FROM (
		SELECT relowner::regrole::text AS owner FROM pg_class WHERE relnamespace = 'public'::regnamespace
		UNION ALL SELECT proowner::regrole::text FROM pg_proc WHERE pronamespace = 'public'::regnamespace
		UNION ALL SELECT typowner::regrole::text FROM pg_type WHERE typnamespace = 'public'::regnamespace
		UNION ALL SELECT datdba::regrole::text FROM pg_database WHERE datname = current_database()) x`)
	if got != "meridian_owner" {
		t.Fatalf("owners after Start with roles: %s", got)
	}
	if got := queryString(t, c.URL(), `SELECT string_agg(rolname || ':' || rolsuper || rolbypassrls || rolcreaterole || rolcreatedb, ',' ORDER BY rolname)
		FROM pg_roles WHERE rolname IN ('meridian_owner', 'meridian_app')`); got != "meridian_app:falsefalsefalsefalse,meridian_owner:falsefalsefalsefalse" {
		t.Fatalf("roles: %s", got)
	}
	execSQL(t, c.OwnerURL(), "CREATE TABLE made_by_owner (id int)", "ALTER TABLE t ADD COLUMN note text")
	if got := queryString(t, c.AppURL(), "SELECT current_user"); got != "meridian_app" {
		t.Fatalf("app URL signs in as %s", got)
	}
	// A second Start finds nothing left to adopt.
	again := start(t, Options{DataDir: dataDir, OwnerRole: "meridian_owner", AppRole: "meridian_app"})
	if again.Owned() {
		t.Fatal("want an attach")
	}
}

// Many commands attaching and leaving at once while one keeps working:
// the server stays up for it the whole time, and stops after it leaves.
func TestChurnKeepsServerForTheStayer(t *testing.T) {
	t.Parallel()
	dataDir := newDataDir(t)
	stayer := start(t, Options{DataDir: dataDir})
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for g := 0; g < 8; g++ {
		wg.Go(func() {
			for i := 0; i < 5; i++ {
				c, err := Start(context.Background(), Options{DataDir: dataDir, Fast: true})
				if err != nil {
					errs <- err
					return
				}
				if err := c.Stop(); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := queryString(t, stayer.URL(), "SELECT 1"); got != "1" {
		t.Fatalf("stayer after the churn: %q", got)
	}
	if err := stayer.Stop(); err != nil {
		t.Fatal(err)
	}
	if !serverGone(dataDir, 10*time.Second) {
		t.Fatal("server still running after everyone left")
	}
}
