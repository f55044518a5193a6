package server

import (
	"github.com/gofiber/fiber/v3"

	"meridian/pkg/bank"
)

func (s *Server) createMoneyRequest(c fiber.Ctx) error {
	var in bank.MoneyRequestInput
	if err := decode(c, &in); err != nil {
		return err
	}
	r, err := s.svc.CreateMoneyRequest(c.Context(), actor(c), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(fiber.Map{"message": "Money request created successfully", "data": r})
}

func (s *Server) listMoneyRequests(c fiber.Ctx) error {
	uid, err := queryUserID(c)
	if err != nil {
		return err
	}
	rows, err := s.svc.ListMoneyRequests(c.Context(), actor(c), uid)
	if err != nil {
		return err
	}
	// A bare array: the first app's Money Requests screen reads only an array.
	return c.JSON(rows)
}

func (s *Server) adminMoneyRequests(c fiber.Ctx) error {
	rows, err := s.svc.AdminMoneyRequests(c.Context(), actor(c))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"data": rows})
}

func (s *Server) acceptMoneyRequest(c fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	res, err := s.svc.AcceptMoneyRequest(c.Context(), actor(c), id, c.Get(headerIdempotencyKey))
	if err != nil {
		return err
	}
	return posted(c, fiber.StatusOK, res.Posted)
}

func (s *Server) declineMoneyRequest(c fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	r, err := s.svc.DeclineMoneyRequest(c.Context(), actor(c), id)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"message": "Money request rejected", "data": r})
}
