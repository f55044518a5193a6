package server

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/auth"
	"meridian/pkg/bank"
)

func TestBadBodiesAndRoutesAreJSONErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.customer("Ivy Ives")
	cases := []struct {
		method, path, body string
		status             int
	}{
		{"POST", "/api/auth/login", "", 400},
		{"POST", "/api/auth/login", "{", 400},
		{"POST", "/api/auth/login", "[1,2]", 400},
		{"POST", "/api/auth/login", "null", 400},
		{"POST", "/api/auth/login", `{"email": 5}`, 400},
		{"POST", "/api/auth/register", "\xff\xfe", 400},
		{"GET", "/api/does-not-exist", "", 404},
		{"DELETE", "/api/auth/login", "", 405},
		{"POST", "/api/user/accounts", `{"account_number":"X1234567","balance":1e400,"account_type_id":1}`, 400},
		{"POST", "/api/user/accounts", `{"account_number":"X1234567","balance":NaN,"account_type_id":1}`, 400},
		{"PUT", "/api/user/accounts/99999999999999999999", `{}`, 404},
		{"GET", "/api/user/transactions/history?limit=5000", "", 400},
	}
	for _, c := range cases {
		r := e.do(c.method, c.path, a.Token, c.body)
		e.want(r, c.status, c.method+" "+c.path+" "+c.body)
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%s %s: content type %q", c.method, c.path, r.Header.Get("Content-Type"))
		}
	}
}

func TestRequestIDAndSecurityHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.do("GET", "/healthz", "", nil)
	if r.Status != 200 || r.Header.Get("X-Request-Id") == "" || r.Header.Get("X-Content-Type-Options") != "nosniff" || r.Header.Get("Content-Security-Policy") == "" {
		t.Fatalf("headers %v", r.Header)
	}
	r = e.do("GET", "/healthz", "", nil, "X-Request-Id", "abc-123")
	if r.Header.Get("X-Request-Id") != "abc-123" {
		t.Fatal("request id not echoed")
	}
	// Only printable ASCII is echoed (and logged); anything else is replaced.
	r = e.do("GET", "/healthz", "", nil, "X-Request-Id", "abc\xff\x80")
	if id := r.Header.Get("X-Request-Id"); id == "" || strings.Contains(id, "abc") {
		t.Fatalf("request id %q", id)
	}
}

func TestOperationsEndpoints(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if r := e.do("GET", "/readyz", "", nil); r.Status != 200 {
		t.Fatalf("readyz %d %s", r.Status, r.Body)
	}
	e.do("GET", "/api/nothing", "", nil)
	r := e.do("GET", "/metrics", "", nil)
	if r.Status != 200 || !strings.Contains(string(r.Body), "meridian_http_requests_total") || !strings.Contains(string(r.Body), `status="404"`) {
		t.Fatalf("metrics: %s", r.Body)
	}
	// A schema that is behind makes the instance not ready.
	super, err := openDB(e.superURL)
	if err != nil {
		t.Fatal(err)
	}
	defer super.Close()
	if _, err := super.Exec(`DELETE FROM schema_migrations`); err != nil {
		t.Fatal(err)
	}
	e.want(e.do("GET", "/readyz", "", nil), 503, "readyz with an old schema")
}

// TestReadyzWhileStopping: told to stop (shutdown_delay), the instance says
// so on /readyz, so a balancer drains it, and still answers everything else.
func TestReadyzWhileStopping(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.srv.Stopping()
	r := e.do("GET", "/readyz", "", nil)
	if r.Status != 503 || !strings.Contains(string(r.Body), `"code":"shutting_down"`) {
		t.Fatalf("readyz while stopping: %d %s", r.Status, r.Body)
	}
	if r := e.do("GET", "/healthz", "", nil); r.Status != 200 {
		t.Fatalf("healthz while stopping: %d %s", r.Status, r.Body)
	}
	if r := e.do("GET", "/api/config", "", nil); r.Status != 200 {
		t.Fatalf("the API while stopping: %d %s", r.Status, r.Body)
	}
}

func TestWebAppServing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, p := range []string{"/", "/auth", "/transaction-history?account_id=1", "/Assign"} {
		r := e.do("GET", p, "", nil)
		if r.Status != 200 || !strings.Contains(r.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("%s: %d %s", p, r.Status, r.Header.Get("Content-Type"))
		}
		if cc := r.Header.Get("Cache-Control"); !strings.Contains(cc, "no-cache") {
			t.Fatalf("%s: index.html cached: %q", p, cc)
		}
	}
	e.want(e.do("GET", "/_expo/static/js/web/missing-123.js", "", nil), 404, "missing asset")
	e.want(e.do("GET", "/favicon-missing.ico", "", nil), 404, "missing file")
	req := httptest.NewRequest("GET", "/auth", nil)
	res, _ := e.srv.App().Test(req)
	b, _ := io.ReadAll(res.Body)
	if !strings.Contains(string(b), "<") {
		t.Fatal("no html")
	}
}

// While the database cannot be reached, clients get a 503 to retry, not a 500.
func TestDatabaseDownIs503(t *testing.T) {
	t.Parallel()
	down, err := sqlx.Open("postgres", "host=/tmp/meridian-no-such-socket port=5432 user=nobody dbname=none sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close()
	tokens, _ := auth.NewTokens(testSecret, time.Hour)
	srv := New(bank.New(down, tokens, bank.Settings{}), nil, Options{Logger: quiet})
	token, _, _ := tokens.Issue(1, time.Now())
	req := httptest.NewRequest("GET", "/api/auth/me", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := srv.App().Test(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 503 || res.Header.Get("Retry-After") == "" || !strings.Contains(string(b), "database_unavailable") {
		t.Fatalf("got %d %q %s", res.StatusCode, res.Header.Get("Retry-After"), b)
	}
}
