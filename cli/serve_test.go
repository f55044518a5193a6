package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"

	"meridian/pkg/db"
)

// TestServeShutsDownInOrder: at SIGINT (here: its context ending), serve
// stops accepting, lets the request in flight finish against a database
// that is still open, closes the WebSockets with 1001, and only then closes
// its database connections and exits 0.
func TestServeShutsDownInOrder(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dburl := c.base[1] // the test's own connections are told apart by application_name
	if strings.Contains(dburl, "://") {
		dburl += map[bool]string{true: "&", false: "?"}[strings.Contains(dburl, "?")] + "application_name=clitest"
	} else {
		dburl += " application_name=clitest"
	}
	pool, err := db.Open(context.Background(), dburl)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- ExecuteContext(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--demo-seed=false", "--request-timeout", "20s"}, c.base...), nil, &out, &errb)
	}()
	waitFor(t, func() bool { return strings.Contains(out.String(), "Meridian is running at") }, "serve to start")
	base := strings.Fields(strings.SplitAfter(out.String(), "running at ")[1])[0]
	base = strings.Replace(base, "localhost", "127.0.0.1", 1)

	call := func(method, path, token string, body any) (int, map[string]any) {
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, base+path, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, nil
		}
		defer res.Body.Close()
		var m map[string]any
		raw, _ := io.ReadAll(res.Body)
		json.Unmarshal(raw, &m)
		return res.StatusCode, m
	}
	signUp := func(name, email string) string {
		if s, m := call("POST", "/api/auth/register", "", map[string]any{"full_name": name, "email": email, "phone_number": "+1 555 0100", "password": "password123"}); s != 201 {
			t.Fatalf("register: %d %v", s, m)
		}
		_, m := call("POST", "/api/auth/login", "", map[string]any{"email": email, "password": "password123"})
		return m["token"].(string)
	}
	alice, bob := signUp("Ann Flight", "ann@example.test"), signUp("Ben Ground", "ben@example.test")
	if s, m := call("POST", "/api/user/accounts", alice, map[string]any{"account_number": "SRV000001", "balance": "50.00", "account_type_id": 1}); s != 201 {
		t.Fatalf("account: %d %v", s, m)
	}
	call("POST", "/api/user/accounts", bob, map[string]any{"account_number": "SRV000002", "balance": "0", "account_type_id": 1})

	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+"/ws", http.Header{"Authorization": {"Bearer " + bob}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()

	// A transfer in flight, held back by a row lock the test holds: its
	// posting waits in the queue (post_batch never waits for the lock) and
	// is tried again until the lock is gone.
	tx, err := pool.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`SELECT 1 FROM accounts WHERE account_number = 'SRV000001' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	answer := make(chan int, 1)
	go func() {
		s, _ := call("POST", "/api/user/money-transfer", alice, map[string]any{"account_id": "SRV000001", "to_account_id": "SRV000002", "amount": "5.00"})
		answer <- s
	}()
	waitFor(t, func() bool {
		res, err := http.Get(base + "/metrics")
		if err != nil {
			return false
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		for _, line := range strings.Split(string(raw), "\n") {
			if v, ok := strings.CutPrefix(line, "meridian_postings_busy_total "); ok {
				return v != "0"
			}
		}
		return false
	}, "the transfer to find its account held")

	cancel() // SIGINT
	time.Sleep(300 * time.Millisecond)
	select {
	case code := <-done:
		t.Fatalf("serve exited (%d) with a request in flight", code)
	case s := <-answer:
		t.Fatalf("the request in flight answered %d before its lock was released", s)
	default:
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Fatal("serve still accepts connections while shutting down")
	}
	tx.Rollback()
	if s := <-answer; s != 201 {
		t.Fatalf("the request in flight answered %d, want 201 (the database must still be open)", s)
	}
	var sawPush bool
	for {
		ws.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, msg, err := ws.ReadMessage()
		if err == nil {
			sawPush = sawPush || strings.Contains(string(msg), "You received")
			continue
		}
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != websocket.CloseGoingAway {
			t.Fatalf("WebSocket ended with %v, want close 1001", err)
		}
		break
	}
	if !sawPush {
		t.Fatal("the in-flight transfer's notification was not pushed before the close")
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve exit %d: %s", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not exit")
	}
	// serve's own connections are closed.
	waitFor(t, func() bool {
		var n int
		pool.Get(&n, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name <> 'clitest' AND backend_type = 'client backend'`)
		return n == 0
	}, "serve's connections to close")
	var moved string
	pool.Get(&moved, `SELECT balance::text FROM accounts WHERE account_number = 'SRV000002'`)
	if moved != "5.00" {
		t.Fatalf("recipient balance %s", moved)
	}
}

func TestServeOptions(t *testing.T) {
	t.Parallel()
	if _, err := parse(t, (*app).serveCmd, ""); err != nil {
		t.Fatal(err)
	}
	_, err := parse(t, (*app).serveCmd, "", "extra")
	wantUsage(t, err, "serve extra")
}
