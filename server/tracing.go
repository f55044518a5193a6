package server

import (
	"slices"
	"strings"

	"github.com/gofiber/fiber/v3"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// operations names, for each route, the bank.Service method its handler
// calls: the "service" span of the request's trace, between the HTTP span
// and the SQL spans. TestTracedOperationsCoverRoutes fails when a route is
// missing here or a name is not a method of bank.Service.
var operations = map[string]string{
	"GET /api/config":                                            "PublicConfig",
	"POST /api/auth/register":                                    "Register",
	"POST /register":                                             "Register",
	"POST /api/auth/login":                                       "Login",
	"POST /login":                                                "Login",
	"POST /api/auth/logout":                                      "Logout",
	"POST /auth/logout":                                          "Logout",
	"GET /api/auth/me":                                           "Me",
	"GET /api/auth/2fa":                                          "TwoFactorStatus",
	"POST /api/auth/2fa/setup":                                   "SetupTwoFactor",
	"POST /api/auth/2fa/enable":                                  "EnableTwoFactor",
	"POST /api/auth/2fa/disable":                                 "DisableTwoFactor",
	"POST /api/auth/2fa/verify":                                  "VerifyTwoFactor",
	"GET /api/auth/sessions":                                     "ListSessions",
	"POST /api/auth/sessions/revoke-others":                      "EndOtherSessions",
	"DELETE /api/auth/sessions/:id":                              "EndSession",
	"GET /api/admin/users":                                       "ListUsers",
	"PUT /api/admin/users/:id/status":                            "SetUserActive",
	"PUT /api/admin/users/:id/limits":                            "SetDailyLimit",
	"POST /api/admin/assign-roles":                               "AssignRole",
	"GET /api/admin/audit-logs":                                  "AuditLogs",
	"GET /api/admin/audit-logs/verify":                           "VerifyAuditChain",
	"GET /api/admin/accounts":                                    "AllAccounts",
	"POST /api/admin/accounts/:account_number/deposit":           "Deposit",
	"POST /api/admin/accounts/:account_number/withdraw":          "Withdraw",
	"GET /api/admin/admindashboard/transactions-summary":         "AdminSummary",
	"GET /api/admin/admindashboard/monthly-transactions":         "AdminMonthlyUsers",
	"GET /api/admin/transactions/money-request":                  "AdminMoneyRequests",
	"GET /api/admin/transactions/history":                        "AdminHistory",
	"POST /api/user/password-reset":                              "ResetPassword",
	"GET /api/user/account-types":                                "AccountTypes",
	"POST /api/user/accounts":                                    "CreateAccount",
	"GET /api/user/accounts":                                     "ListAccounts",
	"GET /api/user/accounts/:userId":                             "ListAccounts",
	"PUT /api/user/accounts/:id":                                 "UpdateAccount",
	"DELETE /api/user/accounts/:id":                              "CloseAccount",
	"GET /api/user/account-details":                              "LookupAccount",
	"POST /api/user/money-transer":                               "Transfer",
	"POST /api/user/money-transfer":                              "Transfer",
	"GET /api/user/transactions/history":                         "History",
	"POST /api/user/scheduled-transfers":                         "CreateScheduledTransfer",
	"GET /api/user/scheduled-transfers":                          "ListScheduledTransfers",
	"DELETE /api/user/scheduled-transfers/:id":                   "CancelScheduledTransfer",
	"GET /api/user/scheduled-transfers/:id/runs":                 "ScheduledTransferRuns",
	"GET /api/user/statements":                                   "Statement",
	"POST /api/user/money-request":                               "CreateMoneyRequest",
	"GET /api/user/transactions/money-request":                   "ListMoneyRequests",
	"PUT /api/user/accept-money-request/:id":                     "AcceptMoneyRequest",
	"PUT /api/user/decline-money-request/:id":                    "DeclineMoneyRequest",
	"GET /api/user/payees":                                       "ListPayees",
	"POST /api/user/payees":                                      "CreatePayee",
	"DELETE /api/user/payees/:id":                                "DeletePayee",
	"GET /api/user/limits":                                       "DailyLimits",
	"GET /api/user/dashboard/transactions-summary":               "UserSummary",
	"GET /api/user/dashboard/monthly-transactions":               "UserMonthly",
	"GET /api/user/notifications":                                "ListNotifications",
	"PUT /api/user/notifications/read-all":                       "MarkAllNotificationsRead",
	"PUT /api/user/notifications/:id/read":                       "MarkNotificationRead",
	"GET /api/admin/ledger/trial-balance":                        "TrialBalance",
	"POST /api/admin/transactions/:id/reverse":                   "ReverseTransaction",
	"PUT /api/admin/fx-rates/:base/:quote":                       "SetFXRate",
	"GET /api/admin/approvals":                                   "Approvals",
	"POST /api/admin/approvals/:id/approve":                      "ApproveApproval",
	"POST /api/admin/approvals/:id/reject":                       "RejectApproval",
	"GET /api/admin/account-types":                               "AccountTypeRates",
	"PUT /api/admin/account-types/:id":                           "SetInterestRate",
	"GET /api/fx-rates":                                          "FXRates",
	"GET /api/user/accounts/:id/interest":                        "AccountInterest",
	"POST /api/user/fx-quotes":                                   "CreateFXQuote",
	"POST /api/user/fx-transfers":                                "Exchange",
	"GET /api/user/preferences":                                  "UserPreferences",
	"PUT /api/user/preferences":                                  "SetPreferences",
	"GET /api/user/devices":                                      "ListDevices",
	"POST /api/user/devices":                                     "RegisterDevice",
	"DELETE /api/user/devices/:id":                               "RemoveDevice",
	"GET /api/admin/users/find":                                  "LookupUser",
	"GET /api/auth/tokens":                                       "ListAccessTokens",
	"POST /api/auth/tokens":                                      "CreateAccessToken",
	"DELETE /api/auth/tokens/:id":                                "RevokeAccessToken",
	"GET /api/auth/connected-apps":                               "ConnectedApps",
	"DELETE /api/auth/connected-apps/:id":                        "DisconnectApp",
	"GET /api/oauth/consent":                                     "OAuthConsentScreen",
	"POST /api/oauth/consent":                                    "OAuthConsent",
	"GET /api/admin/oauth-clients":                               "ListOAuthClients",
	"POST /api/admin/oauth-clients":                              "CreateOAuthClient",
	"GET /api/user/webhooks":                                     "ListWebhooks",
	"POST /api/user/webhooks":                                    "CreateWebhook",
	"DELETE /api/user/webhooks/:id":                              "DeleteWebhook",
	"GET /api/user/webhooks/:id/deliveries":                      "WebhookDeliveries",
	"POST /api/user/webhooks/:id/deliveries/:event_id/redeliver": "RedeliverWebhook",
}

// untracedRoutes are the routes without a bank operation: probes, the
// documents, the web app, the WebSockets (a span would last their whole
// life), the OAuth protocol's endpoints.
var untracedRoutes = []string{"GET /healthz", "GET /readyz", "GET /metrics", "GET /api/openapi.json", "GET /*", "GET /ws",
	"GET /api/admin/audit-logs/follow",
	// The OAuth protocol (zitadel/oidc's handler, mounted by mountOAuth):
	// its request span is the trace; it calls the bank through its storage.
	"GET /.well-known/openid-configuration", "GET /oauth/authorize", "POST /oauth/authorize", "POST /oauth/token",
	"GET /oauth/keys", "GET /oauth/userinfo", "POST /oauth/userinfo", "POST /oauth/revoke", "POST /oauth/introspect"}

// propagator reads a caller's trace context: W3C traceparent and baggage.
var propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// traceRequest records a server span for the request, continuing the
// caller's trace when it sends a traceparent header, and puts it in the
// request's context, where the operation and SQL spans find their parent.
// It comes first, so the span covers the whole answer, errors included.
func (s *Server) traceRequest(c fiber.Ctx) error {
	if c.Path() == "/ws" {
		return c.Next()
	}
	ctx := propagator.Extract(c.Context(), headerCarrier{c})
	ctx, span := s.tracer.Start(ctx, c.Method(), trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
		attribute.String("http.request.method", c.Method()),
		attribute.String("url.path", c.Path())))
	defer span.End()
	c.SetContext(ctx)
	err := c.Next()
	status := c.Response().StatusCode()
	route := routeName(c)
	span.SetName(c.Method() + " " + route)
	span.SetAttributes(attribute.String("http.route", route), attribute.Int("http.response.status_code", status))
	if status >= 500 {
		span.SetStatus(codes.Error, "")
	}
	return err
}

// traceOperations wraps the last handler of each route named in operations
// in an operation span ("bank.Transfer"). It runs once, after the routes
// are registered and before the server starts.
func (s *Server) traceOperations() {
	for _, routes := range s.app.Stack() {
		for _, r := range routes {
			name, ok := operations[r.Method+" "+r.Path]
			if !ok || len(r.Handlers) == 0 {
				continue
			}
			hs := slices.Clone(r.Handlers)
			hs[len(hs)-1] = s.operation("bank."+name, hs[len(hs)-1])
			r.Handlers = hs
		}
	}
}

func (s *Server) operation(name string, h fiber.Handler) fiber.Handler {
	return func(c fiber.Ctx) error {
		ctx, span := s.tracer.Start(c.Context(), name)
		defer span.End()
		c.SetContext(ctx)
		err := h(c)
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, "")
		}
		return err
	}
}

// routeName is the route a request matched, as the metrics name it.
func routeName(c fiber.Ctx) string {
	if r := c.Route(); r != nil && r.Path != "/" && r.Path != "" {
		return r.Path
	}
	return "web"
}

// headerCarrier reads and writes trace context in Fiber's headers.
type headerCarrier struct{ c fiber.Ctx }

func (h headerCarrier) Get(key string) string { return h.c.Get(key) }
func (h headerCarrier) Set(key, value string) { h.c.Set(key, value) }
func (h headerCarrier) Keys() []string {
	var keys []string
	for k := range h.c.GetReqHeaders() {
		keys = append(keys, strings.ToLower(k))
	}
	return keys
}
