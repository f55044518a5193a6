package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"meridian/pkg/bank"
)

func TestClientAddr(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	ip := netip.MustParseAddr
	cases := []struct {
		name      string
		peer      string
		forwarded []string
		want      string
	}{
		{"no proxy", "198.51.100.4", nil, "198.51.100.4"},
		{"untrusted peer: the header is ignored", "198.51.100.4", []string{"203.0.113.9"}, "198.51.100.4"},
		{"trusted peer: the hop it saw", "10.0.0.2", []string{"203.0.113.9"}, "203.0.113.9"},
		{"a client cannot forge the left of the header", "10.0.0.2", []string{"1.1.1.1, 203.0.113.9"}, "203.0.113.9"},
		{"a chain of trusted proxies", "10.0.0.2", []string{"203.0.113.9, 10.0.0.7", "10.0.0.3"}, "203.0.113.9"},
		{"a trusted peer without the header", "10.0.0.2", nil, "10.0.0.2"},
		{"garbage in the header: the last trusted hop", "10.0.0.2", []string{"203.0.113.9, not-an-ip"}, "10.0.0.2"},
		{"with a port", "::1", []string{"[2001:db8::5]:4711"}, "2001:db8::5"},
		{"IPv4-mapped peer", "::ffff:10.0.0.2", []string{"203.0.113.9"}, "203.0.113.9"},
	}
	for _, c := range cases {
		if got := clientAddr(ip(c.peer), c.forwarded, trusted); got != ip(c.want) {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
	if got := clientAddr(ip("10.0.0.2"), []string{"203.0.113.9"}, nil); got != ip("10.0.0.2") {
		t.Errorf("no trusted proxies: got %s", got)
	}
}

// loginStatus signs in through the API with an X-Forwarded-For header (if
// not empty) and returns the status; safe to call from many goroutines.
func (e *testEnv) loginStatus(email, forwarded string) (int, error) {
	body, _ := json.Marshal(map[string]any{"email": email, "password": "password123"})
	req := httptest.NewRequest("POST", "/api/auth/login", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if forwarded != "" {
		req.Header.Set("X-Forwarded-For", forwarded)
	}
	res, err := e.srv.App().Test(req, fiber.TestConfig{Timeout: time.Minute, FailOnTimeout: true})
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode, nil
}

// failFrom makes n failed sign-ins at once, each for a new email, with the
// given X-Forwarded-For, and returns the statuses counted.
func (e *testEnv) failFrom(n int, forwarded func(i int) string) map[int]int {
	e.t.Helper()
	var mu sync.Mutex
	got := map[int]int{}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, err := e.loginStatus(fmt.Sprintf("spray%d-%d@example.test", seq.Add(1), i), forwarded(i))
			if err != nil {
				e.t.Error(err)
				return
			}
			mu.Lock()
			got[status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return got
}

// The 51st failed sign-in from one address is refused, whatever the emails.
// From an untrusted peer X-Forwarded-For changes nothing.
func TestLoginAddressLimitIgnoresForwardedFromUntrustedPeer(t *testing.T) {
	t.Parallel()
	// 50 bcrypts at once take longer than request_timeout's 10 s on a busy
	// machine: the throttle is what is tested here, not the deadline.
	e := newEnvWith(t, bank.Settings{PasswordCheckWait: time.Minute}, Options{RequestTimeout: time.Minute})
	got := e.failFrom(50, func(i int) string { return fmt.Sprintf("203.0.113.%d", i) })
	if got[401] != 50 {
		t.Fatalf("first 50 failures: %v", got)
	}
	status, err := e.loginStatus("fresh@example.test", "198.51.100.77")
	if err != nil || status != 429 {
		t.Fatalf("the 51st failure from the same peer, with a new X-Forwarded-For: %d %v; want 429", status, err)
	}
	r := e.want(e.do("POST", "/api/auth/login", "", map[string]any{"email": "other@example.test", "password": "password123"}), 429, "51st")
	if r.JSON(t)["code"] != "too_many_attempts" {
		t.Fatalf("code %s", r.Body)
	}
}

// Behind a trusted proxy (the peer of App().Test is 0.0.0.0), the client is
// the address the proxy forwarded: each client has its own 50.
func TestLoginAddressLimitHonoursForwardedFromTrustedProxy(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, bank.Settings{PasswordCheckWait: time.Minute},
		Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("0.0.0.0/32")}, RequestTimeout: time.Minute})
	got := e.failFrom(55, func(int) string { return "1.2.3.4, 203.0.113.7" })
	if got[401] != 50 || got[429] != 5 {
		t.Fatalf("55 failures from one forwarded client: %v; want 50 × 401 and 5 × 429", got)
	}
	if status, err := e.loginStatus("fresh@example.test", "1.2.3.4, 203.0.113.8"); err != nil || status != 401 {
		t.Fatalf("another forwarded client: %d %v; want 401", status, err)
	}
	if status, err := e.loginStatus("fresh@example.test", "203.0.113.7"); err != nil || status != 429 {
		t.Fatalf("the limited client again: %d %v; want 429", status, err)
	}
}

// With every password-check slot taken past the wait: 503 busy with Retry-After.
func TestLoginBusyAPI(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, bank.Settings{MaxPasswordChecks: 1, PasswordCheckWait: 100 * time.Millisecond}, Options{})
	c := e.customer("Bo Busy")
	release, err := e.svc.Passwords().Hold(ctxBG)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	r := e.want(e.do("POST", "/api/auth/login", "", map[string]any{"email": c.Email, "password": "password123"}), 503, "busy")
	m := r.JSON(t)
	if m["code"] != "busy" || m["error"] != "The bank is busy; please try again in a moment" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("busy answer %s, Retry-After %q", r.Body, r.Header.Get("Retry-After"))
	}
	e.want(e.do("POST", "/api/auth/register", "", map[string]any{"full_name": "X", "email": "x1@example.test", "phone_number": "+1 555 0100", "password": "password123"}), 503, "busy register")
	e.want(e.do("POST", "/api/user/password-reset", c.Token, map[string]any{"old_password": "password123", "new_password": "newpassword1"}), 503, "busy reset")
}
