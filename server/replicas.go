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

var (
	errPositionFormat = errs.E(errs.Invalid, "invalid_input", HeaderCommitLSN+" must be a position like 16/B374D848, as an earlier answer gave it")
	errPositionAhead  = errs.E(errs.Invalid, "commit_position_ahead", HeaderCommitLSN+" is ahead of the database: send back only a position an earlier answer gave")
)

// commitPosition, with read replicas configured, answers every write with
// the primary's position after it and remembers it for the signed-in user
// on this instance (readPosition adds the remembered one to that user's
// reads). The position a client sends is read by readPosition, after the
// token is checked.
func (s *Server) commitPosition(c fiber.Ctx) error {
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

// readPosition sets the position the signed-in user's reads must see: the
// one the client sent in HeaderCommitLSN, and the user's last write on this
// instance. It runs after authentication only (auth, server.go): a request
// without a valid token answers 401 whatever its header, and the health
// checks, which take no token, never read it. A header that is no WAL
// position answers 400 invalid_input; a position the primary has not
// reached (no answer gave it, or one of another server, or of a primary
// that failed over before its standby had it) answers 400
// commit_position_ahead: the request did nothing, and a client may send it
// again without the header.
func (s *Server) readPosition(c fiber.Ctx, a bank.Actor) error {
	r := s.svc.ReadRouter()
	ctx := c.Context()
	if h := c.Get(HeaderCommitLSN); h != "" {
		pos, err := db.ParseLSN(h)
		if err != nil {
			return errPositionFormat
		}
		if r != nil {
			reached, err := r.Reached(ctx, pos)
			if err != nil {
				return errs.Wrap(err, "primary's WAL position")
			}
			if !reached {
				return errPositionAhead
			}
		}
		ctx = db.WithPosition(ctx, pos)
	}
	if r.HasReplicas() {
		ctx = db.WithPosition(ctx, r.Remembered(a.UserID))
	}
	c.SetContext(ctx)
	return nil
}
