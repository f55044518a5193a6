package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/db"
	"meridian/pkg/money"
	"meridian/pkg/pgembed"
	"meridian/pkg/testdb"
)

func TestMain(m *testing.M) {
	// No saved `meridian login` of the machine's user, nor a server in the
	// environment, may send a test's commands elsewhere.
	dir, err := os.MkdirTemp("", "meridian-cli-config")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	os.Setenv("XDG_CONFIG_HOME", dir)
	os.Unsetenv("MERIDIAN_SERVER")
	os.Unsetenv("MERIDIAN_TOKEN")
	testdb.Main(m)
}

// syncBuffer is a buffer safe to read while a command writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// cliEnv runs commands against one fresh database.
type cliEnv struct {
	t    *testing.T
	base []string
}

func newCLI(t *testing.T) *cliEnv {
	return &cliEnv{t: t, base: []string{"--database-url", testdb.URL(t), "--database-app-role", testdb.AppRole, "--data-dir", t.TempDir(), "--log-level", "error"}}
}

// run executes a command and returns its exit code, stdout and stderr.
func (c *cliEnv) run(stdin string, args ...string) (int, string, string) {
	c.t.Helper()
	var out, errb syncBuffer
	code := ExecuteContext(context.Background(), append(append([]string{}, args...), c.base...), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func (c *cliEnv) ok(args ...string) string {
	c.t.Helper()
	code, out, errs := c.run("", args...)
	if code != 0 {
		c.t.Fatalf("meridian %v: exit %d\n%s%s", args, code, out, errs)
	}
	return out
}

func TestUsageAndConfigErrors(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, args := range [][]string{{"bogus"}, {"user", "list", "--nope"}, {"role", "assign", "x"}, {"user", "list", "--output", "yaml"}, {"migrate", "down", "zero"}, {"user", "create"}} {
		if code, _, _ := c.run("", args...); code != 2 {
			t.Errorf("meridian %v: exit %d, want 2", args, code)
		}
	}
	code, _, stderr := c.run("", "user", "list", "--token-ttl", "forever")
	if code != 1 || !strings.Contains(stderr, "token_ttl") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Fatalf("bad config: exit %d, %q", code, stderr)
	}
}

// Not parallel: it sets environment variables.
func TestConfigFileAndPrecedence(t *testing.T) {
	c := newCLI(t)
	t.Setenv("MERIDIAN_LOG_FORMAT", "xml") // the environment is read
	code, _, stderr := c.run("", "user", "list")
	if code != 1 || !strings.Contains(stderr, "log_format") {
		t.Fatalf("bad env: exit %d, %q", code, stderr)
	}
	t.Setenv("MERIDIAN_LOG_FORMAT", "text")
	dir := t.TempDir()
	file := dir + "/meridian.yaml"
	os.WriteFile(file, []byte("token_ttl: nonsense\n"), 0o600)
	code, _, stderr = c.run("", "user", "list", "--config", file)
	if code != 1 || !strings.Contains(stderr, "token_ttl") {
		t.Fatalf("file value not read: %d %q", code, stderr)
	}
	t.Setenv("MERIDIAN_TOKEN_TTL", "2h") // environment beats the file
	if code, _, stderr := c.run("", "user", "list", "--config", file); code != 0 {
		t.Fatalf("env should win over the file: %d %q", code, stderr)
	}
	// a flag beats the environment
	if code, _, _ := c.run("", "user", "list", "--config", file, "--token-ttl", "bad"); code != 1 {
		t.Fatal("flag should win over the environment")
	}
}

// TestConfigFileLists: a list in meridian.yaml reads as the comma-separated
// text a flag gives (database_read_urls).
func TestConfigFileLists(t *testing.T) {
	c := newCLI(t)
	file := t.TempDir() + "/meridian.yaml"
	os.WriteFile(file, []byte("database_url: postgres://app@primary/m\ndatabase_read_urls:\n  - postgres://r@standby1/m\n  - mysql://standby2/m\n"), 0o600)
	code, _, stderr := c.run("", "user", "list", "--config", file)
	if code != 1 || !strings.Contains(stderr, "database_read_urls") || !strings.Contains(stderr, "postgres://r@standby1/m,mysql://standby2/m") {
		t.Fatalf("a list in the file: exit %d, %q", code, stderr)
	}
}

func TestUserAndRoleCommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.ok("user", "create", "--name", "Root Admin", "--email", "root@example.test", "--phone", "+1 555 0000", "--password", "password123", "--role", "Admin")
	code, _, _ := c.run("secretpass1\n", "user", "create", "--name", "Cy Cole", "--email", "cy@example.test", "--phone", "+1 555 0001", "--password-stdin")
	if code != 0 {
		t.Fatal("create with --password-stdin failed")
	}
	code, _, stderr := c.run("", "user", "create", "--name", "Dup", "--email", "CY@example.test", "--phone", "+1 555 0002", "--password", "password123")
	if code != 1 || !strings.Contains(stderr, "already exists") {
		t.Fatalf("duplicate: %d %q", code, stderr)
	}
	table := c.ok("user", "list")
	if !strings.Contains(table, "EMAIL") || !strings.Contains(table, "cy@example.test") || !strings.Contains(table, "Active") {
		t.Fatalf("table:\n%s", table)
	}
	var users []map[string]any
	if err := json.Unmarshal([]byte(c.ok("user", "list", "-o", "json")), &users); err != nil || len(users) != 2 {
		t.Fatalf("json: %v %v", users, err)
	}
	c.ok("user", "deactivate", "cy@example.test")
	if err := json.Unmarshal([]byte(c.ok("user", "list", "-o", "json")), &users); err != nil || users[0]["status"] != false {
		t.Fatalf("after deactivate: %v", users)
	}
	c.ok("user", "activate", "cy@example.test")
	code, _, stderr = c.run("", "user", "deactivate", "root@example.test")
	if code != 1 || !strings.Contains(stderr, "no active administrator") {
		t.Fatalf("last admin: %d %q", code, stderr)
	}
	c.ok("role", "assign", "cy@example.test", "Admin")
	c.ok("role", "assign", "root@example.test", "User")
	if code, _, _ := c.run("", "role", "assign", "cy@example.test", "Boss"); code != 1 {
		t.Fatal("bad role accepted")
	}
	if code, _, stderr := c.run("", "user", "activate", "ghost@example.test"); code != 1 || !strings.Contains(stderr, "No user") {
		t.Fatalf("unknown user: %d %q", code, stderr)
	}

	rows := c.ok("audit-log", "tail", "-n", "3", "-o", "json")
	lines := strings.Split(strings.TrimSpace(rows), "\n")
	if len(lines) != 3 {
		t.Fatalf("tail -n 3 printed %d lines", len(lines))
	}
	var last map[string]any
	json.Unmarshal([]byte(lines[2]), &last)
	if last["ActionType"] != "ROLE_ASSIGN" || !strings.HasSuffix(last["Description"].(string), "(via CLI)") {
		t.Fatalf("newest audit row %v", last)
	}
}

func TestAuditLogFollow(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.ok("user", "create", "--name", "First", "--email", "first@example.test", "--phone", "+1 555 0000", "--password", "password123")
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int)
	go func() {
		done <- ExecuteContext(ctx, append([]string{"audit-log", "tail", "-f", "-n", "5"}, c.base...), nil, &out, &errb)
	}()
	waitFor(t, func() bool { return strings.Contains(out.String(), "first@example.test") }, "the existing row")
	c.ok("user", "create", "--name", "Second", "--email", "second@example.test", "--phone", "+1 555 0000", "--password", "password123")
	start := time.Now()
	waitFor(t, func() bool { return strings.Contains(out.String(), "second@example.test") }, "the new row")
	t.Logf("new row shown after %s", time.Since(start))
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("tail -f exit %d: %s", code, errb.String())
	}
}

// audit-log verify exits 0 on an intact log and 1, naming the row, on a changed one.
func TestAuditLogVerify(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.ok("user", "create", "--name", "Vic Verify", "--email", "vic@example.test", "--phone", "+1 555 0000", "--password", "password123")
	c.ok("user", "deactivate", "vic@example.test")
	if out := c.ok("audit-log", "verify"); !strings.Contains(out, "intact") {
		t.Fatalf("verify printed %q", out)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(c.ok("audit-log", "verify", "-o", "json")), &rep); err != nil || rep["ok"] != true || rep["first_bad_id"] != nil {
		t.Fatalf("verify -o json: %v %v", rep, err)
	}
	conn, err := db.Open(context.Background(), c.base[1])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var id int64
	conn.Get(&id, `SELECT min(id) FROM audit_log`)
	for _, q := range []string{
		`ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_update_delete`,
		`UPDATE audit_log SET description = 'Created nobody' WHERE id = ` + strconv.FormatInt(id, 10),
		`ALTER TABLE audit_log ENABLE TRIGGER audit_log_no_update_delete`,
	} {
		if _, err := conn.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	code, out, stderr := c.run("", "audit-log", "verify")
	if code != 1 || out != "" || !strings.Contains(stderr, "audit row "+strconv.FormatInt(id, 10)+" was changed") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Fatalf("verify after tampering: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	code, out, _ = c.run("", "audit-log", "verify", "-o", "json")
	if err := json.Unmarshal([]byte(out), &rep); code != 1 || err != nil || rep["ok"] != false || rep["first_bad_id"] != float64(id) {
		t.Fatalf("verify -o json after tampering: exit %d %v %v", code, rep, err)
	}
}

// A checkpoint written with audit-log anchor catches what the chain alone
// cannot: a row rewritten and every link after it computed again by the
// database's owner. verify names the head; with --anchors it exits 1.
func TestAuditLogVerifyAnchors(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.ok("user", "create", "--name", "Ann Anchor", "--email", "ann@example.test", "--phone", "+1 555 0000", "--password", "password123")
	dir := t.TempDir()
	c.ok("audit-log", "anchor", "--dir", dir)
	if out := c.ok("audit-log", "verify", "--anchors", dir); !strings.Contains(out, "intact") || !strings.Contains(out, "Head: link 1") ||
		!strings.Contains(out, "extends all 1 checkpoints") {
		t.Fatalf("verify --anchors printed %q", out)
	}
	conn, err := db.Open(context.Background(), c.base[1])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{
		`ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_update_delete`,
		`UPDATE audit_log SET description = 'Created nobody'`,
		`ALTER TABLE audit_log ENABLE TRIGGER audit_log_no_update_delete`,
		`ALTER TABLE audit_chain DISABLE TRIGGER audit_chain_no_update_delete`,
		`UPDATE audit_chain c SET hash = audit_digest('\x0000000000000000000000000000000000000000000000000000000000000000'::bytea,
			l.id, l.actor_user_id, l.account_number, l.action_type, l.table_name, l.description, l.created_at)
			FROM audit_log l WHERE l.id = c.audit_id AND c.seq = 1`,
		`UPDATE event_sealer SET audit_hash = (SELECT hash FROM audit_chain WHERE seq = 1)`,
		`ALTER TABLE audit_chain ENABLE TRIGGER audit_chain_no_update_delete`,
	} {
		if _, err := conn.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if out := c.ok("audit-log", "verify"); !strings.Contains(out, "intact") {
		t.Fatalf("the chain alone should still verify (the test's premise): %q", out)
	}
	code, _, stderr := c.run("", "audit-log", "verify", "--anchors", dir)
	if code != 1 || !strings.Contains(stderr, "rewritten") {
		t.Fatalf("verify --anchors after a rewrite: exit %d, %q", code, stderr)
	}
}

func TestSeedCommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	// With database_url, demo data (published passwords) needs demo_seed=true.
	code, _, stderr := c.run("", "seed")
	if code != 1 || !strings.Contains(stderr, "demo_seed") {
		t.Fatalf("demo seed with database_url and demo_seed auto: exit %d %q", code, stderr)
	}
	if users := c.ok("user", "list", "-o", "json"); strings.TrimSpace(users) != "[]" {
		t.Fatalf("users after a refused demo seed: %s", users)
	}
	out := c.ok("seed", "--demo-seed", "true")
	if !strings.Contains(out, "alice@meridian.test") || !strings.Contains(out, "admin@meridian.test") {
		t.Fatalf("seed printed:\n%s", out)
	}
	_, _, stderr = c.run("", "seed", "--demo-seed", "true")
	if !strings.Contains(stderr, "already has users") {
		t.Fatalf("second seed: %q", stderr)
	}
	var stats map[string]any
	if err := json.Unmarshal([]byte(c.ok("seed", "--users", "50", "--accounts-per-user", "2", "--seed", "7", "-o", "json")), &stats); err != nil {
		t.Fatal(err)
	}
	if n, _ := stats["users"].(float64); n != 50 {
		t.Fatalf("bulk stats %v", stats)
	}
	if code, _, _ := c.run("", "seed", "--users", "5", "--accounts-per-user", "0"); code != 2 {
		t.Fatal("bad bulk flags accepted")
	}
}

func TestMigrateCommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	st := c.ok("migrate", "status")
	if !strings.Contains(st, "applied") {
		t.Fatalf("status:\n%s", st)
	}
	// Rolling back 0001 deletes the audit log: refused without --destroy-data.
	for _, args := range [][]string{{"migrate", "down", "--all"}, {"migrate", "down", "100"}} {
		code, _, stderr := c.run("", args...)
		if code != 1 || !strings.Contains(stderr, "--destroy-data") || !strings.Contains(stderr, "audit log") {
			t.Fatalf("%v: exit %d %q", args, code, stderr)
		}
		if st := c.ok("migrate", "status", "-o", "json"); strings.Contains(st, `"applied": false`) {
			t.Fatalf("%v refused but rolled back:\n%s", args, st)
		}
	}
	// The newest one does not drop the audit log; -o json prints what moved.
	var moved map[string][]int
	if err := json.Unmarshal([]byte(c.ok("migrate", "down", "1", "-o", "json")), &moved); err != nil || len(moved["rolled_back"]) != 1 {
		t.Fatalf("down 1 -o json: %v %v", moved, err)
	}
	back := moved["rolled_back"][0]
	if err := json.Unmarshal([]byte(c.ok("migrate", "up", "-o", "json")), &moved); err != nil || len(moved["applied"]) != 1 || moved["applied"][0] != back {
		t.Fatalf("up -o json: %v %v", moved, err)
	}
	c.ok("migrate", "down", "--all", "--destroy-data")
	if st := c.ok("migrate", "status", "-o", "json"); strings.Contains(st, `"applied": true`) {
		t.Fatalf("still applied after down --all:\n%s", st)
	}
	c.ok("migrate", "up")
	c.ok("user", "list")
}

// TestEmbeddedLifecycle runs commands with no database_url: the first starts
// and stops its own cluster; while serve runs, a command attaches to its cluster.
func TestEmbeddedLifecycle(t *testing.T) {
	dir, err := os.MkdirTemp("/tmp", "mcli")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	t.Cleanup(func() { os.RemoveAll(dir) })
	base := []string{"--data-dir", dir + "/d", "--log-level", "error"}
	run := func(ctx context.Context, out *syncBuffer, args ...string) int {
		return ExecuteContext(ctx, append(args, base...), nil, out, out)
	}
	var out syncBuffer
	if code := run(context.Background(), &out, "user", "list"); code != 0 {
		t.Fatalf("first command: %d %s", code, out.String())
	}
	if _, err := os.Stat(dir + "/d/postgres/postmaster.pid"); !os.IsNotExist(err) {
		t.Fatal("the command left its cluster running")
	}
	if st, err := os.Stat(dir + "/d/jwt_secret"); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("jwt secret: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var serveOut syncBuffer
	done := make(chan int)
	go func() { done <- run(ctx, &serveOut, "serve", "--addr", "127.0.0.1:0") }()
	waitFor(t, func() bool { return strings.Contains(serveOut.String(), "Meridian is running at") }, "serve to start")
	url := strings.Fields(strings.SplitAfter(serveOut.String(), "running at ")[1])[0]

	var listOut syncBuffer
	if code := run(context.Background(), &listOut, "user", "list", "-o", "json"); code != 0 || !strings.Contains(listOut.String(), "alice@meridian.test") {
		t.Fatalf("command beside serve: %d %s", code, listOut.String())
	}
	res, err := http.Get(url + "/readyz")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("serve after the command detached: %v %v", res, err)
	}
	res.Body.Close()
	// The owner role owns the schema; serve's sessions are the runtime role.
	super := superuserDB(t, dir+"/d")
	var owners, sessions string
	super.Get(&owners, `SELECT string_agg(DISTINCT tableowner, ',') FROM pg_tables WHERE schemaname = 'public'`)
	// The demo seed's owner connection (the roles it gave) is closed when
	// its transaction ends; its backend may take a moment to leave.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		super.Get(&sessions, `SELECT string_agg(DISTINCT usename, ',') FROM pg_stat_activity
			WHERE datname = 'meridian' AND backend_type = 'client backend' AND pid <> pg_backend_pid()`)
		if sessions == "meridian_app" || time.Now().After(deadline) {
			break
		}
	}
	super.Close()
	if owners != "meridian_owner" || sessions != "meridian_app" {
		t.Fatalf("table owners %q, serve's sessions %q", owners, sessions)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve exit %d: %s", code, serveOut.String())
	}
	if _, err := os.Stat(dir + "/d/postgres/postmaster.pid"); !os.IsNotExist(err) {
		t.Fatal("serve left its cluster running")
	}
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for i := 0; i < 300; i++ {
		if cond() {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// Bulk data has published passwords: seed --users and bench refuse a
// database holding users no seed created, unless --force.
func TestSeedAndBenchRefuseARealDatabase(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.ok("seed", "--users", "5") // an empty database is a test database
	c.ok("user", "create", "--name", "Real Customer", "--email", "real@example.com", "--phone", "+1 555 0123", "--password", "password123")
	for _, args := range [][]string{
		{"seed", "--users", "5"},
		{"bench", "--users", "2", "--count", "1", "--url", "http://127.0.0.1:1"},
		{"bench", "--from-existing", "--users", "2", "--count", "1", "--url", "http://127.0.0.1:1"},
	} {
		code, _, stderr := c.run("", args...)
		if code != 1 || !strings.Contains(stderr, "--force") || !strings.Contains(stderr, "1 user(s)") {
			t.Fatalf("%v: exit %d %q", args, code, stderr)
		}
	}
	var users []map[string]any
	json.Unmarshal([]byte(c.ok("user", "list", "-o", "json")), &users)
	if len(users) != 6 {
		t.Fatalf("%d users after the refusals, want 6", len(users))
	}
	var stats map[string]any
	if err := json.Unmarshal([]byte(c.ok("seed", "--users", "5", "--force", "-o", "json")), &stats); err != nil || stats["users"].(float64) != 5 {
		t.Fatalf("forced seed: %v %v", stats, err)
	}
}

// With database_url, serve seeds no demo data and prints no demo sign-ins
// unless demo_seed is set to true.
func TestServeSeedsNoDemoDataOnDatabaseURL(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	serveUntilBanner := func(extra ...string) string {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		var out syncBuffer
		done := make(chan int)
		go func() {
			done <- ExecuteContext(ctx, append(append([]string{"serve", "--addr", "127.0.0.1:0"}, extra...), c.base...), nil, &out, &out)
		}()
		waitFor(t, func() bool { return strings.Contains(out.String(), "Meridian is running at") }, "serve to start")
		cancel()
		if code := <-done; code != 0 {
			t.Fatalf("serve exit %d: %s", code, out.String())
		}
		return out.String()
	}
	if out := serveUntilBanner(); strings.Contains(out, "Demo sign-ins") || strings.Contains(out, "admin12345") {
		t.Fatalf("banner with database_url:\n%s", out)
	}
	if users := c.ok("user", "list", "-o", "json"); strings.TrimSpace(users) != "[]" {
		t.Fatalf("serve with database_url seeded users: %s", users)
	}
	if out := serveUntilBanner("--demo-seed", "true"); !strings.Contains(out, "Demo sign-ins") || !strings.Contains(out, "alice@meridian.test") {
		t.Fatalf("banner with demo_seed=true:\n%s", out)
	}
	// --output json: the banner is one JSON object on stdout.
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int)
	go func() {
		done <- ExecuteContext(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "-o", "json"}, c.base...), nil, &out, &errb)
	}()
	waitFor(t, func() bool { return strings.Contains(out.String(), "}") }, "serve to start")
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve -o json exit %d: %s", code, errb.String())
	}
	var banner struct {
		URL         string `json:"url"`
		DemoSignIns []any  `json:"demo_sign_ins"`
	}
	if err := json.Unmarshal([]byte(out.String()), &banner); err != nil || !strings.HasPrefix(banner.URL, "http://") || banner.DemoSignIns == nil {
		t.Fatalf("serve -o json printed %q: %v", out.String(), err)
	}
}

// superuserDB connects to the embedded cluster of a data dir as its superuser.
func superuserDB(t *testing.T, dataDir string) *sqlx.DB {
	t.Helper()
	conn, err := db.Open(context.Background(), "host="+dataDir+"/run port=5432 user=meridian dbname=meridian sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// A data dir made before the owner and runtime roles existed has its schema
// owned by the cluster's superuser: the next command gives it to the owner
// role, migrates as the owner and runs as the runtime role.
func TestEmbeddedUpgradeFromSuperuserOwnedSchema(t *testing.T) {
	dir, err := os.MkdirTemp("/tmp", "mcli")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	t.Cleanup(func() { os.RemoveAll(dir) })
	ctx := context.Background()
	old, err := pgembed.Start(ctx, pgembed.Options{DataDir: dir + "/d", Database: "meridian", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Open(ctx, old.URL())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Up(ctx, conn, 0); err != nil {
		t.Fatal(err)
	}
	conn.MustExec(`INSERT INTO audit_log (action_type, table_name, description) VALUES ('OLD', 'users', 'before the roles')`)
	conn.Close()
	if err := old.Stop(); err != nil {
		t.Fatal(err)
	}

	var out syncBuffer
	base := []string{"--data-dir", dir + "/d", "--log-level", "error"}
	if code := ExecuteContext(ctx, append([]string{"user", "create", "--name", "New Admin", "--email", "new@example.test",
		"--phone", "+1 555 0000", "--password", "password123", "--role", "Admin"}, base...), nil, &out, &out); code != 0 {
		t.Fatalf("first command after the upgrade: %d %s", code, out.String())
	}
	if code := ExecuteContext(ctx, append([]string{"migrate", "down", "1"}, base...), nil, &out, &out); code != 0 {
		t.Fatalf("migrate down as the owner: %d %s", code, out.String())
	}
	if code := ExecuteContext(ctx, append([]string{"migrate", "up"}, base...), nil, &out, &out); code != 0 {
		t.Fatalf("migrate up as the owner: %d %s", code, out.String())
	}
	// Start the cluster again to look at it as the superuser.
	again, err := pgembed.Start(ctx, pgembed.Options{DataDir: dir + "/d", Database: "meridian", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Stop()
	super := superuserDB(t, dir+"/d")
	defer super.Close()
	var owners, audit string
	super.Get(&owners, `SELECT string_agg(DISTINCT owner, ',') FROM (
		SELECT relowner::regrole::text AS owner FROM pg_class WHERE relnamespace = 'public'::regnamespace
		UNION ALL SELECT proowner::regrole::text FROM pg_proc WHERE pronamespace = 'public'::regnamespace) x`)
	// The old row kept; the new administrator's role given by set_user_role
	// (its own row), then the registration.
	super.Get(&audit, `SELECT string_agg(action_type, ',' ORDER BY id) FROM audit_log`)
	if owners != "meridian_owner" || audit != "OLD,ROLE_ASSIGN,REGISTER" {
		t.Fatalf("after the upgrade: owners %q, audit rows %q", owners, audit)
	}
}

// An external database: database_url is the runtime role's, which cannot
// migrate; database_owner_url is the owner's, which migrate up uses (and
// then grants the runtime role).
func TestExternalDatabaseRoles(t *testing.T) {
	t.Parallel()
	owner := testdb.URL(t)
	app := testdb.AppURL(owner)
	run := func(url string, args ...string) (int, string) {
		var out syncBuffer
		base := []string{"--database-url", url, "--database-app-role", testdb.AppRole, "--data-dir", t.TempDir(), "--log-level", "error"}
		code := ExecuteContext(context.Background(), append(args, base...), nil, &out, &out)
		return code, out.String()
	}
	if code, out := run(app, "user", "list"); code != 0 {
		t.Fatalf("runtime role on a current schema: %d %s", code, out)
	}
	if code, out := run(owner, "migrate", "down", "1"); code != 0 {
		t.Fatalf("owner migrate down: %d %s", code, out)
	}
	code, out := run(app, "user", "list")
	if code != 1 || !strings.Contains(out, "database_owner_url") {
		t.Fatalf("runtime role with a pending migration: %d %s", code, out)
	}
	if code, out := run(app, "migrate", "up", "--database-owner-url", owner); code != 0 || !strings.Contains(out, "applied 1 migration") {
		t.Fatalf("migrate up with database_owner_url: %d %s", code, out)
	}
	if code, out := run(app, "user", "create", "--name", "Ext Ernal", "--email", "ext@example.test", "--phone", "+1 555 0000", "--password", "password123"); code != 0 {
		t.Fatalf("runtime role after migrate up: %d %s", code, out)
	}
}

func TestAccountDepositAndWithdraw(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.ok("seed", "--demo-seed", "true") // alice holds 100200300 with $5,000 and some history
	var tx struct {
		TransactionType string       `json:"transaction_type"`
		Amount          money.Amount `json:"amount"`
		Description     string       `json:"description"`
	}
	if err := json.Unmarshal([]byte(c.ok("account", "deposit", "100200300", "250.00", "--description", "Cash at the branch", "-o", "json")), &tx); err != nil {
		t.Fatal(err)
	}
	if tx.TransactionType != "CREDIT" || tx.Amount != 250_00 || tx.Description != "Cash at the branch" {
		t.Fatalf("deposit printed %+v", tx)
	}
	table := c.ok("account", "withdraw", "100200300", "40")
	if !strings.Contains(table, "DEBIT") || !strings.Contains(table, "Withdrawal") || !strings.Contains(table, "40.00") {
		t.Fatalf("withdraw printed:\n%s", table)
	}
	if code, _, stderr := c.run("", "account", "withdraw", "100200300", "9999.99"); code != 1 || !strings.Contains(stderr, "Insufficient funds") {
		t.Fatalf("overdraw: exit %d %q", code, stderr)
	}
	// At or over approval_threshold the command only asks (exit 0).
	if code, stdout, stderr := c.run("", "account", "deposit", "100200300", "10000"); code != 0 || !strings.Contains(stdout, "pending") ||
		!strings.Contains(stderr, "waits for a second administrator") {
		t.Fatalf("a deposit over the threshold: exit %d %q %q", code, stdout, stderr)
	}
	if code, _, stderr := c.run("", "account", "deposit", "NOSUCH0001", "1"); code != 1 || !strings.Contains(stderr, "Account not found") {
		t.Fatalf("unknown account: exit %d %q", code, stderr)
	}
	for _, args := range [][]string{{"account", "deposit", "100200300", "12.345"}, {"account", "deposit", "100200300"}, {"account", "withdraw", "100200300", "-5"}} {
		if code, _, _ := c.run("", args...); code != 2 {
			t.Errorf("meridian %v: exit %d, want 2", args, code)
		}
	}
	rows := c.ok("audit-log", "tail", "-n", "3", "-o", "json")
	if !strings.Contains(rows, `"DEPOSIT"`) || !strings.Contains(rows, `"WITHDRAWAL"`) || !strings.Contains(rows, `"APPROVAL_REQUEST"`) || !strings.Contains(rows, "(via CLI)") {
		t.Fatalf("audit rows:\n%s", rows)
	}
}

// The configuration file is found only as meridian.yaml, meridian.yml or
// meridian.json in the working directory: never the binary ./meridian
// itself (issue 20: "yaml: control characters are not allowed"). Not
// parallel: it changes the working directory.
func TestConfigFileFoundByItsNamesOnly(t *testing.T) {
	c := newCLI(t)
	dir := t.TempDir()
	t.Chdir(dir)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer bin.Close()
	head, err := io.ReadAll(io.LimitReader(bin, 1<<20)) // the start of a real binary
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("meridian", head, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := c.run("", "user", "list"); code != 0 {
		t.Fatalf("beside a binary named meridian: exit %d, %q", code, stderr)
	}
	for _, name := range []string{"meridian.yaml", "meridian.yml", "meridian.json"} {
		body := "token_ttl: nonsense\n"
		if strings.HasSuffix(name, ".json") {
			body = `{"token_ttl": "nonsense"}`
		}
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := c.run("", "user", "list"); code != 1 || !strings.Contains(stderr, "token_ttl") {
			t.Fatalf("%s not read: exit %d, %q", name, code, stderr)
		}
		if err := os.Remove(name); err != nil {
			t.Fatal(err)
		}
	}
	// Two of them: which one is meant is not guessed.
	os.WriteFile("meridian.yaml", []byte("log_format: json\n"), 0o600)
	os.WriteFile("meridian.json", []byte(`{"log_format": "text"}`), 0o600)
	if code, _, stderr := c.run("", "user", "list"); code != 1 || !strings.Contains(stderr, "meridian.yaml") || !strings.Contains(stderr, "meridian.json") {
		t.Fatalf("two configuration files: exit %d, %q", code, stderr)
	}
	// --config still reads any file named.
	if code, _, stderr := c.run("", "user", "list", "--config", "meridian.json"); code != 0 {
		t.Fatalf("--config meridian.json: exit %d, %q", code, stderr)
	}
}
