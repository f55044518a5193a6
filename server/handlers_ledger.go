package server

import "github.com/gofiber/fiber/v3"

func (s *Server) trialBalance(c fiber.Ctx) error {
	rows, err := s.svc.TrialBalance(c.Context(), actor(c))
	if err != nil {
		return err
	}
	return c.JSON(rows)
}
