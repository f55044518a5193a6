package server

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"meridian/pkg/bank"
)

// scopeTable is what every route lets a scoped token reach, written out
// apart from routes.go: "" for a route no scoped token reaches (a session
// only), "any" for one every token reaches whatever its scopes, "public"
// for one that needs no token at all. A route missing here fails the test,
// so a new route gets a deliberate entry.
var scopeTable = map[string]string{
	"GET /healthz": "public", "GET /readyz": "public", "GET /metrics": "public", "GET /api/openapi.json": "public",
	"GET /api/config": "public", "POST /api/auth/register": "public", "POST /register": "public",
	"POST /api/auth/login": "public", "POST /login": "public", "POST /api/auth/2fa/verify": "public", "GET /ws": "public",

	"GET /.well-known/openid-configuration": "public", "GET /oauth/authorize": "public", "POST /oauth/authorize": "public",
	"POST /oauth/token": "public", "GET /oauth/keys": "public", "GET /oauth/userinfo": "public", "POST /oauth/userinfo": "public",
	"POST /oauth/revoke": "public", "POST /oauth/introspect": "public",
	"GET /api/auth/connected-apps": "", "DELETE /api/auth/connected-apps/:id": "", "GET /api/oauth/consent": "", "POST /api/oauth/consent": "",
	"GET /api/admin/oauth-clients": bank.ScopeAdminRead, "POST /api/admin/oauth-clients": bank.ScopeAdminWrite,

	"POST /api/auth/logout": "any", "POST /auth/logout": "any", "GET /api/auth/me": "any",

	"GET /api/auth/2fa": "", "POST /api/auth/2fa/setup": "", "POST /api/auth/2fa/enable": "", "POST /api/auth/2fa/disable": "",
	"GET /api/auth/sessions": "", "POST /api/auth/sessions/revoke-others": "", "DELETE /api/auth/sessions/:id": "",
	"POST /api/auth/tokens": "", "GET /api/auth/tokens": "", "DELETE /api/auth/tokens/:id": "",

	"GET /api/admin/users":                               bank.ScopeAdminRead,
	"GET /api/admin/users/find":                          bank.ScopeAdminRead,
	"PUT /api/admin/users/:id/status":                    bank.ScopeAdminWrite,
	"PUT /api/admin/users/:id/limits":                    bank.ScopeAdminWrite,
	"POST /api/admin/assign-roles":                       bank.ScopeAdminWrite,
	"GET /api/admin/audit-logs":                          bank.ScopeAdminRead,
	"GET /api/admin/audit-logs/verify":                   bank.ScopeAdminRead,
	"GET /api/admin/audit-logs/follow":                   bank.ScopeAdminRead,
	"GET /api/admin/accounts":                            bank.ScopeAdminRead,
	"POST /api/admin/accounts/:account_number/deposit":   bank.ScopeAdminWrite,
	"POST /api/admin/accounts/:account_number/withdraw":  bank.ScopeAdminWrite,
	"GET /api/admin/admindashboard/transactions-summary": bank.ScopeAdminRead,
	"GET /api/admin/admindashboard/monthly-transactions": bank.ScopeAdminRead,
	"GET /api/admin/transactions/money-request":          bank.ScopeAdminRead,
	"GET /api/admin/transactions/history":                bank.ScopeAdminRead,
	"GET /api/admin/ledger/trial-balance":                bank.ScopeAdminRead,
	"POST /api/admin/transactions/:id/reverse":           bank.ScopeAdminWrite,
	"PUT /api/admin/fx-rates/:base/:quote":               bank.ScopeAdminWrite,
	"GET /api/admin/approvals":                           bank.ScopeAdminRead,
	"POST /api/admin/approvals/:id/approve":              bank.ScopeAdminWrite,
	"POST /api/admin/approvals/:id/reject":               bank.ScopeAdminWrite,
	"GET /api/admin/account-types":                       bank.ScopeAdminRead,
	"PUT /api/admin/account-types/:id":                   bank.ScopeAdminWrite,
	"GET /api/fx-rates":                                  "any",

	"POST /api/user/password-reset":                              "",
	"GET /api/user/account-types":                                bank.ScopeAccountsRead,
	"POST /api/user/accounts":                                    "",
	"GET /api/user/accounts":                                     bank.ScopeAccountsRead,
	"GET /api/user/accounts/:userId":                             bank.ScopeAccountsRead,
	"PUT /api/user/accounts/:id":                                 "",
	"DELETE /api/user/accounts/:id":                              "",
	"GET /api/user/account-details":                              bank.ScopeAccountsRead,
	"POST /api/user/money-transer":                               bank.ScopeTransfersWrite,
	"POST /api/user/money-transfer":                              bank.ScopeTransfersWrite,
	"GET /api/user/transactions/history":                         bank.ScopeTransactionsRead,
	"POST /api/user/scheduled-transfers":                         bank.ScopeTransfersWrite,
	"GET /api/user/scheduled-transfers":                          bank.ScopeTransactionsRead,
	"DELETE /api/user/scheduled-transfers/:id":                   bank.ScopeTransfersWrite,
	"GET /api/user/scheduled-transfers/:id/runs":                 bank.ScopeTransactionsRead,
	"GET /api/user/statements":                                   bank.ScopeTransactionsRead,
	"POST /api/user/money-request":                               bank.ScopeTransfersWrite,
	"GET /api/user/transactions/money-request":                   bank.ScopeTransactionsRead,
	"PUT /api/user/accept-money-request/:id":                     bank.ScopeTransfersWrite,
	"PUT /api/user/decline-money-request/:id":                    bank.ScopeTransfersWrite,
	"GET /api/user/payees":                                       "",
	"POST /api/user/payees":                                      "",
	"DELETE /api/user/payees/:id":                                "",
	"GET /api/user/limits":                                       bank.ScopeAccountsRead,
	"GET /api/user/dashboard/transactions-summary":               bank.ScopeTransactionsRead,
	"GET /api/user/dashboard/monthly-transactions":               bank.ScopeTransactionsRead,
	"POST /api/user/webhooks":                                    bank.ScopeTransactionsRead,
	"GET /api/user/webhooks":                                     bank.ScopeTransactionsRead,
	"DELETE /api/user/webhooks/:id":                              bank.ScopeTransactionsRead,
	"GET /api/user/webhooks/:id/deliveries":                      bank.ScopeTransactionsRead,
	"POST /api/user/webhooks/:id/deliveries/:event_id/redeliver": bank.ScopeTransactionsRead,
	"GET /api/user/notifications":                                "",
	"PUT /api/user/notifications/read-all":                       "",
	"PUT /api/user/notifications/:id/read":                       "",
	"GET /api/user/accounts/:id/interest":                        bank.ScopeAccountsRead,
	"POST /api/user/fx-quotes":                                   bank.ScopeTransfersWrite,
	"POST /api/user/fx-transfers":                                bank.ScopeTransfersWrite,
	"GET /api/user/preferences":                                  "",
	"PUT /api/user/preferences":                                  "",
	"GET /api/user/devices":                                      "",
	"POST /api/user/devices":                                     "",
	"DELETE /api/user/devices/:id":                               "",
}

var routeParam = regexp.MustCompile(`:([A-Za-z_]+)`)

// TestScopeTable tries every route with a personal access token of each
// scope: a token without the route's scope gets 403 insufficient_scope,
// one with it gets past the scope check (whatever the call then answers).
func TestScopeTable(t *testing.T) {
	e := newEnv(t)
	cust, adm := e.customer("Sam Scope"), e.admin()
	tokens := map[string]string{}
	for _, sc := range bank.Scopes {
		owner := cust
		if sc.Admin {
			owner = adm
		}
		tokens[sc.Scope] = e.pat(owner, sc.Scope)
	}
	seen := map[string]bool{}
	for _, r := range e.srv.App().GetRoutes(true) {
		if r.Method == http.MethodHead || r.Path == "/*" || r.Path == apiFallback {
			continue
		}
		key := r.Method + " " + r.Path
		if seen[key] {
			continue
		}
		seen[key] = true
		want, ok := scopeTable[key]
		if !ok {
			t.Errorf("%s is not in scopeTable: say which scope reaches it", key)
			continue
		}
		if want == "public" {
			continue
		}
		path := routeParam.ReplaceAllStringFunc(r.Path, func(p string) string {
			if p == ":account_number" {
				return "NOSUCH000"
			}
			return "987654"
		})
		for _, sc := range bank.Scopes {
			tok := tokens[sc.Scope]
			if want == "any" && strings.Contains(key, "logout") {
				owner := cust
				if sc.Admin {
					owner = adm
				}
				tok = e.pat(owner, sc.Scope) // signing out ends the token
			}
			res := e.do(r.Method, path, tok, map[string]any{})
			refused := res.Status == http.StatusForbidden && strings.Contains(string(res.Body), `"insufficient_scope"`)
			if allowed := want == "any" || want == sc.Scope; refused == allowed {
				t.Errorf("%s with a %s token: %d %s (want insufficient_scope: %v)", key, sc.Scope, res.Status, res.Body, !allowed)
			}
		}
	}
	for k := range scopeTable {
		if !seen[k] {
			t.Errorf("scopeTable names %s, which is no route", k)
		}
	}
}

// pat makes a personal access token of u's with the scopes.
func (e *testEnv) pat(u user, scopes ...string) string {
	e.t.Helper()
	res := e.want(e.do("POST", "/api/auth/tokens", u.Token, map[string]any{"name": "test " + strings.Join(scopes, ","),
		"scopes": scopes, "expires_in_days": 1, "password": "password123"}), 201, "create token")
	var tok bank.NewAccessToken
	res.Into(e.t, &tok)
	if !slices.Equal(tok.Scopes, scopes) {
		e.t.Fatalf("token scopes %v, want %v", tok.Scopes, scopes)
	}
	return tok.Token
}
