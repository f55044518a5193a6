package server

import (
	"context"

	"github.com/gofiber/fiber/v3"

	"meridian/pkg/bank"
)

func (s *Server) deposit(c fiber.Ctx) error { return s.moveFunds(c, s.svc.Deposit) }

func (s *Server) withdraw(c fiber.Ctx) error { return s.moveFunds(c, s.svc.Withdraw) }

// moveFunds answers an admin deposit or withdrawal: 201 and the ledger row.
func (s *Server) moveFunds(c fiber.Ctx, call func(context.Context, bank.Actor, string, bank.FundsInput, string) (bank.TransferResult, error)) error {
	var in bank.FundsInput
	if err := decode(c, &in); err != nil {
		return err
	}
	res, err := call(c.Context(), actor(c), c.Params("account_number"), in, c.Get(headerIdempotencyKey))
	if err != nil {
		return err
	}
	if res.Approval != nil {
		return approvalWaits(c, res.Approval)
	}
	return posted(c, fiber.StatusCreated, res.Posted)
}
