package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/gofiber/contrib/v3/websocket"
	"github.com/gofiber/fiber/v3"
	"github.com/lib/pq"

	"meridian/pkg/errs"
)

// NotificationsChannel is the PostgreSQL channel on which the database
// announces every stored notification (see migrations/0001_init.up.sql).
const NotificationsChannel = "meridian_notifications"

const (
	wsSendBuffer   = 64               // pushes queued for one connection before it counts as too slow
	wsWriteTimeout = 10 * time.Second // a write that takes longer drops the connection
	wsPingEvery    = 25 * time.Second
	wsPongWait     = 60 * time.Second
)

// Push is what a WebSocket client receives.
type Push struct {
	ID        int64     `json:"id"`
	Message   string    `json:"message"`
	UserID    int64     `json:"user_id"`
	CreatedAt time.Time `json:"created_at"`
}

// Hub holds this instance's open WebSockets by user and fans out the
// notifications that PostgreSQL announces, whichever instance stored them.
type Hub struct {
	mu      sync.RWMutex
	byUser  map[int64]map[*wsClient]struct{}
	log     *slog.Logger
	metrics *metrics
}

type wsClient struct {
	userID int64
	send   chan []byte
	done   chan struct{}
	once   sync.Once
}

func (c *wsClient) close() { c.once.Do(func() { close(c.done) }) }

// NewHub returns an empty hub.
func NewHub(log *slog.Logger) *Hub {
	if log == nil {
		log = slog.Default()
	}
	return &Hub{byUser: map[int64]map[*wsClient]struct{}{}, log: log, metrics: newMetrics()}
}

// Listen receives notifications from PostgreSQL until ctx ends. The
// listener reconnects by itself after a lost connection.
func (h *Hub) Listen(ctx context.Context, dsn string) error {
	l := pq.NewListener(dsn, 100*time.Millisecond, 10*time.Second, func(ev pq.ListenerEventType, err error) {
		if err != nil {
			h.log.Warn("notification listener", "event", ev, "err", err)
		}
	})
	defer l.Close()
	if err := l.Listen(NotificationsChannel); err != nil {
		return errs.Wrap(err, "listen")
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case n := <-l.Notify:
			if n == nil { // reconnected: pushes made meanwhile are in the stored list
				continue
			}
			h.deliver([]byte(n.Extra))
		case <-time.After(90 * time.Second):
			go l.Ping()
		}
	}
}

// deliver parses one announcement and pushes it to the user's connections.
func (h *Hub) deliver(payload []byte) {
	var p Push
	if err := json.Unmarshal(payload, &p); err != nil {
		h.log.Warn("bad notification payload", "err", err)
		return
	}
	p.CreatedAt = p.CreatedAt.UTC()
	msg, _ := json.Marshal(p)
	h.Publish(p.UserID, msg)
}

// Publish queues msg on every open connection of userID. A connection whose
// queue is full is dropped, so one slow client never holds up the others.
func (h *Hub) Publish(userID int64, msg []byte) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for c := range h.byUser[userID] {
		select {
		case c.send <- msg:
			h.metrics.pushes.Add(1)
		default:
			h.metrics.drops.Add(1)
			c.close()
		}
	}
}

func (h *Hub) add(c *wsClient) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byUser[c.userID] == nil {
		h.byUser[c.userID] = map[*wsClient]struct{}{}
	}
	h.byUser[c.userID][c] = struct{}{}
	h.metrics.wsConns.Add(1)
}

func (h *Hub) remove(c *wsClient) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.byUser[c.userID][c]; ok {
		delete(h.byUser[c.userID], c)
		if len(h.byUser[c.userID]) == 0 {
			delete(h.byUser, c.userID)
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
)

// wsUpgrade checks the token and user_id before the upgrade: 401 or 403.
func (s *Server) wsUpgrade(c fiber.Ctx) error {
	if !websocket.IsWebSocketUpgrade(c) {
		return errs.E(errs.Invalid, "websocket_required", "This endpoint speaks WebSocket only")
	}
	a, err := s.svc.Authenticate(c.Context(), c.Query("token"))
	if err != nil {
		return err
	}
	uid, err := queryUserID(c)
	if err != nil {
		return err
	}
	if err := a.CheckUserID(uid); err != nil {
		return err
	}
	if s.hub == nil {
		return errs.E(errs.Internal, "internal", "live notifications are off")
	}
	c.Locals(localWSUser, a.UserID)
	c.Locals(localWSToken, c.Query("token"))
	return c.Next()
}

// tokenRevoked reports whether a live connection's token is no longer valid.
// A database outage does not count: the connection stays until it is known.
func (s *Server) tokenRevoked(token string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := s.svc.Authenticate(ctx, token)
	return err != nil && errs.KindOf(err) == errs.Unauthorized
}

func (s *Server) wsHandler() fiber.Handler {
	return websocket.New(func(conn *websocket.Conn) {
		defer conn.Close() // this websocket package does not close it for us
		userID, _ := conn.Locals(localWSUser).(int64)
		token, _ := conn.Locals(localWSToken).(string)
		cl := &wsClient{userID: userID, send: make(chan []byte, wsSendBuffer), done: make(chan struct{})}
		s.hub.add(cl)
		defer s.hub.remove(cl)

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
				conn.SetWriteDeadline(time.Now().Add(time.Second))
				conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, ""))
				return
			case msg := <-cl.send:
				conn.SetWriteDeadline(time.Now().Add(wsWriteTimeout))
				if err := conn.WriteMessage(websocket.TextMessage, msg); err != nil {
					return
				}
			case <-ping.C:
				// A revoked token (sign-out, password reset) or a deactivated
				// user loses the live feed at the next keepalive.
				if s.tokenRevoked(token) {
					conn.SetWriteDeadline(time.Now().Add(time.Second))
					conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.ClosePolicyViolation, "session ended"))
					return
				}
				if err := conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(wsWriteTimeout)); err != nil {
					return
				}
			}
		}
	})
}
