package server

import (
	"strings"
	"sync"

	"github.com/gofiber/fiber/v3"
	"github.com/valyala/fasthttp"
)

// A known path asked with a method it does not take answers 405 with an
// Allow header and the JSON error body; an unknown path 404. Fiber does the
// first itself for the web app's paths, but three cases need help:
//   - /api/* is caught by one route (so an unknown API path is a JSON 404,
//     not the web app), which would answer 404 to DELETE /api/auth/login;
//   - a method Fiber does not know at all (PROPFIND, FOO) gets a plain-text
//     501 before any route or error handler runs;
//   - the Allow header must list what the path takes.

// allowTable lists the routes for Allow, read once the routes are final.
type allowTable struct {
	once   sync.Once
	routes []fiber.Route
}

const apiFallback = "/api/*"

// allowed returns the methods routed for path, in the order Fiber knows
// them, or nil for a path no route takes.
func (s *Server) allowed(path string) []string {
	s.allow.once.Do(func() {
		for _, r := range s.app.GetRoutes(true) {
			if r.Path != apiFallback {
				s.allow.routes = append(s.allow.routes, r)
			}
		}
	})
	api := path == "/api" || strings.HasPrefix(path, "/api/")
	var out []string
	for _, m := range s.app.Config().RequestMethods {
		for _, r := range s.allow.routes {
			if r.Method != m || (api && r.Path == "/*") { // the web app does not answer under /api/
				continue
			}
			if fiber.RoutePatternMatch(path, r.Path, s.app.Config()) {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

// apiNotFound answers every /api/ request no route took: 405 when the path
// is known under another method, 404 when it is not.
func (s *Server) apiNotFound(c fiber.Ctx) error {
	if allow := s.allowed(c.Path()); len(allow) > 0 {
		c.Set(fiber.HeaderAllow, strings.Join(allow, ", "))
		return fiber.ErrMethodNotAllowed
	}
	return fiber.ErrNotFound
}

// unknownMethods wraps the server's request handler so that a method Fiber
// does not route (it would answer a plain-text 501) gets the JSON 405 with
// Allow on a known path, or the JSON 404 on an unknown one.
func (s *Server) unknownMethods() {
	srv := s.app.Server()
	next := srv.Handler
	methods := s.app.Config().RequestMethods
	srv.Handler = func(rc *fasthttp.RequestCtx) {
		for _, m := range methods {
			if string(rc.Method()) == m { // no allocation: the compiler compares in place
				next(rc)
				return
			}
		}
		c := s.app.AcquireCtx(rc)
		defer s.app.ReleaseCtx(c)
		err := fiber.ErrNotFound
		if allow := s.allowed(c.Path()); len(allow) > 0 {
			c.Set(fiber.HeaderAllow, strings.Join(allow, ", "))
			err = fiber.ErrMethodNotAllowed
		}
		if herr := s.handleError(c, err); herr != nil {
			rc.Error("internal", fiber.StatusInternalServerError)
		}
	}
}
