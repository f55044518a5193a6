package server

import (
	"net/url"
	"strings"
	"testing"

	"meridian/pkg/bank"
)

// FuzzPrograms drives the calls of programs as clients (access tokens,
// webhooks, the consent page, connected apps, apps' registration) with any
// input: none may answer 5xx or without the JSON error shape. (The OAuth
// protocol's own endpoints answer RFC 6749's errors and are zitadel/oidc's.)
func FuzzPrograms(f *testing.F) {
	fe := newFuzzEnv(f)
	app, err := fe.svc.CreateOAuthClient(ctxBG, bank.CLIActor, bank.OAuthClientInput{Name: "Fuzz app", RedirectURIs: []string{"https://app.example/cb"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add("script", "accounts:read", "30", "password123", "hook", "transaction.created", app.ClientID, "https://app.example/cb", strings.Repeat("a", 43), "1")
	f.Add("", "admin:read", "0", "", "", "", "", "", "", "0")
	f.Add("\x00", "everything", "1e309", "\xff", "\x1b[31m", "money_request.*", "mrd_app_\x00", "javascript:alert(1)", "plain", "-1")
	f.Add(strings.Repeat("é", 300), strings.Repeat("s", 300), "99999999999999999999", strings.Repeat("p", 80), strings.Repeat("/", 3000), "", strings.Repeat("c", 100), strings.Repeat("h", 3000), strings.Repeat("=", 200), "99999999999999999999")
	f.Fuzz(func(t *testing.T, name, scope, days, password, path, event, clientID, redirect, challenge, id string) {
		fe.send(t, "POST", "/api/auth/tokens", fe.alice.token, obj("name", str(name), "scopes", "["+str(scope)+"]", "expires_in_days", val(days), "password", str(password)))
		fe.send(t, "POST", "/api/auth/tokens", fe.alice.token, obj("name", val(name), "scopes", val(scope), "expires_in_days", str(days)))
		fe.send(t, "GET", "/api/auth/tokens", fe.alice.token, nil)
		fe.send(t, "DELETE", "/api/auth/tokens/"+seg(id), fe.alice.token, nil)
		// Webhook URLs on a literal address: no DNS lookup per input.
		fe.send(t, "POST", "/api/user/webhooks", fe.alice.token, obj("url", str("https://[::1]/"+path), "events", "["+str(event)+"]"))
		fe.send(t, "POST", "/api/user/webhooks", fe.alice.token, obj("url", val(path), "events", val(event)))
		fe.send(t, "GET", "/api/user/webhooks/"+seg(id)+"/deliveries", fe.alice.token, nil)
		fe.send(t, "POST", "/api/user/webhooks/"+seg(id)+"/deliveries/"+seg(id)+"/redeliver", fe.alice.token, nil)
		fe.send(t, "DELETE", "/api/user/webhooks/"+seg(id), fe.alice.token, nil)
		fe.send(t, "GET", "/api/oauth/consent?client_id="+url.QueryEscape(clientID)+"&scope="+url.QueryEscape(scope), fe.alice.token, nil)
		fe.send(t, "POST", "/api/oauth/consent", fe.alice.token, obj("response_type", str("code"), "client_id", str(clientID), "redirect_uri", str(redirect),
			"scope", str(scope), "state", str(name), "code_challenge", str(challenge), "code_challenge_method", str("S256"), "account_ids", "["+str(fe.aliceAcct.number)+"]", "approve", "true"))
		fe.send(t, "POST", "/api/oauth/consent", fe.alice.token, obj("client_id", val(clientID), "account_ids", val(id), "approve", val(days)))
		fe.send(t, "DELETE", "/api/auth/connected-apps/"+seg(id), fe.alice.token, nil)
		fe.send(t, "POST", "/api/admin/oauth-clients", fe.admin.token, obj("name", str(name), "redirect_uris", "["+str(redirect)+"]", "public", val(days)))
	})
}
