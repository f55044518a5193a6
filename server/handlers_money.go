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
	res, err := s.svc.Transfer(c.Context(), actor(c), in, c.Get("Idempotency-Key"))
	if err != nil {
		return err
	}
	if res.Replayed {
		c.Set("Idempotent-Replayed", "true")
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Status(fiber.StatusCreated).Send(res.Body) // a replay answers as the first time did
}

// historyQuery reads the history filters and page from the query string.
func historyQuery(c fiber.Ctx) (bank.HistoryQuery, error) {
	uid, err := queryUserID(c)
	if err != nil {
		return bank.HistoryQuery{}, err
	}
	p, err := page(c)
	return bank.HistoryQuery{UserID: uid, AccountNumber: c.Query("account_id"), Type: c.Query("transaction_type"), Page: p}, err
}

func (s *Server) history(c fiber.Ctx) error {
	q, err := historyQuery(c)
	if err != nil {
		return err
	}
	rows, next, err := s.svc.History(c.Context(), actor(c), q)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"data": rows, "next_cursor": next})
}

func (s *Server) adminHistory(c fiber.Ctx) error {
	q, err := historyQuery(c)
	if err != nil {
		return err
	}
	rows, next, err := s.svc.AdminHistory(c.Context(), actor(c), q)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"data": rows, "next_cursor": next})
}

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
	r, err := s.svc.AcceptMoneyRequest(c.Context(), actor(c), id)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"message": "Money request accepted", "data": r})
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

func (s *Server) listNotifications(c fiber.Ctx) error {
	limit, err := bank.ParseLimit(c.Query("limit"))
	if err != nil {
		return err
	}
	uid, err := queryUserID(c)
	if err != nil {
		return err
	}
	if err := actor(c).CheckUserID(uid); err != nil {
		return err
	}
	rows, err := s.svc.ListNotifications(c.Context(), actor(c), c.Query("filter"), limit)
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
