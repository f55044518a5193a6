package cli

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"meridian/pkg/auth"
	"meridian/pkg/bank"
	"meridian/pkg/db"
	"meridian/pkg/testdb"
	"meridian/server"
)

// serveAPI serves the API on the database at url on a loopback port and
// returns its address.
func serveAPI(t *testing.T, url string) string {
	t.Helper()
	conn, err := db.Open(context.Background(), testdb.AppURL(url))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	tokens, _ := auth.NewTokens([]byte(strings.Repeat("r", 32)), time.Hour)
	svc := bank.New(conn, tokens, bank.Settings{})
	srv := server.New(svc, server.NewHub(svc, nil), server.Options{Version: "test", Logger: slog.New(slog.DiscardHandler)})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	return "http://" + ln.Addr().String()
}

var timestamps = regexp.MustCompile(`\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?|mrd_(app|cs)_[A-Za-z0-9_-]+`)

// TestRemoteCommandsMatchLocal runs every command that can go through the
// API twice: against one database as the operator, and with --server
// against a server on a second database seeded the same way, signed in as
// its administrator. Output (--json, -o json), messages and exit codes must
// be the same, but for the times of what was just written. Reads run both
// ways on the second database and must be the same to the byte.
func TestRemoteCommandsMatchLocal(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // the login below is this test's alone
	local, other := newCLI(t), newCLI(t)
	local.ok("seed", "--demo-seed", "true")
	other.ok("seed", "--demo-seed", "true")
	api := serveAPI(t, other.base[1])

	if code, _, stderr := other.run("admin@meridian.test\nadmin12345\n", "login", "--server", api); code != 0 {
		t.Fatalf("login: exit %d %s", code, stderr)
	}
	saved, err := os.Stat(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "meridian", "login.json"))
	if err != nil || saved.Mode().Perm() != 0o600 {
		t.Fatalf("the saved login: %v %v, want mode 0600", saved, err)
	}

	remote := func(args ...string) (int, string, string) {
		return other.run("", append([]string{"--server", api}, args...)...)
	}
	same := func(what string, args []string, exact bool, localRun func(...string) (int, string, string)) {
		t.Helper()
		lc, lout, lerr := localRun(args...)
		rc, rout, rerr := remote(args...)
		if !exact {
			lout, rout = timestamps.ReplaceAllString(lout, "TIME"), timestamps.ReplaceAllString(rout, "TIME")
			lerr, rerr = timestamps.ReplaceAllString(lerr, "TIME"), timestamps.ReplaceAllString(rerr, "TIME")
		}
		if lc != rc || lout != rout || lerr != rerr {
			t.Errorf("%s: meridian %s\nlocal:  exit %d\n%s%s\nremote: exit %d\n%s%s", what, strings.Join(args, " "), lc, lout, lerr, rc, rout, rerr)
		}
	}
	onLocal := func(as ...string) (int, string, string) { return local.run("", as...) }
	onOther := func(as ...string) (int, string, string) { return other.run("", as...) }

	for _, c := range []struct {
		what string
		args []string
	}{
		{"deactivate", []string{"user", "deactivate", "bob@meridian.test", "--json"}},
		{"activate by id", []string{"user", "activate", "3", "-o", "json"}},
		{"a limit", []string{"user", "limit", "bob@meridian.test", "250.00", "--json"}},
		{"the default limit", []string{"user", "limit", "bob@meridian.test", "default", "--json"}},
		{"a role", []string{"role", "assign", "bob@meridian.test", "User", "--json"}},
		{"a deposit", []string{"account", "deposit", "100200300", "10.50", "--description", "Branch", "--idempotency-key", "k-1", "--json"}},
		{"a withdrawal", []string{"account", "withdraw", "100200300", "5", "--json"}},
		{"a table", []string{"user", "limit", "alice@meridian.test", "75"}},
		{"an app", []string{"oauth-client", "create", "--name", "Budget Buddy", "--redirect-uri", "https://budget.example/cb", "--json"}},
		{"a public app", []string{"oauth-client", "create", "--name", "Phone", "--redirect-uri", "com.budget.app:/cb", "--public"}},
		{"a bad redirect URI", []string{"oauth-client", "create", "--name", "Bad", "--redirect-uri", "http://example.com/cb"}},
		// Refusals: the same sentence, the same exit code.
		{"no such user", []string{"user", "activate", "ghost@example.test"}},
		{"no such user id", []string{"user", "deactivate", "987654"}},
		{"the last admin", []string{"role", "assign", "admin@meridian.test", "User"}},
		{"a bad role", []string{"role", "assign", "bob@meridian.test", "Boss"}},
		{"insufficient funds", []string{"account", "withdraw", "100200300", "999999", "--json"}},
		{"no such account", []string{"account", "deposit", "NOSUCH0001", "1"}},
		{"usage", []string{"account", "deposit", "100200300", "1.234"}},
	} {
		same(c.what, c.args, false, onLocal)
	}
	for _, c := range []struct {
		what string
		args []string
	}{
		{"the users", []string{"user", "list", "--json"}},
		{"the users' table", []string{"user", "list"}},
		{"the audit log", []string{"audit-log", "tail", "-n", "12", "--json"}},
		{"the audit log's table", []string{"audit-log", "tail", "-n", "3"}},
		{"the apps", []string{"oauth-client", "list", "--json"}},
	} {
		same(c.what, c.args, true, onOther)
	}

	// audit-log tail -f with --server follows over the WebSocket.
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int)
	go func() {
		done <- ExecuteContext(ctx, append([]string{"--server", api, "audit-log", "tail", "-f", "-n", "2", "--json"}, other.base...), nil, &out, &errb)
	}()
	waitFor(t, func() bool { return strings.Count(out.String(), "\n") >= 2 }, "the newest rows")
	remote("user", "deactivate", "bob@meridian.test")
	waitFor(t, func() bool { return strings.Contains(out.String(), "Deactivated user bob@meridian.test") }, "the new row over the WebSocket")
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("tail -f --server: exit %d %s", code, errb.String())
	}

	// logout revokes the token: the next remote command is refused.
	if code, _, stderr := other.run("", "logout"); code != 0 {
		t.Fatalf("logout: %d %s", code, stderr)
	}
	if code, _, stderr := remote("user", "list"); code != 1 || !strings.Contains(stderr, "Not signed in") {
		t.Fatalf("after logout: exit %d %q", code, stderr)
	}
}
