package server

import (
	"fmt"
	"strings"
	"testing"
)

func TestRegisterAndLoginAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	body := map[string]any{"full_name": "Alice Smith", "email": "alice@example.test", "phone_number": "+1 555 0100", "password": "password123"}
	m := e.want(e.do("POST", "/api/auth/register", "", body), 201, "register").JSON(t)
	if m["message"] != "Registration successful" {
		t.Fatalf("message %v", m["message"])
	}
	u := m["user"].(map[string]any)
	for _, k := range []string{"id", "full_name", "email", "phone_number", "role", "is_active", "created_at"} {
		if _, ok := u[k]; !ok {
			t.Errorf("user lacks %s", k)
		}
	}
	if strings.Contains(strings.ToLower(string(e.do("POST", "/api/auth/login", "", map[string]any{"email": "alice@example.test", "password": "password123"}).Body)), "password") {
		t.Fatal("a password field appears in the login answer")
	}
	dup := e.want(e.do("POST", "/register", "", map[string]any{"full_name": "A", "email": "ALICE@example.test", "phone_number": "+1 555 0100", "password": "password123"}), 409, "duplicate on the legacy path").JSON(t)
	if dup["error"] != "An account with this email already exists" {
		t.Fatalf("duplicate message %v", dup["error"])
	}
	e.want(e.do("POST", "/api/auth/register", "", map[string]any{"full_name": "B", "email": "b@example.test", "phone_number": "+1 555 0100", "password": "short"}), 400, "short password")

	login := e.want(e.do("POST", "/login", "", map[string]any{"email": "alice@example.test", "password": "password123"}), 200, "legacy login").JSON(t)
	if login["token"] == "" || login["expires_at"] == nil || login["user"] == nil {
		t.Fatalf("login answer %v", login)
	}
	wrongPw := e.want(e.do("POST", "/api/auth/login", "", map[string]any{"email": "alice@example.test", "password": "nope-nope"}), 401, "wrong password")
	wrongEmail := e.want(e.do("POST", "/api/auth/login", "", map[string]any{"email": "ghost@example.test", "password": "password123"}), 401, "wrong email")
	if string(wrongPw.Body) != string(wrongEmail.Body) || wrongPw.JSON(t)["error"] != "Invalid credentials" {
		t.Fatalf("wrong email and password answers differ: %s / %s", wrongPw.Body, wrongEmail.Body)
	}
	for i := 0; i < 9; i++ {
		e.do("POST", "/api/auth/login", "", map[string]any{"email": "alice@example.test", "password": "nope-nope"})
	}
	e.want(e.do("POST", "/api/auth/login", "", map[string]any{"email": "alice@example.test", "password": "password123"}), 429, "rate limited")
}

func TestMeLogoutAndReset(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.customer("Bob Jones")
	me := e.want(e.do("GET", "/api/auth/me", a.Token, nil), 200, "me").JSON(t)
	if me["email"] != a.Email || me["role"] != "User" {
		t.Fatalf("me %v", me)
	}
	second := e.login(a.Email, "password123")
	e.want(e.do("POST", "/api/user/password-reset", a.Token, map[string]any{"old_password": "wrong-one", "new_password": "newpassword1"}), 400, "wrong old password")
	e.want(e.do("POST", "/api/user/password-reset", a.Token, map[string]any{"old_password": "password123"}), 400, "missing new password")
	ok := e.want(e.do("POST", "/api/user/password-reset", a.Token, map[string]any{"old_password": "password123", "new_password": "newpassword1"}), 200, "reset").JSON(t)
	if ok["message"] != "Password reset successful" {
		t.Fatal(ok)
	}
	e.want(e.do("GET", "/api/auth/me", second.Token, nil), 401, "other session after reset")
	e.want(e.do("GET", "/api/auth/me", a.Token, nil), 200, "this session after reset")
	r := e.do("POST", "/api/auth/logout", a.Token, nil)
	if r.Status != 204 {
		t.Fatalf("logout %d", r.Status)
	}
	e.want(e.do("GET", "/api/auth/me", a.Token, nil), 401, "after logout")
	e.want(e.do("POST", "/api/auth/logout", a.Token, nil), 401, "logout twice")

	// POST /auth/logout, the first app's path, does the same.
	third := e.login(a.Email, "newpassword1")
	if r := e.do("POST", "/auth/logout", third.Token, nil); r.Status != 204 {
		t.Fatalf("legacy logout %d %s", r.Status, r.Body)
	}
	e.want(e.do("GET", "/api/auth/me", third.Token, nil), 401, "after the legacy logout")
	e.want(e.do("POST", "/auth/logout", "", nil), 401, "legacy logout without a token")
}

func TestBrokenAuthorizationHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.customer("Carl Cook")
	tampered := a.Token[:len(a.Token)-3] + "abc"
	for _, h := range []string{"", "Bearer", "Bearer ", "Basic abc", "Bearer a.b.c", "Bearer " + tampered, "bearer" + a.Token,
		"Bearer " + strings.Repeat("x", 5000), "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0."} {
		r := e.do("GET", "/api/auth/me", "", nil, "Authorization", h)
		e.want(r, 401, "Authorization: "+h[:min(len(h), 20)])
	}
}

func TestRolesAndDeactivationTakeEffectAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	adm := e.admin()
	c := e.customer("Dina Dale")
	e.want(e.do("GET", "/api/admin/users", c.Token, nil), 403, "customer on admin route")
	e.want(e.do("GET", "/api/user/accounts", adm.Token, nil), 403, "admin on customer route")
	e.want(e.do("POST", "/api/admin/assign-roles", adm.Token, map[string]any{"user_id": c.ID, "roles": []string{"Admin"}}), 200, "promote")
	e.want(e.do("GET", "/api/admin/users", c.Token, nil), 200, "new admin's very next request")
	e.want(e.do("PUT", "/api/admin/users/"+itoa(c.ID)+"/status", adm.Token, map[string]any{"is_active": false}), 200, "deactivate")
	r := e.want(e.do("GET", "/api/auth/me", c.Token, nil), 401, "deactivated user's next request")
	if r.JSON(t)["code"] != "user_deactivated" {
		t.Fatal(string(r.Body))
	}
	e.want(e.do("POST", "/api/auth/login", "", map[string]any{"email": c.Email, "password": "password123"}), 403, "deactivated login")
}

// Over a real socket: bytes no HTTP library would send still get JSON, never a 500.
func TestRawHeadersOverSocket(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base := e.listen()
	cases := map[string]int{
		"Bearer \xc3\xa9\xff":                   401, // not UTF-8, but a legal header value
		"\xff\xfe":                              401,
		"Bearer " + strings.Repeat("\x80", 300): 401,
		"Bearer \x7f\x01":                       400, // control bytes make the request invalid HTTP: refused before routing
		"Bearer \x00abc":                        400,
	}
	for h, want := range cases {
		status, body := rawRequest(t, base, "GET /api/auth/me HTTP/1.1\r\nHost: x\r\nAuthorization: "+h+"\r\n\r\n")
		if status != want || !strings.Contains(body, `"code":`) {
			t.Errorf("Authorization %q: %d %s; want %d with a JSON error", h, status, body, want)
		}
	}
	big := `{"email":"` + strings.Repeat("a", 1<<20) + `"}`
	status, body := rawRequest(t, base, fmt.Sprintf("POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(big), big))
	if status != 413 || !strings.Contains(body, "body_too_large") {
		t.Fatalf("big body: %d %s", status, body)
	}
}

// Deactivation signs every session out for good: reactivating does not
// bring a token back; the user signs in again, and a role change keeps that session.
func TestDeactivationEndsSessionsAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	adm := e.admin()
	c := e.customer("Reed Revoked")
	status := "/api/admin/users/" + itoa(c.ID) + "/status"
	e.want(e.do("PUT", status, adm.Token, map[string]any{"is_active": false}), 200, "deactivate")
	e.want(e.do("PUT", status, adm.Token, map[string]any{"is_active": true}), 200, "reactivate")
	r := e.want(e.do("GET", "/api/auth/me", c.Token, nil), 401, "old token after reactivation")
	if r.JSON(t)["code"] != "invalid_token" {
		t.Fatalf("old token: %s", r.Body)
	}
	fresh := e.login(c.Email, "password123")
	e.want(e.do("POST", "/api/admin/assign-roles", adm.Token, map[string]any{"user_id": c.ID, "roles": []string{"Admin"}}), 200, "promote")
	me := e.want(e.do("GET", "/api/auth/me", fresh.Token, nil), 200, "session after a role change").JSON(t)
	if me["role"] != "Admin" {
		t.Fatalf("role after the change: %v", me["role"])
	}
}
