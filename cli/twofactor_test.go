package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"meridian/pkg/auth"
	"meridian/pkg/bank"
	"meridian/pkg/db"
	"meridian/pkg/testdb"
)

// An operator turns off the two-factor sign-in of a customer who lost their
// device; the customer then signs in with the password alone.
func TestUserTwoFactorReset(t *testing.T) {
	t.Parallel()
	secret := strings.Repeat("j", 32)
	url := testdb.URL(t)
	c := &cliEnv{t: t, base: []string{"--database-url", url, "--database-app-role", testdb.AppRole, "--data-dir", t.TempDir(),
		"--log-level", "error", "--jwt-secret", secret}}
	c.ok("user", "create", "--name", "Lou Lost", "--email", "lou@example.test", "--phone", "+1 555 0003", "--password", "password123")

	// Lou turns two-factor sign-in on, through the service serve runs.
	ctx := context.Background()
	conn, err := db.Open(ctx, testdb.AppURL(url))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tokens, _ := auth.NewTokens([]byte(secret), time.Hour)
	svc := bank.New(conn, tokens, bank.Settings{})
	login := func() bank.LoginResult {
		t.Helper()
		res, err := svc.Login(ctx, bank.LoginInput{Email: "lou@example.test", Password: "password123"})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	lou, err := svc.Authenticate(ctx, login().Token)
	if err != nil {
		t.Fatal(err)
	}
	setup, err := svc.SetupTwoFactor(ctx, lou)
	if err != nil {
		t.Fatal(err)
	}
	code, _ := totp.GenerateCode(setup.Secret, time.Now())
	if _, err := svc.EnableTwoFactor(ctx, lou, code); err != nil {
		t.Fatal(err)
	}
	if login().SecondFactor == nil {
		t.Fatal("two-factor sign-in is not on")
	}

	out := c.ok("user", "2fa-reset", "lou@example.test", "-o", "json")
	if !strings.Contains(out, "lou@example.test") {
		t.Fatalf("2fa-reset printed %s", out)
	}
	if res := login(); res.SecondFactor != nil || res.Token == "" {
		t.Fatal("after 2fa-reset the password should sign in alone")
	}
	if code, _, stderr := c.run("", "user", "2fa-reset", "lou@example.test"); code != 1 || !strings.Contains(stderr, "not on") {
		t.Fatalf("a second reset: exit %d %q", code, stderr)
	}
	if code, _, _ := c.run("", "user", "2fa-reset"); code != 2 {
		t.Fatal("2fa-reset without a user is a usage error")
	}
	rows := c.ok("audit-log", "tail", "-n", "4", "-o", "json")
	if !strings.Contains(rows, "TWO_FACTOR_RESET") || !strings.Contains(rows, "(via CLI)") {
		t.Fatalf("audit: %s", rows)
	}
}
