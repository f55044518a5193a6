package server

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/contrib/v3/websocket"
	"github.com/gofiber/fiber/v3"
	"github.com/google/uuid"
	"github.com/lib/pq"

	"meridian/pkg/bank"
	"meridian/pkg/errs"
)

const (
	wsSendBuffer   = 256              // pushes queued for one connection before it counts as too slow (room for a catch-up burst)
	wsWriteTimeout = 10 * time.Second // a write that takes longer drops the connection
	wsPingEvery    = 25 * time.Second
	wsPongWait     = 60 * time.Second

	// wsPollEvery is how often the hub reads the feed without being woken,
	// in case an announcement was lost (the listener is reconnecting).
	wsPollEvery = time.Second
	// wsFeedBatch is how many feed rows one read takes.
	wsFeedBatch = 1000

	// Close codes of the application range (4000-4999).
	wsCloseSessionEnded = 4401 // the token was revoked or the user deactivated
	wsCloseTooMany      = 4429 // over ws_max_per_user
	defaultWSMaxPerUser = 10
)

// resyncMessage tells a client that pushes may have been missed (the server
// lost PostgreSQL for a while): it refetches its notifications.
var resyncMessage = []byte(`{"type":"resync"}`)

// Push is what a WebSocket client receives.
type Push struct {
	ID        int64     `json:"id"`
	Message   string    `json:"message"`
	UserID    int64     `json:"user_id"`
	CreatedAt time.Time `json:"created_at"`
}

// Hub holds this instance's open WebSockets by user and pushes every sealed
// notification (the feed of pkg/bank events.go), whichever instance stored
// it, to that user's connections: exactly once and in feed (commit) order,
// because one goroutine (Listen) reads the feed by seq. It also closes the
// connections of a revoked token or a deactivated user.
type Hub struct {
	svc     *bank.Service
	mu      sync.RWMutex
	byUser  map[int64]map[*wsClient]struct{}
	log     *slog.Logger
	metrics *Metrics
	lastSeq int64         // the newest feed seq pushed; used by the Listen goroutine only
	pushed  atomic.Int64  // lastSeq, for other goroutines (drain)
	ready   chan struct{} // closed once Listen listens and knows where the feed starts
	readyMu sync.Once
	// instance names this process in live_presence; presence is poked when a
	// user's first socket opens or last one closes (RunPresence).
	instance string
	presence chan struct{}
}

type wsClient struct {
	userID int64
	jti    string // the token's id, to close it when the token is revoked
	token  string // to check the token again after the listener reconnects
	send   chan []byte
	done   chan struct{}
	once   sync.Once
	code   int // close code, set before done is closed
	reason string
}

// closeWith ends the connection with a close code; the first call wins.
func (c *wsClient) closeWith(code int, reason string) {
	c.once.Do(func() {
		c.code, c.reason = code, reason
		close(c.done)
	})
}

func (c *wsClient) close() { c.closeWith(websocket.CloseGoingAway, "") }

// NewHub returns an empty hub reading notifications through svc (nil: the
// hub only holds connections, as in tests of fan-out alone).
func NewHub(svc *bank.Service, log *slog.Logger) *Hub {
	if log == nil {
		log = slog.Default()
	}
	return &Hub{svc: svc, byUser: map[int64]map[*wsClient]struct{}{}, log: log, metrics: newMetrics(svc), ready: make(chan struct{}),
		instance: uuid.NewString(), presence: make(chan struct{}, 1)}
}

// presenceEvery is how often RunPresence tells the database again which
// users have a socket here (bank.presenceStale is three times it).
const presenceEvery = 5 * time.Second

// RunPresence keeps live_presence up to date with the users that have a
// WebSocket open on this instance, so the pusher (bank.PushRound, on any
// instance) sends them nothing: at once when a user's first socket opens
// or last one closes, and every presenceEvery, until ctx ends; then it
// forgets this instance's rows.
func (h *Hub) RunPresence(ctx context.Context) {
	t := time.NewTicker(presenceEvery)
	defer t.Stop()
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		h.svc.ClearPresence(cctx, h.instance)
	}()
	for {
		h.mu.RLock()
		users := make([]int64, 0, len(h.byUser))
		for id := range h.byUser {
			users = append(users, id)
		}
		h.mu.RUnlock()
		if err := h.svc.PublishPresence(ctx, h.instance, users); err != nil && ctx.Err() == nil {
			h.log.Debug("publishing live sockets", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-h.presence:
		case <-t.C:
		}
	}
}

// LiveHere reports whether the user has a WebSocket open on this instance.
func (h *Hub) LiveHere(userID int64) bool { return h.Connections(userID) > 0 }

func (h *Hub) pokePresence() {
	select {
	case h.presence <- struct{}{}:
	default:
	}
}

// Ready is closed once Listen is listening and pushes every notification sealed from then on.
func (h *Hub) Ready() <-chan struct{} { return h.ready }

// Listen pushes sealed notifications until ctx ends. It wakes on each seal
// (bank.SealedChannel) and every wsPollEvery, and closes revoked sessions
// (bank.RevokedChannel). After the listener reconnects it catches up from
// the last seq pushed, sends {"type":"resync"} on every connection (contract
// §5) and checks every connection's token again.
func (h *Hub) Listen(ctx context.Context, dsn string) error {
	if h.svc == nil {
		return errors.New("hub: no service to read notifications from")
	}
	// The service answers tokens from memory only while this listener hears
	// every revocation: from once it listens until it loses the connection,
	// and again once pq has reconnected and listens anew.
	l := pq.NewListener(dsn, 100*time.Millisecond, 10*time.Second, func(ev pq.ListenerEventType, err error) {
		switch ev {
		case pq.ListenerEventDisconnected, pq.ListenerEventConnectionAttemptFailed:
			h.svc.SessionFeed(false)
		case pq.ListenerEventReconnected:
			h.svc.SessionFeed(true)
		}
		if err != nil {
			h.log.Warn("event listener", "event", ev, "err", err)
		}
	})
	defer h.svc.SessionFeed(false)
	stop := context.AfterFunc(ctx, func() { l.Close() }) // also ends a Listen waiting for the database
	defer stop()
	defer l.Close()
	for _, ch := range []string{bank.SealedChannel, bank.RevokedChannel} {
		if err := l.Listen(ch); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return errs.Wrap(err, "listen")
		}
	}
	h.svc.SessionFeed(true)
	// Start at the newest sealed notification: older ones are in the stored list.
	for {
		head, err := h.svc.NotificationFeedHead(ctx)
		if err == nil {
			h.lastSeq = head
			h.pushed.Store(head)
			break
		}
		h.log.Warn("reading the notification feed", "err", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wsPollEvery):
		}
	}
	h.readyMu.Do(func() { close(h.ready) })

	poll := time.NewTicker(wsPollEvery)
	defer poll.Stop()
	ping := time.NewTicker(90 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case n := <-l.Notify:
			switch {
			case n == nil: // reconnected: announcements made meanwhile were lost
				h.catchUp(ctx)
				h.resync()
				go h.recheckTokens(ctx)
			case n.Channel == bank.RevokedChannel:
				h.svc.ForgetSession(n.Extra)
				h.revoke(n.Extra)
			default:
				// A seal anywhere: what committed may hold webhook events.
				h.svc.PokeWebhooks()
				if s, ok := bank.ParseSealed(n.Extra); !ok || s.NotificationSeq > h.lastSeq {
					h.catchUp(ctx)
				}
			}
		case batch := <-h.svc.SealedHere():
			h.pushSealed(ctx, batch)
		case <-poll.C:
			h.catchUp(ctx)
		case <-ping.C:
			go l.Ping()
		}
	}
}

// pushSealed pushes a batch this process sealed. It continues the feed when
// it starts right after lastSeq; one already pushed is skipped; after a gap
// (another instance sealed in between) the feed is read from lastSeq.
func (h *Hub) pushSealed(ctx context.Context, batch []bank.FeedNotification) {
	switch {
	case len(batch) == 0 || batch[len(batch)-1].Seq <= h.lastSeq:
	case batch[0].Seq == h.lastSeq+1:
		h.push(batch)
	default:
		h.catchUp(ctx)
	}
}

// push sends each notification to its user's connections and advances lastSeq.
func (h *Hub) push(rows []bank.FeedNotification) {
	for _, r := range rows {
		msg, _ := json.Marshal(Push{ID: r.ID, Message: r.Message, UserID: r.UserID, CreatedAt: r.CreatedAt.UTC()})
		if h.Publish(r.UserID, msg) > 0 {
			h.metrics.pushLatency.Observe(time.Since(r.CreatedAt).Seconds())
		}
		h.lastSeq = r.Seq
		h.pushed.Store(r.Seq)
	}
}

// catchUp pushes every sealed notification after lastSeq, in seq order.
func (h *Hub) catchUp(ctx context.Context) {
	for ctx.Err() == nil {
		rows, err := h.svc.NotificationsAfter(ctx, h.lastSeq, wsFeedBatch)
		if err != nil {
			if ctx.Err() == nil {
				h.log.Debug("reading the notification feed", "err", err)
			}
			return
		}
		h.push(rows)
		if len(rows) < wsFeedBatch {
			return
		}
	}
}

// resync asks every connection to refetch.
func (h *Hub) resync() {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, set := range h.byUser {
		for c := range set {
			h.queue(c, resyncMessage)
		}
	}
}

// revoke closes the connections of a revoked token (payload: its jti) or of
// a deactivated user (payload: "user:<id>").
func (h *Hub) revoke(payload string) {
	if strings.HasPrefix(payload, "role:") { // a changed role keeps its sessions
		return
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	if v, ok := strings.CutPrefix(payload, "user:"); ok {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return
		}
		for c := range h.byUser[id] {
			c.closeWith(wsCloseSessionEnded, "session ended")
		}
		return
	}
	for _, set := range h.byUser {
		for c := range set {
			if c.jti == payload {
				c.closeWith(wsCloseSessionEnded, "session ended")
			}
		}
	}
}

// recheckTokens closes every connection whose token is no longer valid: a
// revocation announced while the listener was away was not heard.
func (h *Hub) recheckTokens(ctx context.Context) {
	h.mu.RLock()
	var all []*wsClient
	for _, set := range h.byUser {
		for c := range set {
			all = append(all, c)
		}
	}
	h.mu.RUnlock()
	for _, c := range all {
		if ctx.Err() != nil {
			return
		}
		if sessionEnded(ctx, h.svc, c.token) {
			c.closeWith(wsCloseSessionEnded, "session ended")
		}
	}
}

// sessionEnded reports whether a live connection's token is no longer valid.
// A database outage does not count: the connection stays until it is known.
func sessionEnded(ctx context.Context, svc *bank.Service, token string) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := svc.CheckSession(ctx, token)
	return err != nil && errs.KindOf(err) == errs.Unauthorized
}

// Publish queues msg on every open connection of userID and returns on how
// many. A connection whose queue is full is dropped, so one slow client
// never holds up the others.
func (h *Hub) Publish(userID int64, msg []byte) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	n := 0
	for c := range h.byUser[userID] {
		if h.queue(c, msg) {
			n++
		}
	}
	return n
}

func (h *Hub) queue(c *wsClient, msg []byte) bool {
	select {
	case c.send <- msg:
		h.metrics.pushes.Add(1)
		return true
	default:
		h.metrics.drops.Add(1)
		c.close()
		return false
	}
}

// add registers c unless its user already has max connections here (max <= 0: no limit).
func (h *Hub) add(c *wsClient, max int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if max > 0 && len(h.byUser[c.userID]) >= max {
		return false
	}
	if h.byUser[c.userID] == nil {
		h.byUser[c.userID] = map[*wsClient]struct{}{}
		h.pokePresence()
	}
	h.byUser[c.userID][c] = struct{}{}
	h.metrics.wsConns.Add(1)
	return true
}

func (h *Hub) remove(c *wsClient) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.byUser[c.userID][c]; ok {
		delete(h.byUser[c.userID], c)
		if len(h.byUser[c.userID]) == 0 {
			delete(h.byUser, c.userID)
			h.pokePresence()
		}
		h.metrics.wsConns.Add(-1)
	}
}

// Connections counts open connections (tests, metrics).
func (h *Hub) Connections(userID int64) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.byUser[userID])
}

// drainWait bounds how long a shutdown waits for the last pushes.
const drainWait = 2 * time.Second

// drain seals what the requests that just finished wrote and waits, at
// most drainWait, until this hub has pushed it: a shutdown closes the
// sockets only after the notifications of its last requests went out. A hub
// that is not listening has nothing to push.
func (h *Hub) drain(ctx context.Context) {
	select {
	case <-h.ready:
	default:
		return
	}
	sealed, err := h.svc.Seal(ctx)
	if err != nil {
		return
	}
	deadline := time.Now().Add(drainWait)
	for h.pushed.Load() < sealed.NotificationSeq && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
}

// CloseAll ends every connection (shutdown).
func (h *Hub) CloseAll() {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, set := range h.byUser {
		for c := range set {
			c.close()
		}
	}
}

const (
	localWSUser  = "ws_user"
	localWSToken = "ws_token"
	localWSJTI   = "ws_jti"
)

var (
	errOriginNotAllowed = errs.E(errs.Forbidden, "origin_not_allowed", "This site may not open a live connection to Meridian")
	errTooManySockets   = errs.E(errs.RateLimited, "too_many_connections", "Too many live connections for this user; close one and try again")
)

// wsUpgrade checks, before the upgrade, the browser's origin (403), the
// token (401), the user_id and the two-factor policy (403) and the user's
// number of connections (429).
func (s *Server) wsUpgrade(c fiber.Ctx) error {
	if !websocket.IsWebSocketUpgrade(c) {
		return errs.E(errs.Invalid, "websocket_required", "This endpoint speaks WebSocket only")
	}
	if !s.originAllowed(c.Get(fiber.HeaderOrigin), c.Host()) {
		return errOriginNotAllowed
	}
	token, err := s.wsToken(c)
	if err != nil {
		return err
	}
	if s.hub == nil {
		return errs.E(errs.Unavailable, "live_off", "Live notifications are off on this server")
	}
	a, err := s.svc.AuthenticateLive(c.Context(), token, c.Query("user_id"))
	if err != nil {
		return err
	}
	// As every signed-in route (auth): with require_2fa_for_admins, an
	// administrator without two-factor sign-in gets no live feed either.
	if err := s.svc.CheckTwoFactorPolicy(a); err != nil {
		return err
	}
	if s.hub.Connections(a.UserID) >= s.wsMaxPerUser {
		return errTooManySockets
	}
	c.Locals(localWSUser, a.UserID)
	c.Locals(localWSToken, token)
	c.Locals(localWSJTI, a.TokenID)
	return c.Next()
}

// WSProtocol is the subprotocol /ws speaks. A client offers it together with
// its token as a second subprotocol, WSBearerPrefix + token, and the server
// answers with WSProtocol alone, so the token never appears in a URL (which
// proxies and browsers' histories keep) nor in the server's answer.
const (
	WSProtocol     = "meridian"
	WSBearerPrefix = "meridian.bearer."
)

var (
	errWSNoToken    = errs.E(errs.Unauthorized, "unauthenticated", "Sign in to continue: offer the subprotocols \"meridian\" and \"meridian.bearer.<token>\", or send Authorization: Bearer <token>")
	errWSQueryToken = errs.E(errs.Unauthorized, "token_in_url", "A token in the URL is refused: offer it as the subprotocol \"meridian.bearer.<token>\" instead")
)

// wsToken finds the token of a WebSocket upgrade: the Authorization header
// (programs), a "meridian.bearer.<token>" subprotocol (browsers and the app,
// which cannot set headers on a WebSocket), or, only with ws_query_token
// (the first app's clients), the token query parameter.
func (s *Server) wsToken(c fiber.Ctx) (string, error) {
	if h := c.Get(fiber.HeaderAuthorization); h != "" {
		scheme, token, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
			return "", errWSNoToken
		}
		return strings.TrimSpace(token), nil
	}
	for _, p := range strings.Split(c.Get(fiber.HeaderSecWebSocketProtocol), ",") {
		if token, ok := strings.CutPrefix(strings.TrimSpace(p), WSBearerPrefix); ok && token != "" {
			return token, nil
		}
	}
	if token := c.Query("token"); token != "" {
		if !s.wsQueryToken {
			return "", errWSQueryToken
		}
		return token, nil
	}
	return "", errWSNoToken
}

// originAllowed: no Origin (native apps send none), the server's own (the
// same host and port as the request's Host), or one of allowed_origins.
func (s *Server) originAllowed(origin, host string) bool {
	if origin == "" {
		return true
	}
	o := strings.ToLower(strings.TrimRight(origin, "/"))
	for _, a := range s.allowedOrigins {
		if o == a {
			return true
		}
	}
	u, err := url.Parse(o)
	if err != nil || u.Host == "" {
		return false
	}
	def := ":80"
	if u.Scheme == "https" || u.Scheme == "wss" {
		def = ":443"
	}
	return strings.TrimSuffix(u.Host, def) == strings.TrimSuffix(strings.ToLower(host), def)
}

func (s *Server) wsHandler() fiber.Handler {
	return websocket.New(s.serveWS, websocket.Config{Subprotocols: []string{WSProtocol}})
}

// serveWS pushes to one open connection until it closes.
func (s *Server) serveWS(conn *websocket.Conn) {
	defer conn.Close() // this websocket package does not close it for us
	userID, _ := conn.Locals(localWSUser).(int64)
	token, _ := conn.Locals(localWSToken).(string)
	jti, _ := conn.Locals(localWSJTI).(string)
	sendClose := func(code int, reason string) {
		conn.SetWriteDeadline(time.Now().Add(time.Second))
		conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason))
	}
	cl := &wsClient{userID: userID, jti: jti, token: token, send: make(chan []byte, wsSendBuffer), done: make(chan struct{})}
	// The count checked before the upgrade may have been passed by
	// connections opened at the same moment; this one is exact.
	if !s.hub.add(cl, s.wsMaxPerUser) {
		sendClose(wsCloseTooMany, "too many connections")
		return
	}
	defer s.hub.remove(cl)
	// A revocation announced between the token check and add above
	// found no connection to close: check once more now it is registered.
	if sessionEnded(context.Background(), s.svc, token) {
		sendClose(wsCloseSessionEnded, "session ended")
		return
	}

	// Reader: answers pings, notices close; client messages are ignored.
	conn.SetReadLimit(4096)
	conn.SetReadDeadline(time.Now().Add(wsPongWait))
	conn.SetPongHandler(func(string) error { return conn.SetReadDeadline(time.Now().Add(wsPongWait)) })
	go func() {
		defer cl.close()
		for {
			if _, _, err := conn.ReadMessage(); err != nil {
				return
			}
		}
	}()

	ping := time.NewTicker(s.wsPingEvery)
	defer ping.Stop()
	for {
		select {
		case <-cl.done:
			sendClose(cl.code, cl.reason)
			return
		case msg := <-cl.send:
			conn.SetWriteDeadline(time.Now().Add(wsWriteTimeout))
			if err := conn.WriteMessage(websocket.TextMessage, msg); err != nil {
				return
			}
		case <-ping.C:
			// The backstop of the revocation announcements: a revoked token
			// or a deactivated user loses the feed at the next keepalive.
			if sessionEnded(context.Background(), s.svc, token) {
				sendClose(wsCloseSessionEnded, "session ended")
				return
			}
			if err := conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(wsWriteTimeout)); err != nil {
				return
			}
		}
	}
}
