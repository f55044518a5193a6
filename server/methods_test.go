package server

import (
	"strings"
	"testing"
)

// TestMethodNotAllowed: a known path asked with a method it does not take
// answers a JSON 405 whose Allow lists what it takes, whatever the method,
// even one Fiber does not know (which it would answer with a plain 501);
// an unknown path stays a 404.
func TestMethodNotAllowed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.customer("Meg Method")
	cases := []struct {
		method, path, allow string
	}{
		{"DELETE", "/api/auth/login", "POST"},
		{"PROPFIND", "/api/auth/login", "POST"},
		{"FOO", "/api/user/accounts", "GET, HEAD, POST"},
		{"PATCH", "/api/user/accounts/5", "GET, HEAD, PUT, DELETE"},
		{"OPTIONS", "/api/admin/users/7/status", "PUT"},
		{"POST", "/api/user/notifications/read-all", "PUT"},
		{"BREW", "/healthz", "GET, HEAD"},
		{"POST", "/auth", "GET, HEAD"}, // the web app
		{"MKCOL", "/some/app/route", "GET, HEAD"},
	}
	for _, c := range cases {
		r := e.want(e.do(c.method, c.path, a.Token, nil), 405, c.method+" "+c.path)
		if got := r.Header.Get("Allow"); got != c.allow {
			t.Errorf("%s %s: Allow %q, want %q", c.method, c.path, got, c.allow)
		}
		if code := r.JSON(t)["code"]; code != "method_not_allowed" {
			t.Errorf("%s %s: code %v", c.method, c.path, code)
		}
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%s %s: content type %q", c.method, c.path, r.Header.Get("Content-Type"))
		}
	}
	for _, c := range [][2]string{{"GET", "/api/nothing"}, {"PROPFIND", "/api/nothing/here"}, {"DELETE", "/api/user/accounts/5/extra"}} {
		r := e.want(e.do(c[0], c[1], a.Token, nil), 404, c[0]+" "+c[1])
		if r.Header.Get("Allow") != "" {
			t.Errorf("%s %s: Allow on a 404", c[0], c[1])
		}
	}
}
