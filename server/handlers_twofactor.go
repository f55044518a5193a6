package server

import (
	"github.com/gofiber/fiber/v3"

	"meridian/pkg/bank"
)

func (s *Server) twoFactorStatus(c fiber.Ctx) error {
	st, err := s.svc.TwoFactorStatus(c.Context(), actor(c))
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(st)
}

func (s *Server) twoFactorSetup(c fiber.Ctx) error {
	setup, err := s.svc.SetupTwoFactor(c.Context(), actor(c))
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(setup)
}

// twoFactorCodeInput is the body of POST /api/auth/2fa/enable.
type twoFactorCodeInput struct {
	Code string `json:"code"`
}

// twoFactorDisableInput is the body of POST /api/auth/2fa/disable.
type twoFactorDisableInput struct {
	Password string `json:"password"`
	Code     string `json:"code"`
}

func (s *Server) twoFactorEnable(c fiber.Ctx) error {
	var in twoFactorCodeInput
	if err := decode(c, &in); err != nil {
		return err
	}
	codes, err := s.svc.EnableTwoFactor(c.Context(), actor(c), in.Code)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(codes)
}

func (s *Server) twoFactorDisable(c fiber.Ctx) error {
	var in twoFactorDisableInput
	if err := decode(c, &in); err != nil {
		return err
	}
	if err := s.svc.DisableTwoFactor(c.Context(), actor(c), in.Password, in.Code); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// twoFactorVerify is a sign-in's second step: it answers like login.
func (s *Server) twoFactorVerify(c fiber.Ctx) error {
	var in bank.VerifyInput
	if err := decode(c, &in); err != nil {
		return err
	}
	in.IP, in.UserAgent = s.clientIP(c), c.Get(fiber.HeaderUserAgent)
	res, err := s.svc.VerifyTwoFactor(c.Context(), in)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(res)
}
