package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fasthttp/websocket"

	"meridian/pkg/bank"
)

// dialWS opens /ws on base with the given query; it returns the connection
// or the HTTP status of the refusal.
func dialWS(t *testing.T, base, query string) (*websocket.Conn, int) {
	t.Helper()
	conn, status, _ := dialWSOrigin(t, base, query, "")
	return conn, status
}

// dialWSOrigin dials with an Origin header (empty: none, as native apps do)
// and returns the connection, or the status and body of the refusal.
// A token=... in query is sent as the app sends it, in the subprotocol
// meridian.bearer.<token>, never in the URL.
func dialWSOrigin(t *testing.T, base, query, origin string) (*websocket.Conn, int, string) {
	t.Helper()
	values, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	if tok := values.Get("token"); tok != "" {
		values.Del("token")
		h.Set("Sec-WebSocket-Protocol", WSProtocol+", "+WSBearerPrefix+tok)
	}
	return dialWSHeader(t, base, values.Encode(), origin, h)
}

// dialWSHeader dials /ws?query with the given headers (and Origin, unless empty).
func dialWSHeader(t *testing.T, base, query, origin string, h http.Header) (*websocket.Conn, int, string) {
	t.Helper()
	u := "ws" + strings.TrimPrefix(base, "http") + "/ws?" + query
	if origin != "" {
		h.Set("Origin", origin)
	}
	conn, res, err := websocket.DefaultDialer.Dial(u, h)
	if err != nil {
		if res == nil {
			t.Fatalf("dial: %v", err)
		}
		body, _ := io.ReadAll(res.Body)
		return nil, res.StatusCode, string(body)
	}
	t.Cleanup(func() { conn.Close() })
	return conn, http.StatusSwitchingProtocols, ""
}

// readMsg waits for one message.
func readMsg(t *testing.T, conn *websocket.Conn, within time.Duration) []byte {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(within))
	_, msg, err := conn.ReadMessage()
	if err != nil {
		t.Fatalf("no message within %s: %v", within, err)
	}
	return msg
}

// readPush waits for one push.
func readPush(t *testing.T, conn *websocket.Conn, within time.Duration) Push {
	t.Helper()
	msg := readMsg(t, conn, within)
	var p Push
	if err := json.Unmarshal(msg, &p); err != nil || p.ID == 0 {
		t.Fatalf("push %s: %v", msg, err)
	}
	return p
}

// startHub runs what serve runs beside the server, the sealer and the hub's
// listener, for the test's lifetime, and waits until the hub listens.
func (e *testEnv) startHub() {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e.t.Cleanup(cancel)
	go e.svc.RunSealer(ctx, 100*time.Millisecond, quiet)
	go e.srv.hub.Listen(ctx, e.url)
	select {
	case <-e.srv.hub.Ready():
	case <-time.After(10 * time.Second):
		e.t.Fatal("the hub did not start listening")
	}
}

// wantClosed waits for the connection to be closed with code within d.
func wantClosed(t *testing.T, conn *websocket.Conn, code int, d time.Duration, what string) {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(d))
	for {
		_, msg, err := conn.ReadMessage()
		if err == nil {
			continue // a push sent before the close
		}
		if !websocket.IsCloseError(err, code) {
			t.Fatalf("%s: want close code %d within %s, got %v (last message %s)", what, code, d, err, msg)
		}
		return
	}
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

// The token of a WebSocket never needs to be in its URL (which proxies and
// browser histories keep): a subprotocol or a header carries it, and the
// first app's ?token= works only with ws_query_token.
func TestWebSocketTokenOutsideTheURL(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base := e.listen()
	a := e.customer("Una Uhl")

	// The subprotocols: the server answers "meridian" alone, never the token.
	h := http.Header{}
	h.Set("Sec-WebSocket-Protocol", "meridian, meridian.bearer."+a.Token)
	conn, status, _ := dialWSHeader(t, base, "", "", h)
	if status != 101 || conn.Subprotocol() != WSProtocol {
		t.Fatalf("subprotocol dial: %d %q", status, conn.Subprotocol())
	}
	// A program's Authorization header.
	h = http.Header{}
	h.Set("Authorization", "Bearer "+a.Token)
	if _, status, _ := dialWSHeader(t, base, "", "", h); status != 101 {
		t.Fatalf("header dial: %d", status)
	}
	h.Set("Authorization", "Basic "+a.Token)
	if _, status, _ := dialWSHeader(t, base, "", "", h); status != 401 {
		t.Fatalf("basic auth: %d", status)
	}
	h = http.Header{}
	h.Set("Sec-WebSocket-Protocol", "meridian, meridian.bearer.garbage")
	if _, status, _ := dialWSHeader(t, base, "", "", h); status != 401 {
		t.Fatalf("bad subprotocol token: %d", status)
	}
	// The token in the URL: refused by default, and said why.
	_, status, body := dialWSHeader(t, base, "token="+a.Token, "", http.Header{})
	if status != 401 || !strings.Contains(body, `"code":"token_in_url"`) {
		t.Fatalf("query token: %d %s", status, body)
	}

	// With ws_query_token, the first app's form works.
	old := newEnvWith(t, bank.Settings{}, Options{WSQueryToken: true})
	oldBase := old.listen()
	b := old.customer("Vic Vance")
	if _, status, body := dialWSHeader(t, oldBase, "user_id="+itoa(b.ID)+"&token="+b.Token, "", http.Header{}); status != 101 {
		t.Fatalf("query token with ws_query_token: %d %s", status, body)
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
	// One notification pushed (to two connections): one push latency.
	m := string(e.do("GET", "/metrics", "", nil).Body)
	if !strings.Contains(m, "meridian_ws_push_latency_seconds_count 1\n") || !strings.Contains(m, "meridian_ws_pushes_total 2\n") {
		t.Fatalf("want one push latency and two pushes in /metrics:\n%s", m)
	}
}

func TestSlowClientIsDroppedWithoutHoldingOthers(t *testing.T) {
	t.Parallel()
	h := NewHub(nil, quiet)
	slow := &wsClient{userID: 7, send: make(chan []byte, 1), done: make(chan struct{})}
	fast := &wsClient{userID: 7, send: make(chan []byte, 100), done: make(chan struct{})}
	h.add(slow, 0)
	h.add(fast, 0)
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
	two := one.secondInstance()
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

// secondInstance is another serve instance on e's database, with a service
// and hub of its own.
func (e *testEnv) secondInstance() *testEnv {
	e.t.Helper()
	two := &testEnv{t: e.t, url: e.url, superURL: e.superURL}
	two.svc = newService(e.t, e.url)
	two.srv = New(two.svc, NewHub(two.svc, quiet), Options{Logger: quiet})
	return two
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

// A socket whose token is revoked is closed at once (the revocation is
// announced by the database), with code 4401; the user's other session stays.
func TestWebSocketClosedAfterLogout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.startHub()
	base := e.listen()
	a := e.customer("Rey Revoke")
	conn, status := dialWS(t, base, "token="+a.Token)
	if status != 101 {
		t.Fatalf("dial: %d", status)
	}
	other := e.login(a.Email, "password123") // a second session stays valid
	keep, _ := dialWS(t, base, "token="+other.Token)
	waitConns(t, e.srv.hub, a.ID, 2)
	if r := e.do("POST", "/api/auth/logout", a.Token, nil); r.Status != 204 {
		t.Fatalf("logout: %d", r.Status)
	}
	wantClosed(t, conn, wsCloseSessionEnded, time.Second, "after logout")
	keep.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, _, err := keep.ReadMessage(); websocket.IsCloseError(err, wsCloseSessionEnded) {
		t.Fatal("the other session's socket was closed too")
	}
}

// Deactivating a user closes every socket of theirs within a second.
func TestWebSocketClosedAfterDeactivation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.startHub()
	base := e.listen()
	adm := e.admin()
	a := e.customer("Dee Active")
	c1, _ := dialWS(t, base, "token="+a.Token)
	second := e.login(a.Email, "password123")
	c2, _ := dialWS(t, base, "token="+second.Token)
	waitConns(t, e.srv.hub, a.ID, 2)
	e.want(e.do("PUT", "/api/admin/users/"+itoa(a.ID)+"/status", adm.Token, map[string]any{"is_active": false}), 200, "deactivate")
	wantClosed(t, c1, wsCloseSessionEnded, time.Second, "first socket after deactivation")
	wantClosed(t, c2, wsCloseSessionEnded, time.Second, "second socket after deactivation")
}

// Without the announcement (no listener), the keepalive still ends a revoked session.
func TestWebSocketKeepaliveChecksTheToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.srv.wsPingEvery = 200 * time.Millisecond
	base := e.listen()
	a := e.customer("Kip Keepalive")
	conn, _ := dialWS(t, base, "token="+a.Token)
	waitConns(t, e.srv.hub, a.ID, 1)
	e.do("POST", "/api/auth/logout", a.Token, nil)
	wantClosed(t, conn, wsCloseSessionEnded, 5*time.Second, "at the keepalive")
}

func TestWebSocketOrigins(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.srv = New(e.svc, NewHub(e.svc, quiet), Options{Logger: quiet, AllowedOrigins: []string{"https://App.Example.com/"}})
	base := e.listen()
	a := e.customer("Oren Origin")
	q := "token=" + a.Token
	for _, origin := range []string{"https://evil.example", "http://localhost:1", "null", "http://" + strings.TrimPrefix(base, "http://") + ".evil.example"} {
		conn, status, body := dialWSOrigin(t, base, q, origin)
		if status != 403 || !strings.Contains(body, `"code":"origin_not_allowed"`) {
			t.Errorf("Origin %s: status %d %s; want 403 origin_not_allowed", origin, status, body)
		}
		if conn != nil {
			conn.Close()
		}
	}
	for _, origin := range []string{"", base, strings.ToUpper(base), "https://app.example.com"} {
		if _, status, body := dialWSOrigin(t, base, q, origin); status != 101 {
			t.Errorf("Origin %q: status %d %s; want 101", origin, status, body)
		}
	}
}

// At most ws_max_per_user sockets per user: the next is refused before the upgrade.
func TestWebSocketPerUserLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base := e.listen()
	a := e.customer("Lou Limit")
	b := e.customer("Bea Below")
	for i := 0; i < 10; i++ {
		if _, status := dialWS(t, base, "token="+a.Token); status != 101 {
			t.Fatalf("connection %d: %d", i+1, status)
		}
	}
	waitConns(t, e.srv.hub, a.ID, 10)
	if _, status, body := dialWSOrigin(t, base, "token="+a.Token, ""); status != 429 || !strings.Contains(body, `"code":"too_many_connections"`) {
		t.Fatalf("11th connection: %d %s; want 429", status, body)
	}
	if _, status := dialWS(t, base, "token="+b.Token); status != 101 {
		t.Fatalf("another user's connection: %d", status)
	}
	// Connections opened at the same moment cannot pass the limit together.
	h := NewHub(nil, quiet)
	var wg sync.WaitGroup
	var added atomic.Int32
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if h.add(&wsClient{userID: 9, send: make(chan []byte, 1), done: make(chan struct{})}, 10) {
				added.Add(1)
			}
		}()
	}
	wg.Wait()
	if added.Load() != 10 || h.Connections(9) != 10 {
		t.Fatalf("%d of 50 concurrent connections registered; want 10", added.Load())
	}
}

// Notifications that commit out of id order are each pushed once, in feed order.
func TestHubPushesOnceInCommitOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.startHub()
	base := e.listen()
	b := e.customer("Otto Order")
	conn, _ := dialWS(t, base, "token="+b.Token)
	waitConns(t, e.srv.hub, b.ID, 1)

	const writers, each = 16, 8
	var wg sync.WaitGroup
	errc := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				tx, err := e.svc.DB().Beginx()
				if err != nil {
					errc <- err
					return
				}
				if _, err := tx.Exec(`INSERT INTO notifications (user_id, message) VALUES ($1, $2)`, b.ID, fmt.Sprintf("n %d-%d", w, i)); err != nil {
					errc <- err
					return
				}
				time.Sleep(time.Duration((w*7+i*3)%12) * time.Millisecond) // hold it open: commits leave id order
				if err := tx.Commit(); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	var got []int64
	var readErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		for len(got) < writers*each {
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			_, msg, err := conn.ReadMessage()
			if err != nil {
				readErr = err
				return
			}
			var p Push
			json.Unmarshal(msg, &p)
			got = append(got, p.ID)
		}
	}()
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	<-done
	if readErr != nil {
		t.Fatalf("reading pushes after %d: %v", len(got), readErr)
	}
	// Any extra push (a duplicate) would arrive now.
	conn.SetReadDeadline(time.Now().Add(1500 * time.Millisecond))
	if _, msg, err := conn.ReadMessage(); err == nil {
		t.Fatalf("an extra push: %s", msg)
	}
	var want []int64
	e.svc.DB().Select(&want, `SELECT n.id FROM notification_feed f JOIN notifications n ON n.id = f.notification_id WHERE n.user_id = $1 ORDER BY f.seq`, b.ID)
	if len(want) != writers*each || !slices.Equal(got, want) {
		t.Fatalf("pushed %d notifications %v;\nwant the %d of the feed, in its order %v", len(got), got, len(want), want)
	}
	if slices.IsSorted(got) {
		t.Log("every commit happened to follow id order this time")
	}
}

// After the hub's listener loses its connection, each socket gets
// {"type":"resync"} and pushes continue, none lost and none twice.
func TestHubResyncAfterListenerReconnect(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.startHub()
	base := e.listen()
	a := e.customer("Ria Resync")
	b := e.customer("Rob Resync")
	_, from := e.account(a, 100)
	_, to := e.account(b, 0)
	conn, _ := dialWS(t, base, "token="+b.Token)
	waitConns(t, e.srv.hub, b.ID, 1)

	var killed int
	if err := e.svc.DB().Get(&killed, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND query ILIKE 'listen%'`); err != nil || killed != 1 {
		t.Fatalf("terminated %d listener backends: %v", killed, err)
	}
	// A transfer while the listener is away is still pushed, once.
	e.want(e.do("POST", "/api/user/money-transfer", a.Token, map[string]any{"account_id": from, "to_account_id": to, "amount": 1}), 201, "transfer during the gap")
	var resync, pushes int
	deadline := time.Now().Add(10 * time.Second)
	for resync == 0 || pushes == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("after the reconnect: %d resync, %d pushes", resync, pushes)
		}
		msg := readMsg(t, conn, time.Until(deadline))
		if string(msg) == `{"type":"resync"}` {
			resync++
		} else {
			readPushMsg(t, msg, "You received $1.00 from account "+from)
			pushes++
		}
	}
	e.want(e.do("POST", "/api/user/money-transfer", a.Token, map[string]any{"account_id": from, "to_account_id": to, "amount": 2}), 201, "transfer after")
	readPushMsg(t, readMsg(t, conn, 5*time.Second), "You received $2.00 from account "+from)
	conn.SetReadDeadline(time.Now().Add(1200 * time.Millisecond))
	if _, msg, err := conn.ReadMessage(); err == nil {
		t.Fatalf("an extra message: %s", msg)
	}
}

// A batch sealed by this process is pushed at once when it continues the
// feed, skipped when already pushed, and read from the feed after a gap.
func TestHubPushSealed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	h := e.srv.hub
	a := e.customer("Gus Gap")
	cl := &wsClient{userID: a.ID, send: make(chan []byte, 100), done: make(chan struct{})}
	h.add(cl, 0)
	for i := 0; i < 3; i++ {
		e.svc.DB().MustExec(`INSERT INTO notifications (user_id, message) VALUES ($1, $2)`, a.ID, fmt.Sprintf("n%d", i))
	}
	sealed, err := e.svc.Seal(ctxBG)
	if err != nil || len(sealed.Notifications) != 3 {
		t.Fatalf("seal: %+v %v", sealed, err)
	}
	n := sealed.Notifications
	h.lastSeq = n[0].Seq - 1
	h.pushSealed(ctxBG, n[:1]) // continues the feed: pushed from the batch
	h.pushSealed(ctxBG, n[:1]) // already pushed: skipped
	h.pushSealed(ctxBG, n[2:]) // after a gap: the feed is read, n[1] then n[2]
	h.pushSealed(ctxBG, n[1:]) // all pushed: skipped
	var got []string
	for len(cl.send) > 0 {
		var p Push
		json.Unmarshal(<-cl.send, &p)
		got = append(got, p.Message)
	}
	if strings.Join(got, " ") != "n0 n1 n2" || h.lastSeq != n[2].Seq {
		t.Fatalf("pushed %v, lastSeq %d", got, h.lastSeq)
	}
}

func readPushMsg(t *testing.T, msg []byte, want string) {
	t.Helper()
	var p Push
	if err := json.Unmarshal(msg, &p); err != nil || p.Message != want {
		t.Fatalf("push %s; want %q", msg, want)
	}
}
