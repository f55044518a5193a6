package server

import (
	"github.com/gofiber/fiber/v3"

	"meridian/pkg/bank"
)

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
