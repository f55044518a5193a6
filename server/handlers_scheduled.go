package server

import (
	"github.com/gofiber/fiber/v3"

	"meridian/pkg/bank"
)

func (s *Server) createScheduledTransfer(c fiber.Ctx) error {
	var in bank.ScheduledTransferInput
	if err := decode(c, &in); err != nil {
		return err
	}
	st, err := s.svc.CreateScheduledTransfer(c.Context(), actor(c), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(st)
}

func (s *Server) listScheduledTransfers(c fiber.Ctx) error {
	limit, err := bank.ParseLimit(c.Query("limit"))
	if err != nil {
		return err
	}
	rows, err := s.svc.ListScheduledTransfers(c.Context(), actor(c), limit)
	if err != nil {
		return err
	}
	return c.JSON(rows)
}

func (s *Server) cancelScheduledTransfer(c fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := s.svc.CancelScheduledTransfer(c.Context(), actor(c), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (s *Server) scheduledTransferRuns(c fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	limit, err := bank.ParseLimit(c.Query("limit"))
	if err != nil {
		return err
	}
	rows, err := s.svc.ScheduledTransferRuns(c.Context(), actor(c), id, limit)
	if err != nil {
		return err
	}
	return c.JSON(rows)
}
