package server

import (
	"github.com/gofiber/fiber/v3"

	"meridian/pkg/bank"
)

func (s *Server) createToken(c fiber.Ctx) error {
	var in bank.TokenInput
	if err := decode(c, &in); err != nil {
		return err
	}
	tok, err := s.svc.CreateAccessToken(c.Context(), actor(c), in)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Status(fiber.StatusCreated).JSON(tok)
}

func (s *Server) listTokens(c fiber.Ctx) error {
	rows, err := s.svc.ListAccessTokens(c.Context(), actor(c))
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(rows)
}

func (s *Server) revokeToken(c fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := s.svc.RevokeAccessToken(c.Context(), actor(c), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}
