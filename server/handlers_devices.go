package server

import (
	"github.com/gofiber/fiber/v3"

	"meridian/pkg/bank"
)

func (s *Server) listDevices(c fiber.Ctx) error {
	rows, err := s.svc.ListDevices(c.Context(), actor(c))
	if err != nil {
		return err
	}
	return c.JSON(rows)
}

func (s *Server) registerDevice(c fiber.Ctx) error {
	var in bank.DeviceInput
	if err := decode(c, &in); err != nil {
		return err
	}
	d, err := s.svc.RegisterDevice(c.Context(), actor(c), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(d)
}

func (s *Server) removeDevice(c fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := s.svc.RemoveDevice(c.Context(), actor(c), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}
