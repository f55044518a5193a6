package server

import (
	"github.com/gofiber/fiber/v3"

	"meridian/pkg/bank"
)

func (s *Server) transfer(c fiber.Ctx) error {
	var in bank.TransferInput
	if err := decode(c, &in); err != nil {
		return err
	}
	res, err := s.svc.Transfer(c.Context(), actor(c), in, c.Get(headerIdempotencyKey))
	if err != nil {
		return err
	}
	return posted(c, fiber.StatusCreated, res.Posted)
}

// headerIdempotencyKey names the key of a posting: sent by a client to make
// a retry safe, answered with the key the posting is stored under (the
// client's, or one the server made), to ask again with.
const headerIdempotencyKey = "Idempotency-Key"

// posted answers a posting (a transfer, an accepted request, a deposit or a
// withdrawal) with its stored body as it is: a replay answers exactly as
// the first time did, with Idempotent-Replayed: true.
func posted(c fiber.Ctx, status int, p bank.Posted) error {
	c.Set(headerIdempotencyKey, p.Key)
	if p.Replayed {
		c.Set("Idempotent-Replayed", "true")
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Status(status).Send(p.Body)
}
