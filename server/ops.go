package server

import (
	"context"
	_ "embed"
	"time"

	"github.com/gofiber/fiber/v3"

	"meridian/pkg/db"
)

//go:embed openapi.json
var openapiDoc []byte

func (s *Server) healthz(c fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok", "version": s.version})
}

// readyz answers 200 when the database answers and its schema is current,
// and the instance is not stopping.
func (s *Server) readyz(c fiber.Ctx) error {
	if s.stopping.Load() {
		return c.Status(fiber.StatusServiceUnavailable).JSON(errorBody{Error: "This instance is shutting down", Code: "shutting_down"})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	current, err := db.Current(ctx, s.svc.DB())
	switch {
	case err != nil:
		return c.Status(fiber.StatusServiceUnavailable).JSON(errorBody{Error: "The database is not reachable", Code: "database_unavailable"})
	case !current:
		return c.Status(fiber.StatusServiceUnavailable).JSON(errorBody{Error: "The database schema is not up to date; run meridian migrate up", Code: "schema_outdated"})
	}
	return c.JSON(fiber.Map{"status": "ready"})
}

func (s *Server) openapi(c fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(openapiDoc)
}
