package server

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v3"

	"meridian/pkg/bank"
	"meridian/pkg/db"
	"meridian/pkg/errs"
)

// HeaderCommitLSN carries a commit position (a PostgreSQL WAL position,
// "16/B374D848"): every answer to a write (any method but GET, HEAD and
// OPTIONS) has the primary's position after it, and a read that sends one
// back is served by a read replica only once that replica has replayed it
// (contract §7: a client never reads older than its own last write).
const HeaderCommitLSN = "X-Meridian-Commit-LSN"

// commitPosition reads the client's position from HeaderCommitLSN into the
// request's context (400 when it is not a WAL position) and, with read
// replicas configured, answers every write with the primary's position
// after it and remembers it for the signed-in user on this instance
// (auth adds the remembered one to that user's reads).
func (s *Server) commitPosition(c fiber.Ctx) error {
	if h := c.Get(HeaderCommitLSN); h != "" {
		pos, err := db.ParseLSN(h)
		if err != nil {
			return errs.E(errs.Invalid, "invalid_input", HeaderCommitLSN+" must be a position like 16/B374D848, as an earlier answer gave it")
		}
		c.SetContext(db.WithPosition(c.Context(), pos))
	}
	r := s.svc.ReadRouter()
	switch c.Method() {
	case fiber.MethodGet, fiber.MethodHead, fiber.MethodOptions:
		return c.Next()
	}
	if !r.HasReplicas() {
		return c.Next()
	}
	err := c.Next()
	// After the handler's commit (or its refusal, which may have written an
	// audit row): one query on the primary. It outlives the request's
	// deadline briefly, so a write answered in time still tells its position.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Context()), time.Second)
	defer cancel()
	if pos, perr := r.CommitPosition(ctx); perr == nil {
		c.Set(HeaderCommitLSN, pos.String())
		r.Remember(actor(c).UserID, pos)
	} else {
		s.log.Debug("commit position", "err", perr)
	}
	return err
}

// readsAfterOwnWrites makes the signed-in user's reads on this instance
// wait for the user's last write here, when the client did not send it.
func (s *Server) readsAfterOwnWrites(c fiber.Ctx, a bank.Actor) {
	if r := s.svc.ReadRouter(); r.HasReplicas() {
		c.SetContext(db.WithPosition(c.Context(), r.Remembered(a.UserID)))
	}
}
