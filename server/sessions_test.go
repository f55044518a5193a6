package server

import (
	"testing"
	"time"
)

// Each instance answers tokens from memory while its listener runs; a
// change made through another instance reaches it by the database's
// announcement: a role change and a deactivation take effect there within
// a second, not after the cache's TTL.
func TestSessionChangesReachOtherInstances(t *testing.T) {
	t.Parallel()
	one := newEnv(t)
	two := &testEnv{t: t, url: one.url, superURL: one.superURL}
	two.svc = newService(t, one.url)
	two.srv = New(two.svc, NewHub(two.svc, quiet), Options{Logger: quiet})
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
