package server

import (
	"github.com/gofiber/fiber/v3"

	"meridian/pkg/bank"
	"meridian/pkg/errs"
)

func (s *Server) listUsers(c fiber.Ctx) error {
	rows, err := s.svc.ListUsers(c.Context(), actor(c))
	if err != nil {
		return err
	}
	return c.JSON(rows)
}

// userStatusInput is the body of PUT /api/admin/users/{id}/status.
type userStatusInput struct {
	IsActive *bool `json:"is_active"`
}

// assignRolesInput is the body of POST /api/admin/assign-roles.
type assignRolesInput struct {
	UserID int64    `json:"user_id"`
	Roles  []string `json:"roles"`
}

func (s *Server) setUserStatus(c fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	var in userStatusInput
	if err := decode(c, &in); err != nil {
		return err
	}
	if in.IsActive == nil {
		return errs.Field("is_active", "is_active is required (true or false)")
	}
	row, err := s.svc.SetUserActive(c.Context(), actor(c), id, *in.IsActive)
	if err != nil {
		return err
	}
	return c.JSON(row)
}

func (s *Server) assignRoles(c fiber.Ctx) error {
	var in assignRolesInput
	if err := decode(c, &in); err != nil {
		return err
	}
	row, err := s.svc.AssignRole(c.Context(), actor(c), in.UserID, in.Roles)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"message": "Role assigned successfully", "user": row})
}

// page reads limit and before from the query.
func page(c fiber.Ctx) (bank.Page, error) {
	limit, err := bank.ParseLimit(c.Query("limit"))
	return bank.Page{Limit: limit, Before: c.Query("before")}, err
}

func (s *Server) auditLogs(c fiber.Ctx) error {
	p, err := page(c)
	if err != nil {
		return err
	}
	rows, next, err := s.svc.AuditLogs(c.Context(), actor(c), p)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"audit_logs": rows, "next_cursor": next})
}

func (s *Server) verifyAuditLog(c fiber.Ctx) error {
	rep, err := s.svc.VerifyAuditLog(c.Context(), actor(c), s.anchorDir, false)
	if err != nil {
		return err
	}
	return c.JSON(rep)
}

func (s *Server) allAccounts(c fiber.Ctx) error {
	rows, err := s.svc.AllAccounts(c.Context(), actor(c))
	if err != nil {
		return err
	}
	return c.JSON(rows)
}

func (s *Server) findUser(c fiber.Ctx) error {
	u, err := s.svc.LookupUser(c.Context(), actor(c), c.Query("user"))
	if err != nil {
		return err
	}
	return c.JSON(u)
}
