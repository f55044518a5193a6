package server

import (
	"github.com/gofiber/fiber/v3"

	"meridian/pkg/bank"
)

func (s *Server) listNotifications(c fiber.Ctx) error {
	limit, err := bank.ParseLimit(c.Query("limit"))
	if err != nil {
		return err
	}
	uid, err := queryUserID(c)
	if err != nil {
		return err
	}
	rows, err := s.svc.ListNotifications(c.Context(), actor(c), uid, c.Query("filter"), limit)
	if err != nil {
		return err
	}
	return c.JSON(rows)
}

func (s *Server) readNotification(c fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := s.svc.MarkNotificationRead(c.Context(), actor(c), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (s *Server) readAllNotifications(c fiber.Ctx) error {
	if err := s.svc.MarkAllNotificationsRead(c.Context(), actor(c)); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}
