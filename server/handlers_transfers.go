package server

import (
	"github.com/gofiber/fiber/v3"

	"meridian/pkg/bank"
)

func (s *Server) transfer(c fiber.Ctx) error {
	var in bank.TransferInput
	if err := decode(c, &in); err != nil {
		return err
	}
	res, err := s.svc.Transfer(c.Context(), actor(c), in, c.Get("Idempotency-Key"))
	if err != nil {
		return err
	}
	if res.Replayed {
		c.Set("Idempotent-Replayed", "true")
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Status(fiber.StatusCreated).Send(res.Body) // a replay answers as the first time did
}
