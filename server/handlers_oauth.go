package server

import (
	"github.com/gofiber/fiber/v3"
	"github.com/gofiber/fiber/v3/middleware/adaptor"

	"meridian/pkg/bank"
	"meridian/pkg/oauth"
)

// mountOAuth serves the OAuth 2.0 / OpenID Connect provider (pkg/oauth,
// net/http) on its paths: discovery and /oauth/*.
func (s *Server) mountOAuth(issuer string) {
	p, err := oauth.NewProvider(s.svc, issuer)
	if err != nil {
		panic(err) // only a malformed oauth_issuer, which config refuses
	}
	h := adaptor.HTTPHandler(p)
	for _, path := range []string{oauth.PathDiscovery, oauth.PathAuthorize, oauth.PathKeys, oauth.PathUserinfo} {
		s.app.Get(path, h)
	}
	for _, path := range []string{oauth.PathAuthorize, oauth.PathToken, oauth.PathUserinfo, oauth.PathRevoke, oauth.PathIntrospect} {
		s.app.Post(path, h)
	}
}

func (s *Server) oauthConsentScreen(c fiber.Ctx) error {
	scr, err := s.svc.OAuthConsentScreen(c.Context(), actor(c), c.Query("client_id"), c.Query("scope"))
	if err != nil {
		return err
	}
	return c.JSON(scr)
}

func (s *Server) oauthConsent(c fiber.Ctx) error {
	var in bank.ConsentInput
	if err := decode(c, &in); err != nil {
		return err
	}
	to, err := s.svc.OAuthConsent(c.Context(), actor(c), in)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(fiber.Map{"redirect_to": to})
}

func (s *Server) connectedApps(c fiber.Ctx) error {
	rows, err := s.svc.ConnectedApps(c.Context(), actor(c))
	if err != nil {
		return err
	}
	return c.JSON(rows)
}

func (s *Server) disconnectApp(c fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := s.svc.DisconnectApp(c.Context(), actor(c), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (s *Server) createOAuthClient(c fiber.Ctx) error {
	var in bank.OAuthClientInput
	if err := decode(c, &in); err != nil {
		return err
	}
	cl, err := s.svc.CreateOAuthClient(c.Context(), actor(c), in)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Status(fiber.StatusCreated).JSON(cl)
}

func (s *Server) listOAuthClients(c fiber.Ctx) error {
	rows, err := s.svc.ListOAuthClients(c.Context(), actor(c))
	if err != nil {
		return err
	}
	return c.JSON(rows)
}
