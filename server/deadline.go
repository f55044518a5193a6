package server

import (
	"context"

	"github.com/gofiber/fiber/v3"
)

// withDeadline gives each request a context that ends after
// request_timeout. Handlers pass c.Context() to the services, so the
// deadline reaches every query (and PostgreSQL's statement_timeout backs it
// up): past it the transaction rolls back and the client gets a 503
// timeout. /ws is exempt: a WebSocket lives long after its upgrade.
func (s *Server) withDeadline(c fiber.Ctx) error {
	if c.Path() == "/ws" {
		return c.Next()
	}
	ctx, cancel := context.WithTimeout(c.Context(), s.timeout)
	defer cancel()
	c.SetContext(ctx)
	return c.Next()
}
