package server

import (
	"github.com/gofiber/fiber/v3"

	"meridian/pkg/bank"
)

func (s *Server) listPayees(c fiber.Ctx) error {
	rows, err := s.svc.ListPayees(c.Context(), actor(c))
	if err != nil {
		return err
	}
	return c.JSON(rows)
}

func (s *Server) createPayee(c fiber.Ctx) error {
	var in bank.PayeeInput
	if err := decode(c, &in); err != nil {
		return err
	}
	p, err := s.svc.CreatePayee(c.Context(), actor(c), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(p)
}

func (s *Server) deletePayee(c fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := s.svc.DeletePayee(c.Context(), actor(c), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}
