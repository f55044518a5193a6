package server

import (
	"github.com/gofiber/fiber/v3"

	"meridian/pkg/bank"
)

func (s *Server) createWebhook(c fiber.Ctx) error {
	var in bank.WebhookInput
	if err := decode(c, &in); err != nil {
		return err
	}
	w, err := s.svc.CreateWebhook(c.Context(), actor(c), in)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Status(fiber.StatusCreated).JSON(w)
}

func (s *Server) listWebhooks(c fiber.Ctx) error {
	rows, err := s.svc.ListWebhooks(c.Context(), actor(c))
	if err != nil {
		return err
	}
	return c.JSON(rows)
}

func (s *Server) deleteWebhook(c fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := s.svc.DeleteWebhook(c.Context(), actor(c), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (s *Server) webhookDeliveries(c fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	rows, err := s.svc.WebhookDeliveries(c.Context(), actor(c), id)
	if err != nil {
		return err
	}
	return c.JSON(rows)
}

func (s *Server) redeliverWebhook(c fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	eventID, err := pathID(c, "event_id")
	if err != nil {
		return err
	}
	if err := s.svc.RedeliverWebhook(c.Context(), actor(c), id, eventID); err != nil {
		return err
	}
	return c.Status(fiber.StatusAccepted).JSON(fiber.Map{"message": "Redelivery queued"})
}
