// Package server is Meridian's HTTP transport: the JSON API (Fiber), the
// WebSocket and the embedded web app, on one port. Handlers are thin: they
// read the request, call pkg/bank, and write the answer.
package server

import (
	"context"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"

	"meridian/pkg/bank"
	"meridian/pkg/errs"
)

// Options configure a Server.
type Options struct {
	Logger  *slog.Logger
	Version string
	// TrustedProxies are the peers whose X-Forwarded-For is believed
	// (config trusted_proxies); from anyone else the TCP peer is the client.
	TrustedProxies []netip.Prefix
	// AllowedOrigins are browser origins ("https://app.example.com"), besides
	// the server's own, that may open /ws (config allowed_origins).
	AllowedOrigins []string
	// WSMaxPerUser caps one user's WebSockets on this instance (config
	// ws_max_per_user; 0: 10).
	WSMaxPerUser int
	// RequestTimeout is every request's deadline (request_timeout; 0: 10 s).
	RequestTimeout time.Duration
	// OAuthIssuer is config oauth_issuer: the https address connected apps
	// reach this server at (empty: each request's own).
	OAuthIssuer string
	// AnchorDir is where this instance writes the audit chain's
	// checkpoints (anchor_dir): GET /api/admin/audit-logs/verify checks the
	// chain against them.
	AnchorDir string
	// WSQueryToken accepts /ws?token=<token>, the first app's form (config
	// ws_query_token); otherwise the token comes in a subprotocol or a header.
	WSQueryToken bool
	// Tracer, when set, records a span for each request and one for the
	// bank operation it calls (server/tracing.go); nil: no tracing.
	Tracer trace.Tracer
}

// DefaultRequestTimeout is request_timeout's default.
const DefaultRequestTimeout = 10 * time.Second

// Server is one serve instance's HTTP side.
type Server struct {
	app       *fiber.App
	svc       *bank.Service
	anchorDir string
	hub       *Hub
	log       *slog.Logger
	metrics   *Metrics
	version   string
	// trustedProxies: see Options.TrustedProxies and clientIP.
	trustedProxies []netip.Prefix
	// wsPingEvery is the keepalive period of WebSockets; the token is checked again at each.
	wsPingEvery    time.Duration
	allowedOrigins []string // lower case, no trailing slash
	wsMaxPerUser   int
	wsQueryToken   bool
	timeout        time.Duration // each request's deadline
	allow          allowTable
	// stopping: serve was told to stop; /readyz says so while the
	// instance still answers (shutdown_delay), so balancers drain it.
	stopping atomic.Bool
	tracer   trace.Tracer // nil: no tracing
	// shutdown closes when Shutdown begins; followers counts the open
	// audit follows (handlers_auditfollow.go), which Shutdown waits for.
	shutdown  chan struct{}
	stopOnce  sync.Once
	followers sync.WaitGroup
}

const (
	localRequestID = "request_id"
	localActor     = "actor"
	bodyLimit      = 1 << 20
)

// New builds the server and its routes. hub may be nil (no WebSocket pushes).
func New(svc *bank.Service, hub *Hub, o Options) *Server {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.WSMaxPerUser <= 0 {
		o.WSMaxPerUser = defaultWSMaxPerUser
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	s := &Server{svc: svc, hub: hub, shutdown: make(chan struct{}), log: o.Logger, version: o.Version, wsPingEvery: wsPingEvery,
		trustedProxies: o.TrustedProxies, wsMaxPerUser: o.WSMaxPerUser, wsQueryToken: o.WSQueryToken, timeout: o.RequestTimeout, anchorDir: o.AnchorDir}
	for _, origin := range o.AllowedOrigins {
		s.allowedOrigins = append(s.allowedOrigins, strings.ToLower(strings.TrimRight(strings.TrimSpace(origin), "/")))
	}
	if hub != nil {
		s.metrics = hub.metrics // one set of figures for HTTP and WebSocket
	} else {
		s.metrics = newMetrics(svc)
	}
	s.app = fiber.New(fiber.Config{
		AppName:        "meridian",
		BodyLimit:      bodyLimit,
		ErrorHandler:   s.handleError,
		ReadBufferSize: 16 << 10, // room for long headers; beyond it a JSON 431
		ReadTimeout:    30 * time.Second,
		WriteTimeout:   30 * time.Second,
		IdleTimeout:    120 * time.Second,
	})
	if o.Tracer != nil {
		s.tracer = o.Tracer
		s.app.Use(s.traceRequest) // first: its span covers everything else
	}
	s.app.Use(s.requestMeta, s.recoverPanics, securityHeaders, s.withDeadline, s.commitPosition)
	s.mountOAuth(o.OAuthIssuer)
	s.routes()
	s.unknownMethods()
	if s.tracer != nil {
		s.traceOperations()
	}
	return s
}

// App exposes the Fiber app (tests use App().Test).
func (s *Server) App() *fiber.App { return s.app }

// Serve answers on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	return s.app.Listener(ln, fiber.ListenConfig{DisableStartupMessage: true})
}

// Stopping makes /readyz answer 503 shutting_down from now on while
// everything else is still served: a balancer that checks /readyz stops
// sending requests before Shutdown stops accepting them.
func (s *Server) Stopping() { s.stopping.Store(true) }

// Shutdown stops gracefully, in this order: it stops accepting, waits for
// the requests in flight to finish, then closes every WebSocket with close
// code 1001 (going away) and waits for each to be closed. The caller closes
// the database only after it returns. ctx bounds the whole wait.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopOnce.Do(func() { close(s.shutdown) })
	err := s.app.ShutdownWithContext(ctx)
	s.followers.Wait()
	if s.hub != nil {
		s.hub.drain(ctx)
		s.hub.CloseAll()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for s.hub.metrics.wsConns.Load() > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-tick.C:
			}
		}
	}
	return err
}

// recoverPanics turns a panic into a logged 500 with the usual JSON shape.
func (s *Server) recoverPanics(c fiber.Ctx) (err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic", "request_id", c.Locals(localRequestID), "path", c.Path(), "panic", r)
			err = errs.E(errs.Internal, "internal", "internal")
		}
	}()
	return c.Next()
}

// requestMeta gives each request an id, logs it (the path only: a query
// string, such as /ws's token, is never logged) and counts it.
func (s *Server) requestMeta(c fiber.Ctx) error {
	start := time.Now()
	id := c.Get(fiber.HeaderXRequestID)
	if len(id) == 0 || len(id) > 64 || strings.ContainsFunc(id, func(r rune) bool { return r <= ' ' || r > '~' || r == '"' }) {
		id = uuid.NewString()
	}
	c.Locals(localRequestID, id)
	c.Set(fiber.HeaderXRequestID, id)
	err := c.Next()
	if err != nil {
		if herr := s.handleError(c, err); herr != nil {
			return herr
		}
	}
	status := c.Response().StatusCode()
	elapsed := time.Since(start)
	route := "web"
	if r := c.Route(); r != nil && r.Path != "/" && r.Path != "" {
		route = r.Path
	}
	s.metrics.observe(c.Method(), route, status, elapsed)
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	} else if route == "web" || route == "/healthz" || route == "/readyz" || route == "/metrics" {
		level = slog.LevelDebug
	}
	attrs := []any{"request_id", id, "method", c.Method(), "path", c.Path(),
		"status", status, "duration_ms", strconv.FormatFloat(float64(elapsed.Microseconds())/1000, 'f', 2, 64)}
	if sc := trace.SpanContextFromContext(c.Context()); sc.IsValid() {
		attrs = append(attrs, "trace_id", sc.TraceID().String()) // the log line leads to its trace
	}
	s.log.Log(c.Context(), level, "request", attrs...)
	return nil
}

func securityHeaders(c fiber.Ctx) error {
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set("X-Frame-Options", "DENY")
	c.Set("Referrer-Policy", "no-referrer")
	c.Set("Cross-Origin-Opener-Policy", "same-origin")
	c.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
	c.Set("Content-Security-Policy", "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'self'; form-action 'self'")
	return c.Next()
}

// access is what a route lets in besides a sign-in session (contract §9).
// Every authenticated route names its access where it is registered
// (routes.go); TestScopeTable tries every route with a token of each scope.
type access struct {
	// scope is what a personal access token or a connected app's token
	// needs; "" lets no such token in (its tokens, two-factor sign-in,
	// sessions, the password, and whatever no scope names).
	scope string
	// apps lets a connected app's token in too (with scope): the route's
	// service narrows what it does to the accounts the app was given.
	apps bool
	// anyToken lets any token in, whatever its scopes: who am I, sign out.
	anyToken bool
	// setup lets an administrator without two-factor sign-in in while
	// require_2fa_for_admins is on (who am I, sign out, turning it on).
	setup bool
}

// Accesses routes use.
var (
	sessionOnly      = access{}
	setupOnly        = access{setup: true}
	anyTokenSetup    = access{anyToken: true, setup: true}
	adminRead        = access{scope: bank.ScopeAdminRead}
	adminWrite       = access{scope: bank.ScopeAdminWrite}
	accountsRead     = access{scope: bank.ScopeAccountsRead}
	transactionsRead = access{scope: bank.ScopeTransactionsRead}
	transfersWrite   = access{scope: bank.ScopeTransfersWrite}
	appAccountsRead  = access{scope: bank.ScopeAccountsRead, apps: true}
	appHistoryRead   = access{scope: bank.ScopeTransactionsRead, apps: true}
	appTransfers     = access{scope: bank.ScopeTransfersWrite, apps: true}
	anyRate          = access{anyToken: true, apps: true}
)

// auth requires a valid bearer token that acc lets in, and stores the
// actor. With require_2fa_for_admins, an administrator without two-factor
// sign-in is refused (403 two_factor_required) unless acc is a setup call.
func (s *Server) auth(acc access) fiber.Handler {
	return func(c fiber.Ctx) error {
		a, err := s.bearer(c)
		if err != nil {
			return err
		}
		if a.Scoped() && !acc.anyToken {
			if a.Kind == bank.KindOAuth && !acc.apps {
				return bank.ErrInsufficientScope
			}
			if err := a.RequireScope(acc.scope); err != nil {
				return err
			}
		}
		if !acc.setup {
			if err := s.svc.CheckTwoFactorPolicy(a); err != nil {
				return err
			}
		}
		c.Locals(localActor, a)
		if err := s.readPosition(c, a); err != nil {
			return err
		}
		return c.Next()
	}
}

// bearer authenticates the request's Authorization: Bearer token.
func (s *Server) bearer(c fiber.Ctx) (bank.Actor, error) {
	h := c.Get(fiber.HeaderAuthorization)
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return bank.Actor{}, errs.E(errs.Unauthorized, "unauthenticated", "Sign in to continue: send Authorization: Bearer <token>")
	}
	return s.svc.Authenticate(c.Context(), strings.TrimSpace(token))
}

func actor(c fiber.Ctx) bank.Actor {
	a, _ := c.Locals(localActor).(bank.Actor)
	return a
}

// pathID reads an id path parameter; one that cannot be an id is a 404.
func pathID(c fiber.Ctx, name string) (int64, error) {
	return bank.ParsePathID(c.Params(name))
}

// queryUserID reads the optional user_id query parameter (400 when it is
// not a positive whole number).
func queryUserID(c fiber.Ctx) (*int64, error) {
	v := c.Query("user_id")
	if v == "" {
		return nil, nil
	}
	id, err := bank.ParseID("user_id", v)
	if err != nil {
		return nil, err
	}
	return &id, nil
}
