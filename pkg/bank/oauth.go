package bank

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"meridian/pkg/errs"
)

// Connected apps (contract §9). Meridian is an OAuth 2.0 authorization
// server for apps a customer chooses to connect; the protocol (the
// authorization and token endpoints, PKCE, discovery, JWKS) is
// github.com/zitadel/oidc's, in pkg/oauth. What is Meridian's is here: the
// clients an administrator registers, the customer's consent (the scopes,
// and the accounts the app may see) as a grant, single-use codes, access
// tokens as rows of auth_tokens (kind oauth: they end as sessions do and
// see only the grant's accounts), refresh tokens that rotate on every use,
// a refresh token (or a code) presented twice revoking the whole grant, and
// "Disconnect".

// OAuth lifetimes.
const (
	OAuthCodeTTL    = 5 * time.Minute
	OAuthAccessTTL  = time.Hour
	OAuthRefreshTTL = 30 * 24 * time.Hour
)

// Scopes an app may ask for besides the customers' scopes.
const (
	ScopeOpenID        = "openid"
	ScopeOfflineAccess = "offline_access"
)

// OAuthClient is a registered app. Secret only when created (none for a
// public client, which proves itself by PKCE alone).
type OAuthClient struct {
	ClientID     string    `json:"client_id" db:"client_id"`
	ClientSecret string    `json:"client_secret,omitempty" db:"-"`
	Name         string    `json:"name" db:"name"`
	RedirectURIs []string  `json:"redirect_uris" db:"-"`
	Public       bool      `json:"public" db:"public"`
	CreatedAt    time.Time `json:"created_at" db:"created_at"`
}

// OAuthClientInput is the body of POST /api/admin/oauth-clients.
type OAuthClientInput struct {
	Name         string   `json:"name"`
	RedirectURIs []string `json:"redirect_uris"`
	Public       bool     `json:"public"`
}

var errClientNotFound = errs.E(errs.NotFound, "oauth_client_not_found", "No app is registered under this client_id")

// checkRedirectURI accepts an absolute https URI, an http one on a loopback
// address (an app on the customer's own machine), or, for a public client,
// a private-use scheme (com.example.app:/callback, a phone app); never a
// fragment.
func checkRedirectURI(raw string, public bool) (string, error) {
	raw, err := clean("redirect_uris", raw, 2048, true)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(raw)
	bad := errs.Field("redirect_uris", "redirect_uris must be absolute https URIs (http only on a loopback address)")
	if err != nil || u.Fragment != "" || u.Scheme == "" {
		return "", bad
	}
	switch u.Scheme {
	case "https":
		if u.Host == "" {
			return "", bad
		}
	case "http":
		h := u.Hostname()
		if h != "127.0.0.1" && h != "::1" && h != "localhost" {
			return "", bad
		}
	default:
		if !public || !strings.Contains(u.Scheme, ".") {
			return "", bad
		}
	}
	return raw, nil
}

// CreateOAuthClient registers an app; its secret (none for a public client)
// is answered once and kept as a SHA-256.
//
// Returns admin_only (403) or invalid_input.
func (s *Service) CreateOAuthClient(ctx context.Context, a Actor, in OAuthClientInput) (OAuthClient, error) {
	if err := requireAdmin(a); err != nil {
		return OAuthClient{}, err
	}
	name, err := clean("name", in.Name, MaxNameLen, true)
	if err != nil {
		return OAuthClient{}, err
	}
	if len(in.RedirectURIs) == 0 || len(in.RedirectURIs) > 10 {
		return OAuthClient{}, errs.Field("redirect_uris", "redirect_uris must hold 1 to 10 URIs")
	}
	c := OAuthClient{Name: name, Public: in.Public, ClientID: "mrd_app_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:20]}
	for _, r := range in.RedirectURIs {
		u, err := checkRedirectURI(r, in.Public)
		if err != nil {
			return OAuthClient{}, err
		}
		if !slices.Contains(c.RedirectURIs, u) {
			c.RedirectURIs = append(c.RedirectURIs, u)
		}
	}
	var hash []byte
	if !in.Public {
		if c.ClientSecret, hash, err = newOpaqueToken("mrd_cs_"); err != nil {
			return OAuthClient{}, errs.Wrap(err, "client secret")
		}
	}
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &c.CreatedAt, `INSERT INTO oauth_clients (client_id, name, redirect_uris, secret_hash)
			VALUES ($1, $2, $3, $4) RETURNING created_at`, c.ClientID, name, pq.Array(c.RedirectURIs), hash); err != nil {
			return errs.Wrap(err, "insert client")
		}
		kind := "confidential"
		if c.Public {
			kind = "public"
		}
		return audit(ctx, tx, a, AuditEntry{Action: "OAUTH_CLIENT_CREATE", Table: "oauth_clients",
			Description: fmt.Sprintf("Registered the %s app %q (%s) for %s", kind, name, c.ClientID, strings.Join(c.RedirectURIs, " "))})
	})
	return c, err
}

// validClientID: a client_id that could be one (text, at most 64 bytes);
// anything else names no app and never reaches the database.
func validClientID(id string) bool {
	return id != "" && len(id) <= 64 && checkText("client_id", id, 64, false) == nil
}

const selectClient = `SELECT client_id, name, redirect_uris, secret_hash IS NULL AS public, created_at FROM oauth_clients`

type clientRow struct {
	OAuthClient
	URIs pq.StringArray `db:"redirect_uris"`
}

func (r clientRow) client() OAuthClient {
	c := r.OAuthClient
	c.RedirectURIs = []string(r.URIs)
	return c
}

// ListOAuthClients returns the registered apps, newest first.
//
// Returns admin_only (403).
func (s *Service) ListOAuthClients(ctx context.Context, a Actor) ([]OAuthClient, error) {
	if err := requireAdmin(a); err != nil {
		return nil, err
	}
	var rows []clientRow
	if err := s.db.SelectContext(ctx, &rows, selectClient+` ORDER BY id DESC`); err != nil {
		return nil, errs.Wrap(err, "list clients")
	}
	out := make([]OAuthClient, len(rows))
	for i, r := range rows {
		out[i] = r.client()
	}
	return out, nil
}

// OAuthClientByID returns a registered app (for the protocol's checks).
//
// Returns oauth_client_not_found (404).
func (s *Service) OAuthClientByID(ctx context.Context, clientID string) (OAuthClient, error) {
	if !validClientID(clientID) {
		return OAuthClient{}, errClientNotFound
	}
	var r clientRow
	err := s.db.GetContext(ctx, &r, selectClient+` WHERE client_id = $1`, clientID)
	if notFound(err) {
		return OAuthClient{}, errClientNotFound
	}
	return r.client(), errs.Wrap(err, "find client")
}

// CheckOAuthClientSecret reports whether secret is the confidential
// client's (compared as SHA-256, in constant time by the database's
// equality on fixed-size hashes).
func (s *Service) CheckOAuthClientSecret(ctx context.Context, clientID, secret string) (bool, error) {
	if !validClientID(clientID) {
		return false, nil
	}
	var ok bool
	err := s.db.GetContext(ctx, &ok, `SELECT secret_hash = $2 FROM oauth_clients WHERE client_id = $1 AND secret_hash IS NOT NULL`, clientID, hashToken(secret))
	if notFound(err) {
		return false, nil
	}
	return ok, errs.Wrap(err, "check client secret")
}

// ConsentScreen is what the consent page shows: the app, the scopes in
// plain words and the accounts the customer may give it.
type ConsentScreen struct {
	ClientName string      `json:"client_name"`
	Scopes     []ScopeInfo `json:"scopes"`
	Accounts   []Account   `json:"accounts"`
}

// parseAppScopes reads an OAuth scope parameter: customers' scopes, openid
// and offline_access only.
func parseAppScopes(scope string) ([]string, error) {
	var out []string
	for _, sc := range strings.Fields(scope) {
		switch info, ok := scopeInfo(sc); {
		case sc == ScopeOpenID || sc == ScopeOfflineAccess:
		case !ok || info.Admin:
			return nil, errs.Field("scope", "An app may not ask for the scope "+quoteShort(sc))
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	if len(out) == 0 {
		return nil, errs.Field("scope", "scope must name at least one scope")
	}
	return out, nil
}

// describeAppScopes is DescribeScopes with openid in plain words.
func describeAppScopes(scopes []string) []ScopeInfo {
	out := DescribeScopes(scopes)
	if slices.Contains(scopes, ScopeOpenID) {
		out = append([]ScopeInfo{{Scope: ScopeOpenID, Description: "Know who you are: your name and email"}}, out...)
	}
	return out
}

// OAuthConsentScreen returns what the consent page shows for client_id
// asking for scope.
//
// Returns customer_only or insufficient_scope (403), invalid_input (a
// scope an app may not ask for) or oauth_client_not_found (404).
func (s *Service) OAuthConsentScreen(ctx context.Context, a Actor, clientID, scope string) (ConsentScreen, error) {
	if err := requireConsenter(a); err != nil {
		return ConsentScreen{}, err
	}
	c, err := s.OAuthClientByID(ctx, clientID)
	if err != nil {
		return ConsentScreen{}, err
	}
	scopes, err := parseAppScopes(scope)
	if err != nil {
		return ConsentScreen{}, err
	}
	accounts, err := s.ListAccounts(ctx, a, nil)
	return ConsentScreen{ClientName: c.Name, Scopes: describeAppScopes(scopes), Accounts: accounts}, err
}

// requireConsenter: a customer, signed in (no token of a program consents
// for them).
func requireConsenter(a Actor) error {
	if a.Scoped() {
		return ErrInsufficientScope
	}
	return requireCustomer(a)
}

// ConsentInput is the body of POST /api/oauth/consent: the authorization
// request's parameters, the accounts picked, and the customer's answer.
type ConsentInput struct {
	ResponseType        string   `json:"response_type"`
	ClientID            string   `json:"client_id"`
	RedirectURI         string   `json:"redirect_uri"`
	Scope               string   `json:"scope"`
	State               string   `json:"state"`
	Nonce               string   `json:"nonce"`
	CodeChallenge       string   `json:"code_challenge"`
	CodeChallengeMethod string   `json:"code_challenge_method"`
	AccountIDs          []string `json:"account_ids"`
	Approve             bool     `json:"approve"`
}

// redirectWith adds params to the app's redirect URI.
func redirectWith(uri string, params url.Values) string {
	sep := "?"
	if strings.Contains(uri, "?") {
		sep = "&"
	}
	return uri + sep + params.Encode()
}

// OAuthConsent answers an authorization request with the customer's
// consent: refused, the app's redirect URI with error=access_denied;
// approved, a grant of the scopes over the accounts picked (replacing the
// app's earlier grant from this customer) and a code for it, good once for
// OAuthCodeTTL and only with the PKCE verifier of code_challenge (S256).
// Errors the app made come back on its redirect URI as OAuth errors; a
// client or redirect URI that is not registered is refused here, never
// redirected to.
//
// Returns customer_only or insufficient_scope (403), oauth_client_not_found
// (404), invalid_input (the redirect URI, an account not the customer's).
func (s *Service) OAuthConsent(ctx context.Context, a Actor, in ConsentInput) (string, error) {
	if err := requireConsenter(a); err != nil {
		return "", err
	}
	c, err := s.OAuthClientByID(ctx, in.ClientID)
	if err != nil {
		return "", err
	}
	if !slices.Contains(c.RedirectURIs, in.RedirectURI) {
		return "", errs.Field("redirect_uri", "redirect_uri is not one this app registered")
	}
	back := url.Values{}
	if in.State != "" {
		if err := checkText("state", in.State, 512, false); err != nil {
			return "", err
		}
		back.Set("state", in.State)
	}
	fail := func(code, desc string) (string, error) {
		back.Set("error", code)
		back.Set("error_description", desc)
		return redirectWith(in.RedirectURI, back), nil
	}
	if in.ResponseType != "code" {
		return fail("unsupported_response_type", "response_type must be code")
	}
	if in.CodeChallengeMethod != "S256" || len(in.CodeChallenge) < 43 || len(in.CodeChallenge) > 128 || strings.Trim(in.CodeChallenge, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~") != "" {
		return fail("invalid_request", "PKCE with code_challenge_method S256 is required")
	}
	if err := checkText("nonce", in.Nonce, 255, false); err != nil {
		return fail("invalid_request", "nonce is too long")
	}
	scopes, err := parseAppScopes(in.Scope)
	if err != nil {
		return fail("invalid_scope", errs.As(err).Message)
	}
	if !in.Approve {
		if err := s.inTx(ctx, func(tx *sqlx.Tx) error {
			return audit(ctx, tx, a, AuditEntry{Action: "OAUTH_DENY", Table: "oauth_grants", Description: fmt.Sprintf("Refused to connect %q (%s)", c.Name, c.ClientID)})
		}); err != nil {
			return "", err
		}
		return fail("access_denied", "The customer did not allow it")
	}
	mine, err := s.ListAccounts(ctx, a, nil)
	if err != nil {
		return "", err
	}
	accounts := []string{}
	for _, n := range in.AccountIDs {
		if !slices.ContainsFunc(mine, func(acc Account) bool { return acc.AccountNumber == n }) {
			return "", errs.Field("account_ids", "account_ids must be your own open accounts")
		}
		if !slices.Contains(accounts, n) {
			accounts = append(accounts, n)
		}
	}
	if len(accounts) == 0 && slices.ContainsFunc(scopes, func(sc string) bool { _, ok := scopeInfo(sc); return ok }) {
		return "", errs.Field("account_ids", "Pick at least one account the app may see")
	}
	code, hash, err := newOpaqueToken("")
	if err != nil {
		return "", errs.Wrap(err, "code")
	}
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		ended, err := revokeGrants(ctx, tx, `user_id = $1 AND client_id = $2`, a.UserID, c.ClientID)
		if err != nil {
			return err
		}
		defer func() { s.forgetTokens(ended) }()
		var grant int64
		if err := tx.GetContext(ctx, &grant, `INSERT INTO oauth_grants (user_id, client_id, scopes, accounts) VALUES ($1, $2, $3, $4) RETURNING id`,
			a.UserID, c.ClientID, pq.Array(scopes), pq.Array(accounts)); err != nil {
			return errs.Wrap(err, "insert grant")
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO oauth_codes (code_hash, grant_id, redirect_uri, code_challenge, nonce, expires_at)
			VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))`, hash, grant, in.RedirectURI, in.CodeChallenge, in.Nonce, OAuthCodeTTL.Seconds()); err != nil {
			return errs.Wrap(err, "insert code")
		}
		return audit(ctx, tx, a, AuditEntry{Action: "OAUTH_CONSENT", Table: "oauth_grants",
			Description: fmt.Sprintf("Connected %q (%s): %s on accounts %s", c.Name, c.ClientID, strings.Join(scopes, " "), strings.Join(accounts, ", "))})
	})
	if err != nil {
		return "", err
	}
	back.Set("code", code)
	return redirectWith(in.RedirectURI, back), nil
}

// revokeGrants revokes the active grants where names and every access token
// of theirs, and returns those tokens' ids (to forget after the commit).
func revokeGrants(ctx context.Context, tx *sqlx.Tx, where string, args ...any) ([]string, error) {
	var ended []string
	err := tx.SelectContext(ctx, &ended, `
		WITH g AS (UPDATE oauth_grants SET revoked_at = now() WHERE revoked_at IS NULL AND `+where+` RETURNING id)
		UPDATE auth_tokens SET revoked_at = now() WHERE grant_id IN (SELECT id FROM g) AND revoked_at IS NULL RETURNING jti`, args...)
	return ended, errs.Wrap(err, "revoke grants")
}

func (s *Service) forgetTokens(jtis []string) {
	for _, j := range jtis {
		s.forgetToken(j)
	}
}

// OAuthGrant is what the protocol needs of a grant to issue tokens.
type OAuthGrant struct {
	ID            int64     `db:"id"`
	UserID        int64     `db:"user_id"`
	ClientID      string    `db:"client_id"`
	Scopes        []string  `db:"-"`
	CreatedAt     time.Time `db:"created_at"`
	RedirectURI   string    `db:"redirect_uri"`
	CodeChallenge string    `db:"code_challenge"`
	Nonce         string    `db:"nonce"`
	RefreshID     int64     `db:"refresh_id"`
}

var errOAuthInvalid = errs.E(errs.Invalid, "invalid_grant", "The code or refresh token is not valid")

// RedeemOAuthCode takes a code, once: its grant, as the token endpoint
// needs it. A code presented again revokes its grant and every token of it
// (someone else holds the code).
//
// Returns invalid_grant.
func (s *Service) RedeemOAuthCode(ctx context.Context, code string) (OAuthGrant, error) {
	var g struct {
		OAuthGrant
		Scopes pq.StringArray `db:"scopes"`
		Used   bool           `db:"used"`
	}
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		err := tx.GetContext(ctx, &g, `
			WITH c AS (SELECT code_hash, used_at IS NOT NULL AS used FROM oauth_codes WHERE code_hash = $1 AND expires_at > now() FOR UPDATE),
			u AS (UPDATE oauth_codes o SET used_at = now() FROM c WHERE o.code_hash = c.code_hash AND NOT c.used RETURNING o.code_hash)
			SELECT g.id, g.user_id, g.client_id, g.scopes, g.created_at, o.redirect_uri, o.code_challenge, o.nonce, c.used
			FROM c JOIN oauth_codes o ON o.code_hash = c.code_hash JOIN oauth_grants g ON g.id = o.grant_id AND g.revoked_at IS NULL`, hashToken(code))
		if notFound(err) {
			return errOAuthInvalid
		}
		if err != nil {
			return errs.Wrap(err, "redeem code")
		}
		if g.Used {
			ended, err := revokeGrants(ctx, tx, `id = $1`, g.ID)
			s.forgetTokens(ended)
			if err != nil {
				return err
			}
			return audit(ctx, tx, Actor{UserID: g.UserID}, AuditEntry{Action: "OAUTH_CODE_REUSED", Table: "oauth_grants",
				Description: fmt.Sprintf("A code of grant %d was presented twice: the grant is revoked", g.ID)})
		}
		return nil
	})
	if err == nil && g.Used {
		err = errOAuthInvalid
	}
	g.OAuthGrant.Scopes = []string(g.Scopes)
	return g.OAuthGrant, err
}

// OAuthRefresh looks up a refresh token for the token endpoint. A refresh
// token that was used already (rotated) revokes its grant: either the app
// or a thief holds a copy, and the grant can no longer be trusted.
//
// Returns invalid_grant.
func (s *Service) OAuthRefresh(ctx context.Context, refresh string) (OAuthGrant, error) {
	var g struct {
		OAuthGrant
		Scopes pq.StringArray `db:"scopes"`
		Used   bool           `db:"used"`
	}
	err := s.db.GetContext(ctx, &g, `
		SELECT g.id, g.user_id, g.client_id, g.scopes, g.created_at, r.id AS refresh_id, r.used_at IS NOT NULL AS used
		FROM oauth_refresh_tokens r JOIN oauth_grants g ON g.id = r.grant_id AND g.revoked_at IS NULL
		WHERE r.token_hash = $1 AND r.expires_at > now()`, hashToken(refresh))
	if notFound(err) {
		return OAuthGrant{}, errOAuthInvalid
	}
	if err != nil {
		return OAuthGrant{}, errs.Wrap(err, "find refresh token")
	}
	g.OAuthGrant.Scopes = []string(g.Scopes)
	if g.Used {
		return OAuthGrant{}, s.refreshReused(ctx, g.OAuthGrant)
	}
	return g.OAuthGrant, nil
}

// refreshReused revokes the grant of a refresh token used twice.
func (s *Service) refreshReused(ctx context.Context, g OAuthGrant) error {
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		ended, err := revokeGrants(ctx, tx, `id = $1`, g.ID)
		s.forgetTokens(ended)
		if err != nil {
			return err
		}
		return audit(ctx, tx, Actor{UserID: g.UserID}, AuditEntry{Action: "OAUTH_REFRESH_REUSED", Table: "oauth_grants",
			Description: fmt.Sprintf("A refresh token of grant %d was used twice: the grant is revoked", g.ID)})
	})
	if err != nil {
		return err
	}
	return errOAuthInvalid
}

// OAuthTokens are what IssueOAuthTokens made: the access token's id (its
// text is OAuthPrefix + AccessID) and, when asked, a new refresh token.
type OAuthTokens struct {
	AccessID  string
	Refresh   string
	ExpiresAt time.Time
}

// IssueOAuthTokens issues an access token of the grant (and, with
// withRefresh, a refresh token), in one transaction that also uses up
// currentRefresh (rotation): if that refresh token was used meanwhile, the
// grant is revoked instead.
//
// Returns invalid_grant.
func (s *Service) IssueOAuthTokens(ctx context.Context, g OAuthGrant, currentRefresh string, withRefresh bool) (OAuthTokens, error) {
	var out OAuthTokens
	reused := false
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		reused = false
		if currentRefresh != "" {
			res, err := tx.ExecContext(ctx, `UPDATE oauth_refresh_tokens SET used_at = now() WHERE token_hash = $1 AND grant_id = $2 AND used_at IS NULL`, hashToken(currentRefresh), g.ID)
			if err != nil {
				return errs.Wrap(err, "rotate refresh token")
			}
			if n, _ := res.RowsAffected(); n == 0 {
				reused = true
				return nil
			}
		}
		var active bool
		if err := tx.GetContext(ctx, &active, `SELECT revoked_at IS NULL FROM oauth_grants WHERE id = $1 FOR SHARE`, g.ID); err != nil || !active {
			return errOAuthInvalid
		}
		tok, hash, err := newOpaqueToken(OAuthPrefix)
		if err != nil {
			return errs.Wrap(err, "access token")
		}
		appScopes := slices.DeleteFunc(slices.Clone(g.Scopes), func(sc string) bool { _, ok := scopeInfo(sc); return !ok })
		if err := tx.GetContext(ctx, &out.ExpiresAt, `
			INSERT INTO auth_tokens (jti, user_id, issued_at, expires_at, last_seen_at, kind, scopes, token_hash, grant_id, user_agent)
			VALUES ($1, $2, now(), now() + make_interval(secs => $3), now(), 'oauth', $4, $5, $6, $7) RETURNING expires_at`,
			uuid.NewString(), g.UserID, OAuthAccessTTL.Seconds(), pq.Array(appScopes), hash, g.ID, "app "+g.ClientID); err != nil {
			return errs.Wrap(err, "store access token")
		}
		out.AccessID = strings.TrimPrefix(tok, OAuthPrefix)
		if withRefresh {
			rt, rhash, err := newOpaqueToken("mrd_ort_")
			if err != nil {
				return errs.Wrap(err, "refresh token")
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO oauth_refresh_tokens (token_hash, grant_id, expires_at)
				VALUES ($1, $2, now() + make_interval(secs => $3))`, rhash, g.ID, OAuthRefreshTTL.Seconds()); err != nil {
				return errs.Wrap(err, "store refresh token")
			}
			out.Refresh = rt
		}
		return nil
	})
	if err == nil && reused {
		return OAuthTokens{}, s.refreshReused(ctx, g)
	}
	return out, err
}

// OAuthAccessToken is an access token of an app as userinfo and
// introspection see it.
type OAuthAccessToken struct {
	UserID   int64
	ClientID string
	Scopes   []string
	Active   bool
	Expires  time.Time
	FullName string
	Email    string
}

// OAuthTokenInfo looks up an access token by its id (the text after OAuthPrefix).
//
// Returns invalid_token.
func (s *Service) OAuthTokenInfo(ctx context.Context, accessID string) (OAuthAccessToken, error) {
	var r struct {
		UserID   int64          `db:"user_id"`
		ClientID string         `db:"client_id"`
		Scopes   pq.StringArray `db:"scopes"`
		Active   bool           `db:"active"`
		Expires  time.Time      `db:"expires_at"`
		FullName string         `db:"full_name"`
		Email    string         `db:"email"`
	}
	err := s.db.GetContext(ctx, &r, `
		SELECT t.user_id, g.client_id, g.scopes, t.revoked_at IS NULL AND t.expires_at > now() AND u.is_active AS active, t.expires_at, u.full_name, u.email
		FROM auth_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN users u ON u.id = t.user_id
		WHERE t.token_hash = $1 AND t.kind = 'oauth'`, hashToken(OAuthPrefix+accessID))
	if notFound(err) {
		return OAuthAccessToken{}, errInvalidToken
	}
	if err != nil {
		return OAuthAccessToken{}, errs.Wrap(err, "token info")
	}
	return OAuthAccessToken{UserID: r.UserID, ClientID: r.ClientID, Scopes: []string(r.Scopes), Active: r.Active, Expires: r.Expires, FullName: r.FullName, Email: r.Email}, nil
}

// RevokeOAuthToken revokes an app's access token (by id) or, given a
// refresh token, its whole grant (RFC 7009 revocation by the app).
func (s *Service) RevokeOAuthToken(ctx context.Context, clientID, tokenOrID string) error {
	var ended []string
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.SelectContext(ctx, &ended, `UPDATE auth_tokens t SET revoked_at = now() FROM oauth_grants g
			WHERE g.id = t.grant_id AND g.client_id = $2 AND t.token_hash = $1 AND t.revoked_at IS NULL RETURNING t.jti`,
			hashToken(OAuthPrefix+tokenOrID), clientID); err != nil || len(ended) > 0 {
			return errs.Wrap(err, "revoke access token")
		}
		var err error
		ended, err = revokeGrants(ctx, tx, `client_id = $2 AND id = (SELECT grant_id FROM oauth_refresh_tokens WHERE token_hash = $1)`, hashToken(tokenOrID), clientID)
		return err
	})
	s.forgetTokens(ended)
	return err
}

// ConnectedApp is one of a customer's grants, as Security lists it.
type ConnectedApp struct {
	ID         int64       `json:"id" db:"id"`
	ClientID   string      `json:"client_id" db:"client_id"`
	ClientName string      `json:"client_name" db:"client_name"`
	Scopes     []ScopeInfo `json:"scopes" db:"-"`
	Accounts   []string    `json:"accounts" db:"-"`
	CreatedAt  time.Time   `json:"created_at" db:"created_at"`
}

// ConnectedApps lists the actor's active grants, newest first.
//
// Returns insufficient_scope or customer_only (403).
func (s *Service) ConnectedApps(ctx context.Context, a Actor) ([]ConnectedApp, error) {
	if err := requireConsenter(a); err != nil {
		return nil, err
	}
	var rows []struct {
		ConnectedApp
		Scopes   pq.StringArray `db:"scopes"`
		Accounts pq.StringArray `db:"accounts"`
	}
	if err := s.db.SelectContext(ctx, &rows, `SELECT g.id, g.client_id, c.name AS client_name, g.scopes, g.accounts, g.created_at
		FROM oauth_grants g JOIN oauth_clients c ON c.client_id = g.client_id
		WHERE g.user_id = $1 AND g.revoked_at IS NULL ORDER BY g.id DESC`, a.UserID); err != nil {
		return nil, errs.Wrap(err, "connected apps")
	}
	out := make([]ConnectedApp, len(rows))
	for i, r := range rows {
		out[i] = r.ConnectedApp
		out[i].Scopes = describeAppScopes([]string(r.Scopes))
		out[i].Accounts = append([]string{}, r.Accounts...)
	}
	return out, nil
}

// DisconnectApp revokes one of the actor's grants and every token of it at once.
//
// Returns insufficient_scope or customer_only (403), connected_app_not_found (404).
func (s *Service) DisconnectApp(ctx context.Context, a Actor, id int64) error {
	if err := requireConsenter(a); err != nil {
		return err
	}
	var ended []string
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var name string
		err := tx.GetContext(ctx, &name, `SELECT c.name FROM oauth_grants g JOIN oauth_clients c ON c.client_id = g.client_id
			WHERE g.id = $1 AND g.user_id = $2 AND g.revoked_at IS NULL FOR UPDATE OF g`, id, a.UserID)
		if notFound(err) {
			return errs.E(errs.NotFound, "connected_app_not_found", "Connected app not found")
		}
		if err != nil {
			return errs.Wrap(err, "find grant")
		}
		if ended, err = revokeGrants(ctx, tx, `id = $1`, id); err != nil {
			return err
		}
		return audit(ctx, tx, a, AuditEntry{Action: "OAUTH_DISCONNECT", Table: "oauth_grants", Description: fmt.Sprintf("Disconnected %q (grant %d)", name, id)})
	})
	s.forgetTokens(ended)
	return err
}

// OAuthSigningKey returns the RSA key ID tokens are signed with, made and
// sealed (under a key derived from jwt_secret) by the first instance that
// needs it, so every instance signs with the same key.
func (s *Service) OAuthSigningKey(ctx context.Context) (string, *rsa.PrivateKey, error) {
	box := newSealBox(s.tokens.DeriveKey("oauth signing key"))
	read := func() (string, *rsa.PrivateKey, bool, error) {
		var row struct {
			ID     string `db:"id"`
			Sealed []byte `db:"sealed_key"`
		}
		err := s.db.GetContext(ctx, &row, `SELECT id, sealed_key FROM oauth_signing_keys ORDER BY created_at, id LIMIT 1`)
		if notFound(err) {
			return "", nil, false, nil
		}
		if err != nil {
			return "", nil, false, errs.Wrap(err, "read signing key")
		}
		der, err := box.open([]byte(row.ID), row.Sealed)
		if err != nil {
			return "", nil, false, errs.Wrap(err, "open signing key (was jwt_secret changed?)")
		}
		k, err := x509.ParsePKCS8PrivateKey(der)
		if err != nil {
			return "", nil, false, errs.Wrap(err, "parse signing key")
		}
		rk, ok := k.(*rsa.PrivateKey)
		return row.ID, rk, ok, nil
	}
	if id, k, ok, err := read(); ok || err != nil {
		return id, k, err
	}
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", nil, errs.Wrap(err, "generate signing key")
	}
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	raw := make([]byte, 12)
	rand.Read(raw)
	id := base64.RawURLEncoding.EncodeToString(raw)
	sealed, err := box.seal([]byte(id), der)
	if err != nil {
		return "", nil, errs.Wrap(err, "seal signing key")
	}
	// Two instances at once: both insert, and both then use the first.
	if _, err := s.db.ExecContext(ctx, `INSERT INTO oauth_signing_keys (id, sealed_key) VALUES ($1, $2)`, id, sealed); err != nil {
		return "", nil, errs.Wrap(err, "store signing key")
	}
	id2, k2, _, err := read()
	return id2, k2, err
}

// UserSubject is how the protocol names a user (the id, as text).
func UserSubject(id int64) string { return strconv.FormatInt(id, 10) }
