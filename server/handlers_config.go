package server

import "github.com/gofiber/fiber/v3"

// publicConfig answers what the app may know before anyone signs in.
func (s *Server) publicConfig(c fiber.Ctx) error {
	return c.JSON(s.svc.PublicConfig())
}
