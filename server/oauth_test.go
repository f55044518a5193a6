package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// oauthApp is a registered app and a customer about to connect it.
type oauthApp struct {
	e        *testEnv
	base     string
	cfg      oauth2.Config
	customer user
	accounts []string
}

func newOAuthApp(t *testing.T, public bool) *oauthApp {
	e := newEnv(t)
	base := e.listen()
	admin := e.admin()
	redirect := "http://127.0.0.1:9/callback"
	var cl struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	e.want(e.do("POST", "/api/admin/oauth-clients", admin.Token, map[string]any{"name": "Budget Buddy", "redirect_uris": []string{redirect}, "public": public}), 201, "register app").Into(t, &cl)
	if public != (cl.ClientSecret == "") {
		t.Fatalf("client %+v: a secret for a confidential client only", cl)
	}
	a := &oauthApp{e: e, base: base, customer: e.customer("Connie Nect")}
	for range 2 {
		_, num := e.account(a.customer, 100)
		a.accounts = append(a.accounts, num)
	}
	a.cfg = oauth2.Config{ClientID: cl.ClientID, ClientSecret: cl.ClientSecret, RedirectURL: redirect,
		Endpoint: oauth2.Endpoint{AuthURL: base + "/oauth/authorize", TokenURL: base + "/oauth/token"},
		Scopes:   []string{"openid", "accounts:read", "transactions:read"}}
	return a
}

var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }, Timeout: 10 * time.Second}

// authorize goes the browser's way: the authorization endpoint sends it to
// /consent with the request; the page shows the app and answers for the
// customer. It returns the redirect the app gets.
func (a *oauthApp) authorize(t *testing.T, verifier string, approve bool, accounts ...string) *url.URL {
	t.Helper()
	res, err := noRedirects.Get(a.cfg.AuthCodeURL("st4te", oauth2.S256ChallengeOption(verifier)))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc, _ := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusFound || loc.Path != "/consent" {
		t.Fatalf("authorize: %d to %s", res.StatusCode, loc)
	}
	q := loc.Query()
	var scr struct {
		ClientName string `json:"client_name"`
		Scopes     []struct{ Scope, Description string }
		Accounts   []struct {
			AccountNumber string `json:"account_number"`
		}
	}
	a.e.want(a.e.do("GET", "/api/oauth/consent?client_id="+url.QueryEscape(q.Get("client_id"))+"&scope="+url.QueryEscape(q.Get("scope")), a.customer.Token, nil), 200, "consent screen").Into(t, &scr)
	if scr.ClientName != "Budget Buddy" || len(scr.Scopes) != 3 || scr.Scopes[1].Description != "See your accounts and their balances" || len(scr.Accounts) != 2 {
		t.Fatalf("consent screen %+v", scr)
	}
	body := map[string]any{"account_ids": accounts, "approve": approve}
	for _, k := range []string{"response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method", "nonce"} {
		body[k] = q.Get(k)
	}
	var out struct {
		RedirectTo string `json:"redirect_to"`
	}
	a.e.want(a.e.do("POST", "/api/oauth/consent", a.customer.Token, body), 200, "consent").Into(t, &out)
	to, err := url.Parse(out.RedirectTo)
	if err != nil || !strings.HasPrefix(out.RedirectTo, a.cfg.RedirectURL+"?") || to.Query().Get("state") != "st4te" {
		t.Fatalf("redirect_to %q", out.RedirectTo)
	}
	return to
}

func (a *oauthApp) get(t *testing.T, token, path string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", a.base+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestOAuthCodeFlowWithPKCE: golang.org/x/oauth2 as the app connects, reads
// only the account it was given, refreshes (the refresh token rotates), and
// a refresh token used twice revokes the whole grant.
func TestOAuthCodeFlowWithPKCE(t *testing.T) {
	a := newOAuthApp(t, false)
	ctx := context.Background()

	// Discovery and the keys.
	var disc map[string]any
	res, err := http.Get(a.base + "/.well-known/openid-configuration")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(res.Body).Decode(&disc)
	res.Body.Close()
	if disc["issuer"] != a.base || disc["token_endpoint"] != a.base+"/oauth/token" || !slices.Contains(anySlice(disc["code_challenge_methods_supported"]), "S256") {
		t.Fatalf("discovery %v", disc)
	}
	if code, body := a.get(t, "", "/oauth/keys"); code != 200 || !strings.Contains(body, `"RS256"`) {
		t.Fatalf("jwks %d %s", code, body)
	}

	verifier := oauth2.GenerateVerifier()
	to := a.authorize(t, verifier, true, a.accounts[0])
	code := to.Query().Get("code")
	if _, err := a.cfg.Exchange(ctx, code, oauth2.VerifierOption(oauth2.GenerateVerifier())); err == nil {
		t.Fatal("a wrong PKCE verifier was accepted")
	}
	// The code was taken by that failed exchange: it is good for nothing now.
	if _, err := a.cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier)); err == nil {
		t.Fatal("a code was exchanged twice")
	}

	verifier = oauth2.GenerateVerifier()
	code = a.authorize(t, verifier, true, a.accounts[0]).Query().Get("code")
	tok, err := a.cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	if tok.RefreshToken == "" || !strings.HasPrefix(tok.AccessToken, "mrd_oat_") || tok.Extra("id_token") == nil {
		t.Fatalf("token %+v", tok)
	}
	if status, body := a.get(t, tok.AccessToken, "/api/user/accounts"); status != 200 || !strings.Contains(body, a.accounts[0]) || strings.Contains(body, a.accounts[1]) {
		t.Fatalf("the app reads %d %s; want only %s", status, body, a.accounts[0])
	}
	if status, _ := a.get(t, tok.AccessToken, "/api/user/transactions/history?account_id="+a.accounts[1]); status != 404 {
		t.Fatalf("the other account's history: %d", status)
	}
	if status, body := a.get(t, tok.AccessToken, "/api/user/transactions/history"); status != 200 || strings.Contains(body, a.accounts[1]) {
		t.Fatalf("history: %d %s", status, body)
	}
	for _, p := range []string{"/api/user/payees", "/api/user/dashboard/transactions-summary", "/api/auth/tokens"} {
		if status, body := a.get(t, tok.AccessToken, p); status != 403 || !strings.Contains(body, "insufficient_scope") {
			t.Fatalf("%s with an app's token: %d %s", p, status, body)
		}
	}
	if status, body := a.get(t, tok.AccessToken, "/oauth/userinfo"); status != 200 || !strings.Contains(body, `"sub":"`+strconv.FormatInt(a.customer.ID, 10)+`"`) {
		t.Fatalf("userinfo %d %s", status, body)
	}

	// Refresh: a new access token and a new refresh token.
	old := tok.RefreshToken
	tok.Expiry = time.Now().Add(-time.Minute)
	tok2, err := a.cfg.TokenSource(ctx, tok).Token()
	if err != nil {
		t.Fatal(err)
	}
	if tok2.RefreshToken == old || tok2.AccessToken == tok.AccessToken {
		t.Fatal("the refresh token did not rotate")
	}
	if status, _ := a.get(t, tok2.AccessToken, "/api/user/accounts"); status != 200 {
		t.Fatalf("the refreshed token: %d", status)
	}
	// The old refresh token again: refused, and the whole grant is revoked.
	if _, err := a.cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: old, Expiry: time.Now().Add(-time.Minute)}).Token(); err == nil {
		t.Fatal("a used refresh token was accepted")
	}
	for _, at := range []string{tok.AccessToken, tok2.AccessToken} {
		if status, _ := a.get(t, at, "/api/user/accounts"); status != 401 {
			t.Fatalf("after refresh token reuse, an access token of the grant answers %d", status)
		}
	}
	if _, err := a.cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok2.RefreshToken, Expiry: time.Now().Add(-time.Minute)}).Token(); err == nil {
		t.Fatal("the grant's newest refresh token still works after reuse")
	}
	var reused int
	a.e.svc.DB().Get(&reused, `SELECT count(*) FROM audit_log WHERE action_type = 'OAUTH_REFRESH_REUSED'`)
	if reused != 1 {
		t.Fatalf("OAUTH_REFRESH_REUSED rows: %d", reused)
	}
}

func TestOAuthConsentDenyAndDisconnect(t *testing.T) {
	a := newOAuthApp(t, true)
	ctx := context.Background()
	to := a.authorize(t, oauth2.GenerateVerifier(), false)
	if to.Query().Get("error") != "access_denied" || to.Query().Get("code") != "" {
		t.Fatalf("refused: %s", to)
	}
	// A public client: PKCE alone, no secret.
	verifier := oauth2.GenerateVerifier()
	tok, err := a.cfg.Exchange(ctx, a.authorize(t, verifier, true, a.accounts[1]).Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	var apps []struct {
		ID         int64    `json:"id"`
		ClientName string   `json:"client_name"`
		Accounts   []string `json:"accounts"`
	}
	a.e.want(a.e.do("GET", "/api/auth/connected-apps", a.customer.Token, nil), 200, "connected apps").Into(t, &apps)
	if len(apps) != 1 || apps[0].ClientName != "Budget Buddy" || !slices.Equal(apps[0].Accounts, a.accounts[1:]) {
		t.Fatalf("connected apps %+v", apps)
	}
	other := a.e.customer("Otto Other")
	a.e.want(a.e.do("DELETE", "/api/auth/connected-apps/"+strconv.FormatInt(apps[0].ID, 10), other.Token, nil), 404, "another's app")
	a.e.want(a.e.do("DELETE", "/api/auth/connected-apps/"+strconv.FormatInt(apps[0].ID, 10), a.customer.Token, nil), 204, "disconnect")
	if status, _ := a.get(t, tok.AccessToken, "/api/user/accounts"); status != 401 {
		t.Fatalf("after Disconnect the app's token answers %d", status)
	}
	if _, err := a.cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken, Expiry: time.Now().Add(-time.Minute)}).Token(); err == nil {
		t.Fatal("after Disconnect the refresh token still works")
	}
	// No PKCE, a redirect URI not registered, an admin scope.
	res := a.e.do("POST", "/api/oauth/consent", a.customer.Token, map[string]any{"response_type": "code", "client_id": a.cfg.ClientID,
		"redirect_uri": "https://evil.example/cb", "scope": "accounts:read", "code_challenge": strings.Repeat("a", 43), "code_challenge_method": "S256", "approve": true, "account_ids": a.accounts})
	a.e.want(res, 400, "unregistered redirect")
	for _, c := range []map[string]any{{"code_challenge": "", "code_challenge_method": ""}, {"code_challenge_method": "plain"}, {"scope": "admin:read"}} {
		body := map[string]any{"response_type": "code", "client_id": a.cfg.ClientID, "redirect_uri": a.cfg.RedirectURL, "scope": "accounts:read",
			"code_challenge": strings.Repeat("a", 43), "code_challenge_method": "S256", "approve": true, "account_ids": a.accounts}
		for k, v := range c {
			body[k] = v
		}
		var out struct {
			RedirectTo string `json:"redirect_to"`
		}
		a.e.want(a.e.do("POST", "/api/oauth/consent", a.customer.Token, body), 200, "an app's error").Into(t, &out)
		if !strings.Contains(out.RedirectTo, "error=") || strings.Contains(out.RedirectTo, "code=") {
			t.Fatalf("%v: %s", c, out.RedirectTo)
		}
	}
}

func anySlice(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
