package server

import (
	"github.com/gofiber/fiber/v3"

	"meridian/pkg/bank"
)

// The bank's books (contract §8): exchange, reversals, four eyes, interest.

// approvalWaits answers 202 {approval}: the action waits for a second
// administrator.
func approvalWaits(c fiber.Ctx, ap *bank.Approval) error {
	return c.Status(fiber.StatusAccepted).JSON(fiber.Map{"approval": ap})
}

func (s *Server) fxRates(c fiber.Ctx) error {
	rows, err := s.svc.FXRates(c.Context(), actor(c))
	if err != nil {
		return err
	}
	return c.JSON(rows)
}

func (s *Server) setFXRate(c fiber.Ctx) error {
	var in bank.FXRateInput
	if err := decode(c, &in); err != nil {
		return err
	}
	row, err := s.svc.SetFXRate(c.Context(), actor(c), c.Params("base"), c.Params("quote"), in.Rate)
	if err != nil {
		return err
	}
	return c.JSON(row)
}

func (s *Server) createFXQuote(c fiber.Ctx) error {
	var in bank.FXQuoteInput
	if err := decode(c, &in); err != nil {
		return err
	}
	q, err := s.svc.CreateFXQuote(c.Context(), actor(c), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(q)
}

func (s *Server) fxTransfer(c fiber.Ctx) error {
	var in bank.FXTransferInput
	if err := decode(c, &in); err != nil {
		return err
	}
	res, err := s.svc.Exchange(c.Context(), actor(c), in, c.Get(headerIdempotencyKey))
	if err != nil {
		return err
	}
	return posted(c, fiber.StatusCreated, res.Posted)
}

func (s *Server) preferences(c fiber.Ctx) error {
	p, err := s.svc.UserPreferences(c.Context(), actor(c))
	if err != nil {
		return err
	}
	return c.JSON(p)
}

func (s *Server) setPreferences(c fiber.Ctx) error {
	var in bank.Preferences
	if err := decode(c, &in); err != nil {
		return err
	}
	p, err := s.svc.SetPreferences(c.Context(), actor(c), in)
	if err != nil {
		return err
	}
	return c.JSON(p)
}

func (s *Server) reverseTransaction(c fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	var in bank.ReverseInput
	if err := decode(c, &in); err != nil {
		return err
	}
	res, err := s.svc.ReverseTransaction(c.Context(), actor(c), id, in, c.Get(headerIdempotencyKey))
	if err != nil {
		return err
	}
	if res.Approval != nil {
		return approvalWaits(c, res.Approval)
	}
	return posted(c, fiber.StatusCreated, res.Posted)
}

func (s *Server) approvals(c fiber.Ctx) error {
	rows, err := s.svc.Approvals(c.Context(), actor(c), c.Query("status"))
	if err != nil {
		return err
	}
	return c.JSON(rows)
}

func (s *Server) approveApproval(c fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	d, err := s.svc.ApproveApproval(c.Context(), actor(c), id)
	if err != nil {
		return err
	}
	return c.JSON(d)
}

func (s *Server) rejectApproval(c fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	var in bank.RejectInput
	if err := decode(c, &in); err != nil {
		return err
	}
	d, err := s.svc.RejectApproval(c.Context(), actor(c), id, in)
	if err != nil {
		return err
	}
	return c.JSON(d)
}

func (s *Server) accountInterest(c fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	out, err := s.svc.AccountInterest(c.Context(), actor(c), id)
	if err != nil {
		return err
	}
	return c.JSON(out)
}

func (s *Server) accountTypeRates(c fiber.Ctx) error {
	rows, err := s.svc.AccountTypeRates(c.Context(), actor(c))
	if err != nil {
		return err
	}
	return c.JSON(rows)
}

func (s *Server) setInterestRate(c fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	var in bank.InterestRateInput
	if err := decode(c, &in); err != nil {
		return err
	}
	row, err := s.svc.SetInterestRate(c.Context(), actor(c), id, in)
	if err != nil {
		return err
	}
	return c.JSON(row)
}
