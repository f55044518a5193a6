package server

import (
	"context"
	"strings"
	"time"

	"github.com/gofiber/contrib/v3/websocket"
	"github.com/gofiber/fiber/v3"

	"meridian/pkg/bank"
	"meridian/pkg/errs"
)

// GET /api/admin/audit-logs/follow?n=N upgrades to a WebSocket that sends
// the newest N sealed audit rows, then every row sealed after them, in
// commit order, each once: `meridian audit-log tail -f` with --server. Each
// message is {"rows": [AuditRow…]}, the first one the N rows. The token
// comes in the Authorization header (the CLI is no browser); a revoked
// token or a deactivated user closes the socket within a second (4401).

// auditFollowPoll is how often a follower seals and reads when no seal
// of this process woke it.
const auditFollowPoll = 200 * time.Millisecond

const (
	localFollowN     = "follow_n"
	localFollowToken = "follow_token"
)

func (s *Server) auditFollowUpgrade(c fiber.Ctx) error {
	if !websocket.IsWebSocketUpgrade(c) {
		return errs.E(errs.Invalid, "websocket_required", "This endpoint speaks WebSocket only")
	}
	if !s.originAllowed(c.Get(fiber.HeaderOrigin), c.Host()) {
		return errOriginNotAllowed
	}
	n := 20
	if v := c.Query("n"); v != "" {
		var err error
		if n, err = bank.ParseLimit(v); err != nil {
			return errs.Field("n", "n must be between 1 and 1000")
		}
	}
	// The rows before the upgrade, so a refusal is a JSON answer.
	rows, last, err := s.svc.AuditTail(c.Context(), actor(c), n)
	if err != nil {
		return err
	}
	_, token, _ := strings.Cut(c.Get(fiber.HeaderAuthorization), " ")
	c.Locals(localFollowN, followStart{rows: rows, last: last})
	c.Locals(localFollowToken, strings.TrimSpace(token))
	return c.Next()
}

type followStart struct {
	rows []bank.AuditRow
	last int64
}

func (s *Server) auditFollowHandler() fiber.Handler {
	return websocket.New(func(conn *websocket.Conn) {
		defer conn.Close()
		start, _ := conn.Locals(localFollowN).(followStart)
		token, _ := conn.Locals(localFollowToken).(string)
		a, _ := conn.Locals(localActor).(bank.Actor)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s.followers.Add(1)
		defer s.followers.Done()
		closeCode, reason := websocket.CloseNormalClosure, ""
		go func() { // the reader notices the client's close
			defer cancel()
			conn.SetReadLimit(4096)
			for {
				if _, _, err := conn.ReadMessage(); err != nil {
					return
				}
			}
		}()
		go func() { // the token's end, or serve's, ends the follow
			t := time.NewTicker(time.Second)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-s.shutdown:
					closeCode, reason = websocket.CloseGoingAway, "server stopping"
					cancel()
					return
				case <-t.C:
					if sessionEnded(ctx, s.svc, token) {
						closeCode, reason = wsCloseSessionEnded, "session ended"
						cancel()
						return
					}
				}
			}
		}()
		send := func(rows []bank.AuditRow) error {
			conn.SetWriteDeadline(time.Now().Add(wsWriteTimeout))
			return conn.WriteJSON(fiber.Map{"rows": rows})
		}
		if err := send(start.rows); err != nil {
			return
		}
		err := s.svc.AuditFollow(ctx, a, bank.FollowOptions{AfterSeq: start.last, Poll: auditFollowPoll, Log: s.log}, send)
		if err != nil {
			return
		}
		conn.SetWriteDeadline(time.Now().Add(time.Second))
		conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(closeCode, reason))
	})
}
