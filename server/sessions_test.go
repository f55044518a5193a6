package server

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
)

// Each instance answers tokens from memory while its listener runs; a
// change made through another instance reaches it by the database's
// announcement: a role change and a deactivation take effect there within
// a second, not after the cache's TTL.
func TestSessionChangesReachOtherInstances(t *testing.T) {
	t.Parallel()
	one := newEnv(t)
	two := one.secondInstance()
	one.startHub()
	two.startHub()
	adm := one.admin()
	c := one.customer("Ria Remote")

	// Instance two verifies c's token once and keeps it.
	two.want(two.do("GET", "/api/admin/users", c.Token, nil), 403, "a customer on two")
	two.want(two.do("GET", "/api/user/accounts", c.Token, nil), 200, "a customer on two")

	one.want(one.do("POST", "/api/admin/assign-roles", adm.Token, map[string]any{"user_id": c.ID, "roles": []string{"Admin"}}), 200, "promote on one")
	waitStatus(t, two, "GET", "/api/admin/users", c.Token, 200, time.Second, "the new role on two")
	two.want(two.do("GET", "/api/user/accounts", c.Token, nil), 403, "an admin on two")

	one.want(one.do("PUT", "/api/admin/users/"+itoa(c.ID)+"/status", adm.Token, map[string]any{"is_active": false}), 200, "deactivate on one")
	waitStatus(t, two, "GET", "/api/admin/users", c.Token, 401, time.Second, "deactivated on two")
}

// waitStatus repeats a request until it answers status, failing after d.
func waitStatus(t *testing.T, e *testEnv, method, path, token string, status int, d time.Duration, what string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		got := e.do(method, path, token, nil).Status
		if got == status {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still %d after %s, want %d", what, got, d, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// loginWith signs in through the API with a User-Agent.
func (e *testEnv) loginWith(email, agent string) user {
	e.t.Helper()
	m := e.want(e.do("POST", "/api/auth/login", "", map[string]any{"email": email, "password": "password123"}, "User-Agent", agent), 200, "login").JSON(e.t)
	u := m["user"].(map[string]any)
	return user{ID: int64(u["id"].(float64)), Email: email, Token: m["token"].(string)}
}

// sessionList reads GET /api/auth/sessions.
func (e *testEnv) sessionList(u user) []map[string]any {
	e.t.Helper()
	r := e.want(e.do("GET", "/api/auth/sessions", u.Token, nil), 200, "list sessions")
	var out []map[string]any
	if err := json.Unmarshal(r.Body, &out); err != nil {
		e.t.Fatalf("sessions are not a bare array: %s", r.Body)
	}
	return out
}

// sessionID finds the id of the session whose user_agent is agent.
func sessionID(t *testing.T, list []map[string]any, agent string) string {
	t.Helper()
	for _, s := range list {
		if s["user_agent"] == agent {
			return itoa(int64(s["id"].(float64)))
		}
	}
	t.Fatalf("no session with user agent %q in %v", agent, list)
	return ""
}

func TestSessionsAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.customer("Sam Sessions")
	phone := e.loginWith(a.Email, "MeridianApp/2.1 (Android 14)")
	b := e.customer("Bia Other")

	list := e.sessionList(a)
	if len(list) != 2 {
		t.Fatalf("%d sessions, want 2: %v", len(list), list)
	}
	for _, s := range list {
		var keys []string
		for k := range s {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if strings.Join(keys, ",") != "created_at,current,id,ip,last_seen_at,user_agent" {
			t.Fatalf("a session has the fields %v", keys)
		}
	}
	if list[0]["current"] != false || list[1]["current"] != true {
		t.Fatalf("newest first, the current one marked: %v", list)
	}
	phoneID := sessionID(t, list, "MeridianApp/2.1 (Android 14)")

	// Someone else's session, an unknown one and a malformed id: 404.
	e.want(e.do("DELETE", "/api/auth/sessions/"+phoneID, b.Token, nil), 404, "b ends a's session")
	e.want(e.do("DELETE", "/api/auth/sessions/999999999", a.Token, nil), 404, "unknown session")
	e.want(e.do("DELETE", "/api/auth/sessions/abc", a.Token, nil), 404, "malformed id")
	e.want(e.do("GET", "/api/auth/me", phone.Token, nil), 200, "the phone's session survives b's attempt")

	e.want(e.do("DELETE", "/api/auth/sessions/"+phoneID, a.Token, nil), 204, "end the phone's session")
	e.want(e.do("GET", "/api/auth/me", phone.Token, nil), 401, "the ended session")
	e.want(e.do("DELETE", "/api/auth/sessions/"+phoneID, a.Token, nil), 404, "end it again")

	e.want(e.do("GET", "/api/auth/sessions", "", nil), 401, "no token")
	e.want(e.do("POST", "/api/auth/sessions/revoke-others", b.Token, nil), 204, "b ends no one else")
	e.want(e.do("GET", "/api/auth/me", a.Token, nil), 200, "a is untouched by b")
}

// Ending a session closes its WebSockets within a second (code 4401), and
// ending every other session closes theirs; the current session's socket
// stays open.
func TestEndingASessionClosesItsSockets(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.startHub()
	base := e.listen()
	a := e.customer("Wyn Sockets")
	laptop := e.loginWith(a.Email, "Laptop")
	tablet := e.loginWith(a.Email, "Tablet")
	own, _ := dialWS(t, base, "token="+a.Token)
	lap, _ := dialWS(t, base, "token="+laptop.Token)
	tab, _ := dialWS(t, base, "token="+tablet.Token)
	waitConns(t, e.srv.hub, a.ID, 3)

	e.want(e.do("DELETE", "/api/auth/sessions/"+sessionID(t, e.sessionList(a), "Laptop"), a.Token, nil), 204, "end the laptop's session")
	wantClosed(t, lap, wsCloseSessionEnded, time.Second, "the laptop's socket")

	e.want(e.do("POST", "/api/auth/sessions/revoke-others", a.Token, nil), 204, "end the others")
	wantClosed(t, tab, wsCloseSessionEnded, time.Second, "the tablet's socket")
	e.want(e.do("GET", "/api/auth/me", tablet.Token, nil), 401, "the tablet's token")

	own.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, _, err := own.ReadMessage(); websocket.IsCloseError(err, wsCloseSessionEnded) {
		t.Fatal("the current session's socket was closed too")
	}
	if n := len(e.sessionList(a)); n != 1 {
		t.Fatalf("%d sessions left, want 1", n)
	}
}
