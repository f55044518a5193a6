package server

import "github.com/gofiber/fiber/v3"

func (s *Server) userSummary(c fiber.Ctx) error {
	sum, err := s.svc.UserSummary(c.Context(), actor(c))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"data": sum})
}

func (s *Server) userMonthly(c fiber.Ctx) error {
	pts, err := s.svc.UserMonthly(c.Context(), actor(c))
	if err != nil {
		return err
	}
	return c.JSON(pts)
}

func (s *Server) adminSummary(c fiber.Ctx) error {
	sum, err := s.svc.AdminSummary(c.Context(), actor(c))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"data": sum})
}

func (s *Server) adminMonthly(c fiber.Ctx) error {
	pts, err := s.svc.AdminMonthlyUsers(c.Context(), actor(c))
	if err != nil {
		return err
	}
	return c.JSON(pts)
}
