package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
)

// dialWS opens /ws on base with the given query; it returns the connection
// or the HTTP status of the refusal.
func dialWS(t *testing.T, base, query string) (*websocket.Conn, int) {
	t.Helper()
	u := "ws" + strings.TrimPrefix(base, "http") + "/ws?" + query
	conn, res, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		if res == nil {
			t.Fatalf("dial: %v", err)
		}
		return nil, res.StatusCode
	}
	t.Cleanup(func() { conn.Close() })
	return conn, http.StatusSwitchingProtocols
}

// readPush waits for one push.
func readPush(t *testing.T, conn *websocket.Conn, within time.Duration) Push {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(within))
	_, msg, err := conn.ReadMessage()
	if err != nil {
		t.Fatalf("no push within %s: %v", within, err)
	}
	var p Push
	if err := json.Unmarshal(msg, &p); err != nil {
		t.Fatalf("push %s: %v", msg, err)
	}
	return p
}

// startHub runs the hub's LISTEN loop for the test's lifetime and waits until it listens.
func (e *testEnv) startHub() {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e.t.Cleanup(cancel)
	go e.srv.hub.Listen(ctx, e.url)
	time.Sleep(300 * time.Millisecond) // LISTEN is issued right after connecting
}

func TestWebSocketRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base := e.listen()
	a := e.customer("Wes Wong")
	b := e.customer("Xia Xu")
	for q, want := range map[string]int{
		"":                      401,
		"token=garbage":         401,
		"user_id=" + itoa(a.ID): 401,
		"user_id=" + itoa(b.ID) + "&token=" + a.Token: 403,
	} {
		if _, status := dialWS(t, base, q); status != want {
			t.Errorf("query %q: status %d, want %d", q, status, want)
		}
	}
	e.want(e.do("GET", "/ws?token="+a.Token, "", nil), 400, "plain GET on /ws")
	if _, status := dialWS(t, base, "user_id="+itoa(a.ID)+"&token="+a.Token); status != 101 {
		t.Fatalf("good dial: %d", status)
	}
	// A revoked token is refused too.
	e.do("POST", "/api/auth/logout", a.Token, nil)
	if _, status := dialWS(t, base, "token="+a.Token); status != 401 {
		t.Fatalf("revoked token: %d", status)
	}
}

func TestWebSocketDeliversToEveryConnection(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.startHub()
	base := e.listen()
	a := e.customer("Yan Young")
	b := e.customer("Zed Zane")
	_, from := e.account(a, 100)
	_, to := e.account(b, 0)
	c1, _ := dialWS(t, base, "user_id="+itoa(b.ID)+"&token="+b.Token)
	c2, _ := dialWS(t, base, "token="+b.Token)
	other, _ := dialWS(t, base, "token="+a.Token)
	waitConns(t, e.srv.hub, b.ID, 2)

	e.want(e.do("POST", "/api/user/money-transfer", a.Token, map[string]any{"account_id": from, "to_account_id": to, "amount": 12.5, "description": "lunch"}), 201, "transfer")
	for _, c := range []*websocket.Conn{c1, c2} {
		p := readPush(t, c, 5*time.Second)
		if p.UserID != b.ID || p.Message != "You received $12.50 from account "+from || p.ID == 0 || p.CreatedAt.IsZero() {
			t.Fatalf("push %+v", p)
		}
	}
	other.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, msg, err := other.ReadMessage(); err == nil {
		t.Fatalf("the sender received the recipient's push: %s", msg)
	}
}

func TestSlowClientIsDroppedWithoutHoldingOthers(t *testing.T) {
	t.Parallel()
	h := NewHub(quiet)
	slow := &wsClient{userID: 7, send: make(chan []byte, 1), done: make(chan struct{})}
	fast := &wsClient{userID: 7, send: make(chan []byte, 100), done: make(chan struct{})}
	h.add(slow)
	h.add(fast)
	for i := 0; i < 5; i++ {
		h.Publish(7, []byte("x"))
	}
	select {
	case <-slow.done:
	default:
		t.Fatal("slow client not dropped")
	}
	if len(fast.send) != 5 {
		t.Fatalf("fast client got %d of 5", len(fast.send))
	}
	if h.metrics.drops.Load() == 0 {
		t.Fatal("drop not counted")
	}
}

func TestTwoInstancesSharePushes(t *testing.T) {
	t.Parallel()
	one := newEnv(t)
	two := &testEnv{t: t, url: one.url}
	two.svc = newService(t, one.url)
	two.srv = New(two.svc, NewHub(quiet), Options{Logger: quiet})
	one.startHub()
	two.startHub()
	baseTwo := two.listen()
	a := one.customer("Ann Able")
	b := one.customer("Ben Bold")
	_, from := one.account(a, 50)
	_, to := one.account(b, 0)
	conn, status := dialWS(t, baseTwo, "token="+b.Token) // b listens on instance two
	if status != 101 {
		t.Fatalf("dial: %d", status)
	}
	waitConns(t, two.srv.hub, b.ID, 1)
	start := time.Now()
	one.want(one.do("POST", "/api/user/money-transfer", a.Token, map[string]any{"account_id": from, "to_account_id": to, "amount": "7.25"}), 201, "transfer on one")
	p := readPush(t, conn, 5*time.Second)
	if p.Message != "You received $7.25 from account "+from {
		t.Fatalf("push %+v", p)
	}
	t.Logf("cross-instance push after %s", time.Since(start))
}

func waitConns(t *testing.T, h *Hub, user int64, n int) {
	t.Helper()
	for i := 0; i < 200 && h.Connections(user) < n; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if h.Connections(user) < n {
		t.Fatalf("only %d connections registered", h.Connections(user))
	}
}

// A socket whose token is revoked is closed at the next keepalive.
func TestWebSocketClosedAfterLogout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.srv.wsPingEvery = 200 * time.Millisecond
	base := e.listen()
	a := e.customer("Rey Revoke")
	conn, status := dialWS(t, base, "token="+a.Token)
	if status != 101 {
		t.Fatalf("dial: %d", status)
	}
	other := e.login(a.Email, "password123") // a second session stays valid
	keep, _ := dialWS(t, base, "token="+other.Token)
	if r := e.do("POST", "/api/auth/logout", a.Token, nil); r.Status != 204 {
		t.Fatalf("logout: %d", r.Status)
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _, err := conn.ReadMessage()
	if !websocket.IsCloseError(err, websocket.ClosePolicyViolation) {
		t.Fatalf("want a policy-violation close after logout, got %v", err)
	}
	keep.SetReadDeadline(time.Now().Add(600 * time.Millisecond))
	if _, _, err := keep.ReadMessage(); websocket.IsCloseError(err, websocket.ClosePolicyViolation) {
		t.Fatal("the other session's socket was closed too")
	}
}
