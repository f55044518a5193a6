package server

import (
	"github.com/gofiber/fiber/v3"
)

func (s *Server) listSessions(c fiber.Ctx) error {
	rows, err := s.svc.ListSessions(c.Context(), actor(c))
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(rows)
}

func (s *Server) endSession(c fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := s.svc.EndSession(c.Context(), actor(c), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (s *Server) endOtherSessions(c fiber.Ctx) error {
	if err := s.svc.EndOtherSessions(c.Context(), actor(c)); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}
