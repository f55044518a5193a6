package server

import (
	"github.com/gofiber/fiber/v3"

	"meridian/pkg/bank"
)

func (s *Server) listDailyLimits(c fiber.Ctx) error {
	rows, err := s.svc.DailyLimits(c.Context(), actor(c))
	if err != nil {
		return err
	}
	return c.JSON(rows)
}

func (s *Server) setUserLimits(c fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	var in bank.LimitInput
	if err := decode(c, &in); err != nil {
		return err
	}
	limit, err := in.Limit()
	if err != nil {
		return err
	}
	row, err := s.svc.SetDailyLimit(c.Context(), actor(c), id, limit)
	if err != nil {
		return err
	}
	if row.Approval != nil {
		return approvalWaits(c, row.Approval)
	}
	return c.JSON(row)
}
