package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"meridian/pkg/auth"
	"meridian/pkg/bank"
	"meridian/pkg/db"
	"meridian/pkg/testdb"
)

func TestUserLimitOptions(t *testing.T) {
	t.Parallel()
	o, err := parse(t, (*app).userLimitCmd, "", "bob@meridian.test", "250.5")
	if err != nil || o.ref != "bob@meridian.test" || o.limit == nil || *o.limit != 250_50 {
		t.Fatalf("%+v %v", o, err)
	}
	o, err = parse(t, (*app).userLimitCmd, "", "42", "Default")
	if err != nil || o.ref != "42" || o.limit != nil {
		t.Fatalf("default: %+v %v", o, err)
	}
	if o, err := parse(t, (*app).userLimitCmd, "", "42", "0"); err != nil || o.limit == nil || *o.limit != 0 {
		t.Fatalf("zero: %+v %v", o, err)
	}
	for _, bad := range [][]string{{"42", "-1"}, {"42", "1.234"}, {"42", "lots"}, {"42"}, {"42", "1", "2"}} {
		_, err := parse(t, (*app).userLimitCmd, "", bad...)
		wantUsage(t, err, "limit "+strings.Join(bad, " "))
	}
}

// An operator sets a customer's daily limit; the customer's next transfer
// meets it. Audited as done from the CLI.
func TestUserLimit(t *testing.T) {
	t.Parallel()
	secret := strings.Repeat("k", 32)
	url := testdb.URL(t)
	c := &cliEnv{t: t, base: []string{"--database-url", url, "--database-app-role", testdb.AppRole, "--data-dir", t.TempDir(),
		"--log-level", "error", "--jwt-secret", secret}}
	c.ok("seed", "--demo-seed", "true")

	var l bank.UserLimit
	if err := json.Unmarshal([]byte(c.ok("user", "limit", "alice@meridian.test", "5.00", "-o", "json")), &l); err != nil {
		t.Fatal(err)
	}
	if l.DailyTransferLimit != 5_00 || l.Default {
		t.Fatalf("limit printed %+v", l)
	}

	ctx := context.Background()
	conn, err := db.Open(ctx, testdb.AppURL(url))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tokens, _ := auth.NewTokens([]byte(secret), time.Hour)
	svc := bank.New(conn, tokens, bank.Settings{})
	res, err := svc.Login(ctx, bank.LoginInput{Email: "alice@meridian.test", Password: "alice12345"})
	if err != nil {
		t.Fatal(err)
	}
	alice, err := svc.Authenticate(ctx, res.Token)
	if err != nil {
		t.Fatal(err)
	}
	in := bank.TransferInput{AccountID: "100200300", ToAccountID: "200300400", Amount: 5_01}
	if _, err := svc.Transfer(ctx, alice, in, ""); err == nil || !strings.Contains(err.Error(), "Daily transfer limit exceeded") {
		t.Fatalf("a transfer over the limit set from the CLI: %v", err)
	}

	// Back to the default is a raise: it waits for a second administrator.
	var ap bank.Approval
	if err := json.Unmarshal([]byte(c.ok("user", "limit", "alice@meridian.test", "default", "-o", "json")), &ap); err != nil {
		t.Fatal(err)
	}
	if ap.Kind != "limit_raise" || ap.Status != "pending" || ap.RequestedBy != nil {
		t.Fatalf("default printed %+v", ap)
	}
	if _, err := svc.Transfer(ctx, alice, in, ""); err == nil {
		t.Fatal("the raise ran before its approval")
	}
	res, err = svc.Login(ctx, bank.LoginInput{Email: "admin@meridian.test", Password: "admin12345"})
	if err != nil {
		t.Fatal(err)
	}
	ada, err := svc.Authenticate(ctx, res.Token)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ApproveApproval(ctx, ada, ap.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Transfer(ctx, alice, in, ""); err != nil {
		t.Fatalf("back to the default: %v", err)
	}
	if code, _, stderr := c.run("", "user", "limit", "nobody@example.test", "5"); code != 1 || !strings.Contains(stderr, "nobody@example.test") {
		t.Fatalf("unknown user: exit %d %q", code, stderr)
	}
	if code, _, _ := c.run("", "user", "limit", "alice@meridian.test", "five"); code != 2 {
		t.Fatal("a limit that is not an amount is a usage error")
	}
	rows := c.ok("audit-log", "tail", "-n", "10", "-o", "json")
	if strings.Count(rows, "limit of user alice@meridian.test") != 2 || !strings.Contains(rows, "(via CLI)") || !strings.Contains(rows, "APPROVAL_APPROVE") {
		t.Fatalf("audit rows:\n%s", rows)
	}
}
