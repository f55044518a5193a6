package server

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"meridian/pkg/bank"
)

// totpNext is the code of the next 30-second step: accepted (one step of
// drift) and never the step enabling used.
func totpNext(t *testing.T, secret string) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, time.Now().Add(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// turnOnTwoFactor sets up and enables two-factor sign-in through the API
// and returns the secret and the backup codes.
func (e *testEnv) turnOnTwoFactor(u user) (string, []string) {
	e.t.Helper()
	setup := e.want(e.do("POST", "/api/auth/2fa/setup", u.Token, nil), 200, "2fa setup").JSON(e.t)
	secret, _ := setup["secret"].(string)
	if url, _ := setup["otpauth_url"].(string); secret == "" || !strings.HasPrefix(url, "otpauth://totp/Meridian:") {
		e.t.Fatalf("setup %v", setup)
	}
	now, err := totp.GenerateCode(secret, time.Now())
	if err != nil {
		e.t.Fatal(err)
	}
	r := e.want(e.do("POST", "/api/auth/2fa/enable", u.Token, map[string]any{"code": now}), 200, "2fa enable")
	var out struct {
		BackupCodes []string `json:"backup_codes"`
	}
	if err := json.Unmarshal(r.Body, &out); err != nil || len(out.BackupCodes) != 10 {
		e.t.Fatalf("enable answered %s", r.Body)
	}
	return secret, out.BackupCodes
}

func TestTwoFactorAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.customer("Tia Twostep")
	if m := e.want(e.do("GET", "/api/auth/2fa", c.Token, nil), 200, "status").JSON(t); m["enabled"] != false || m["backup_codes_left"] != 0.0 {
		t.Fatalf("status before %v", m)
	}
	e.want(e.do("POST", "/api/auth/2fa/enable", c.Token, map[string]any{"code": "123456"}), 409, "enable before setup")
	setup := e.want(e.do("POST", "/api/auth/2fa/setup", c.Token, nil), 200, "setup").JSON(t)
	r := e.want(e.do("POST", "/api/auth/2fa/enable", c.Token, map[string]any{"code": "12345x"}), 400, "a bad code")
	if m := r.JSON(t); m["fields"] == nil {
		t.Fatalf("a bad code names the field: %s", r.Body)
	}
	secret := setup["secret"].(string)
	now, _ := totp.GenerateCode(secret, time.Now())
	e.want(e.do("POST", "/api/auth/2fa/enable", c.Token, map[string]any{"code": now}), 200, "enable")
	if m := e.want(e.do("GET", "/api/auth/2fa", c.Token, nil), 200, "status").JSON(t); m["enabled"] != true || m["backup_codes_left"] != 10.0 {
		t.Fatalf("status after %v", m)
	}

	// The password alone no longer signs in, on either path.
	var challenge string
	for _, p := range []string{"/api/auth/login", "/login"} {
		m := e.want(e.do("POST", p, "", map[string]any{"email": c.Email, "password": "password123"}), 200, "password step").JSON(t)
		if m["two_factor_required"] != true || len(m) != 2 || m["challenge"] == "" {
			t.Fatalf("%s with two-factor on answered %v", p, m)
		}
		challenge = m["challenge"].(string)
	}
	r = e.want(e.do("POST", "/api/auth/2fa/verify", "", map[string]any{"challenge": challenge, "code": "000000"}), 401, "wrong code")
	if m := r.JSON(t); m["code"] != "invalid_two_factor_code" || m["error"] != "Invalid code" {
		t.Fatalf("wrong code: %s", r.Body)
	}
	e.want(e.do("POST", "/api/auth/2fa/verify", "", map[string]any{"challenge": "nope", "code": totpNext(t, secret)}), 401, "unknown challenge")
	e.want(e.do("POST", "/api/auth/2fa/verify", "", map[string]any{"challenge": challenge}), 400, "no code")
	used := totpNext(t, secret)
	m := e.want(e.do("POST", "/api/auth/2fa/verify", "", map[string]any{"challenge": challenge, "code": used}, "User-Agent", "Tablet"), 200, "verify").JSON(t)
	tok, _ := m["token"].(string)
	if tok == "" || m["user"] == nil || m["expires_at"] == nil {
		t.Fatalf("verify answered %v", m)
	}
	e.want(e.do("GET", "/api/auth/me", tok, nil), 200, "the two-step session")
	two := user{ID: c.ID, Email: c.Email, Token: tok}
	sessionID(t, e.sessionList(two), "Tablet")

	e.want(e.do("POST", "/api/auth/2fa/disable", c.Token, map[string]any{"password": "wrong-one", "code": "123456"}), 400, "disable, wrong password")
	e.want(e.do("POST", "/api/auth/2fa/disable", c.Token, map[string]any{"password": "password123"}), 400, "disable without a code")
	// The code that signed in was used: it does not work again.
	r = e.want(e.do("POST", "/api/auth/2fa/disable", c.Token, map[string]any{"password": "password123", "code": used}), 400, "disable with a used code")
	if m := r.JSON(t); m["fields"] == nil {
		t.Fatalf("a used code: %s", r.Body)
	}
}

func TestTwoFactorDisableWithBackupCode(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.customer("Bo Backup")
	_, codes := e.turnOnTwoFactor(c)
	e.want(e.do("POST", "/api/auth/2fa/disable", c.Token, map[string]any{"password": "password123", "code": strings.ToUpper(codes[3])}), 204, "disable with a backup code")
	m := e.want(e.do("POST", "/api/auth/login", "", map[string]any{"email": c.Email, "password": "password123"}), 200, "sign in").JSON(t)
	if m["token"] == nil {
		t.Fatalf("after disabling: %v", m)
	}
	e.want(e.do("POST", "/api/auth/2fa/disable", c.Token, map[string]any{"password": "password123", "code": codes[4]}), 409, "disable again")
}

// With require_2fa_for_admins an administrator without two-factor sign-in
// reaches only who-am-I, sign-out and the calls that turn it on.
func TestRequireTwoFactorForAdminsAPI(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, bank.Settings{RequireTwoFactorForAdmins: true}, Options{})

	if m := e.want(e.do("GET", "/api/config", "", nil), 200, "config").JSON(t); m["require_2fa_for_admins"] != true {
		t.Fatalf("config %v", m)
	}
	adm := e.admin()
	c := e.customer("Cy Customer")
	for _, path := range []string{"/api/admin/users", "/api/admin/accounts", "/api/auth/sessions", "/api/user/notifications"} {
		r := e.want(e.do("GET", path, adm.Token, nil), 403, "admin without 2FA: "+path)
		if m := r.JSON(t); m["code"] != "two_factor_required" {
			t.Fatalf("%s: %s", path, r.Body)
		}
	}
	// Nor the live feed.
	base := e.listen()
	if _, status, body := dialWSOrigin(t, base, "token="+adm.Token, ""); status != 403 || !strings.Contains(body, "two_factor_required") {
		t.Fatalf("/ws for an admin without 2FA: %d %s", status, body)
	}
	e.want(e.do("GET", "/api/auth/me", adm.Token, nil), 200, "me")
	e.want(e.do("GET", "/api/auth/2fa", adm.Token, nil), 200, "2fa status")
	e.want(e.do("GET", "/api/user/accounts", c.Token, nil), 200, "a customer is not concerned")

	secret, _ := e.turnOnTwoFactor(adm)
	e.want(e.do("GET", "/api/admin/users", adm.Token, nil), 200, "the admin, with 2FA on")
	if _, status, body := dialWSOrigin(t, base, "token="+adm.Token, ""); status != 101 {
		t.Fatalf("/ws for the admin with 2FA on: %d %s", status, body)
	}
	r := e.want(e.do("POST", "/api/auth/2fa/disable", adm.Token, map[string]any{"password": "password123", "code": totpNext(t, secret)}), 403, "an admin turns it off")
	if m := r.JSON(t); m["code"] != "two_factor_required" {
		t.Fatalf("disable: %s", r.Body)
	}
	e.want(e.do("POST", "/api/auth/logout", adm.Token, nil), 204, "logout")
}
