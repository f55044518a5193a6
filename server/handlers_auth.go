package server

import (
	"github.com/gofiber/fiber/v3"

	"meridian/pkg/bank"
)

func (s *Server) register(c fiber.Ctx) error {
	var in bank.RegisterInput
	if err := decode(c, &in); err != nil {
		return err
	}
	u, err := s.svc.Register(c.Context(), bank.Actor{}, in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(fiber.Map{"message": "Registration successful", "user": u})
}

func (s *Server) login(c fiber.Ctx) error {
	var in bank.LoginInput
	if err := decode(c, &in); err != nil {
		return err
	}
	in.IP, in.UserAgent = s.clientIP(c), c.Get(fiber.HeaderUserAgent)
	res, err := s.svc.Login(c.Context(), in)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	if res.SecondFactor != nil { // the password was right; the code comes next (POST /api/auth/2fa/verify)
		return c.JSON(res.SecondFactor)
	}
	return c.JSON(res)
}

func (s *Server) logout(c fiber.Ctx) error {
	if err := s.svc.Logout(c.Context(), actor(c)); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (s *Server) me(c fiber.Ctx) error {
	u, err := s.svc.Me(c.Context(), actor(c))
	if err != nil {
		return err
	}
	return c.JSON(u)
}

// passwordResetInput is the body of POST /api/user/password-reset.
type passwordResetInput struct {
	OldPassword string `json:"old_password"`
	NewPassword string `json:"new_password"`
}

func (s *Server) resetPassword(c fiber.Ctx) error {
	var in passwordResetInput
	if err := decode(c, &in); err != nil {
		return err
	}
	if err := s.svc.ResetPassword(c.Context(), actor(c), in.OldPassword, in.NewPassword); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"message": "Password reset successful"})
}
