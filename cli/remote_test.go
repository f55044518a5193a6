package cli

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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
		{"a limit", []string{"user", "limit", "bob@meridian.test", "50.00", "--json"}},
		{"a role", []string{"role", "assign", "bob@meridian.test", "User", "--json"}},
		{"a deposit", []string{"account", "deposit", "100200300", "10.50", "--description", "Branch", "--idempotency-key", "k-1", "--json"}},
		{"a withdrawal", []string{"account", "withdraw", "100200300", "5", "--json"}},
		{"a table", []string{"user", "limit", "alice@meridian.test", "75"}},
		{"an app", []string{"oauth-client", "create", "--name", "Budget Buddy", "--redirect-uri", "https://budget.example/cb", "--json"}},
		{"a public app", []string{"oauth-client", "create", "--name", "Phone", "--redirect-uri", "com.budget.app:/cb", "--public"}},
		{"a bad redirect URI", []string{"oauth-client", "create", "--name", "Bad", "--redirect-uri", "http://example.com/cb"}},
		{"a rate", []string{"fx", "set", "eur", "usd", "1.0842", "--json"}},
		{"a type's interest rate", []string{"account-type", "rate", "2", "2.25", "--json"}},
		{"a bad interest rate", []string{"account-type", "rate", "2", "-1"}},
		{"no such transaction", []string{"transaction", "reverse", "987654", "--reason", "Clerk error"}},
		// Refusals: the same sentence, the same exit code.
		{"no such user", []string{"user", "activate", "ghost@example.test"}},
		{"no such user id", []string{"user", "deactivate", "987654"}},
		{"the last admin", []string{"role", "assign", "admin@meridian.test", "User"}},
		{"a bad role", []string{"role", "assign", "bob@meridian.test", "Boss"}},
		{"insufficient funds", []string{"account", "withdraw", "100200300", "9000", "--json"}},
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
		{"the rates", []string{"fx", "list", "--json"}},
		{"the trial balance", []string{"ledger", "trial-balance", "--json"}},
		{"the account types", []string{"account-type", "list", "--json"}},
		{"the approvals", []string{"approvals", "list", "--status", "pending", "--json"}},
	} {
		same(c.what, c.args, true, onOther)
	}

	// Commands that only work against the database refuse --server (and
	// MERIDIAN_SERVER) instead of acting on a database of this machine.
	for _, args := range [][]string{{"interest", "run"}, {"user", "2fa-reset", "bob@meridian.test"}, {"audit-log", "anchor"}, {"seed"}} {
		if code, _, stderr := remote(args...); code != 2 || !strings.Contains(stderr, "runs against the database") {
			t.Errorf("meridian --server %s: exit %d %s", strings.Join(args, " "), code, stderr)
		}
	}
	t.Setenv("MERIDIAN_SERVER", api)
	if code, _, stderr := other.run("", "interest", "run"); code != 2 || !strings.Contains(stderr, "runs against the database") {
		t.Errorf("MERIDIAN_SERVER interest run: exit %d %s", code, stderr)
	}
	os.Unsetenv("MERIDIAN_SERVER")

	// Four eyes: the operator's deposit over approval_threshold waits; the
	// operator cannot decide it (nobody is signed in), the administrator
	// signed in with --server approves it, once.
	code, asked, stderr := other.run("", "account", "deposit", "100200300", "20000", "--json")
	var ap bank.Approval
	if err := json.Unmarshal([]byte(asked), &ap); code != 0 || err != nil || ap.Status != "pending" || ap.Kind != "deposit" {
		t.Fatalf("a deposit over the threshold: exit %d %s %s %v", code, asked, stderr, err)
	}
	id := strconv.FormatInt(ap.ID, 10)
	if code, _, stderr := other.run("", "approvals", "approve", id); code == 0 || !strings.Contains(stderr, "meridian --server") {
		t.Fatalf("the operator approved: exit %d %s", code, stderr)
	}
	code, decided, stderr := remote("approvals", "approve", id, "--json")
	if err := json.Unmarshal([]byte(decided), &ap); code != 0 || err != nil || ap.Status != "approved" || ap.DecidedBy == nil {
		t.Fatalf("approve with --server: exit %d %s %s %v", code, decided, stderr, err)
	}
	if code, _, stderr := remote("approvals", "approve", id); code == 0 || !strings.Contains(stderr, "already") {
		t.Fatalf("approved twice: exit %d %s", code, stderr)
	}
	if code, _, stderr := remote("approvals", "reject", "987654", "--reason", "No"); code != 1 || !strings.Contains(stderr, "Approval not found") {
		t.Fatalf("no such approval: exit %d %s", code, stderr)
	}
	// A deposit under the threshold is reversed through the API at once, with
	// a reason (one over it would wait for a second administrator too).
	conn, err := db.Open(context.Background(), other.base[1])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var deposit int64 // the branch deposit above, made with --server
	if err := conn.Get(&deposit, `SELECT t.id FROM transactions t JOIN accounts a ON a.id = t.account_id
		WHERE a.account_number = '100200300' AND t.amount = 10.50 AND t.transaction_type = 'CREDIT'`); err != nil {
		t.Fatalf("the deposit: %v", err)
	}
	code, reversed, stderr := remote("transaction", "reverse", strconv.FormatInt(deposit, 10), "--reason", "Clerk error", "--json")
	var rev bank.Transaction
	if err := json.Unmarshal([]byte(reversed), &rev); code != 0 || err != nil || rev.Reverses == nil || *rev.Reverses != deposit {
		t.Fatalf("reverse with --server: exit %d %s %s %v", code, reversed, stderr, err)
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
