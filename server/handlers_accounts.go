package server

import (
	"github.com/gofiber/fiber/v3"

	"meridian/pkg/bank"
)

func (s *Server) accountTypes(c fiber.Ctx) error {
	types, err := s.svc.AccountTypes(c.Context(), actor(c))
	if err != nil {
		return err
	}
	return c.JSON(types)
}

func (s *Server) createAccount(c fiber.Ctx) error {
	var in bank.AccountInput
	if err := decode(c, &in); err != nil {
		return err
	}
	acc, err := s.svc.CreateAccount(c.Context(), actor(c), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(acc)
}

func (s *Server) listAccounts(c fiber.Ctx) error {
	var pathUser *int64
	if c.Params("userId") != "" {
		id, err := pathID(c, "userId")
		if err != nil {
			return err
		}
		pathUser = &id
	}
	rows, err := s.svc.ListAccounts(c.Context(), actor(c), pathUser)
	if err != nil {
		return err
	}
	return c.JSON(rows)
}

func (s *Server) updateAccount(c fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	var in bank.AccountInput
	if err := decode(c, &in); err != nil {
		return err
	}
	acc, err := s.svc.UpdateAccount(c.Context(), actor(c), id, in)
	if err != nil {
		return err
	}
	return c.JSON(acc)
}

func (s *Server) closeAccount(c fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := s.svc.CloseAccount(c.Context(), actor(c), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (s *Server) lookupAccount(c fiber.Ctx) error {
	res, err := s.svc.LookupAccount(c.Context(), actor(c), c.Query("account_number"))
	if err != nil {
		return err
	}
	return c.JSON(res)
}
