// Package oauth makes Meridian an OAuth 2.0 authorization server and
// OpenID provider for the apps a customer connects (contract §9), on
// github.com/zitadel/oidc/v3's op package: it parses and checks every
// protocol message (the authorization request, PKCE S256, client
// authentication, the code and refresh grants, discovery, JWKS, userinfo,
// introspection, revocation). What is Meridian's, the clients, consent,
// grants, codes, tokens and their rotation, lives in pkg/bank (oauth.go);
// this package is the adapter between the two (op.Storage).
//
// Why zitadel/oidc: it is maintained, certified by the OpenID Foundation,
// and leaves storage to its user, so tokens can be rows of Meridian's own
// tables and end exactly as sessions do. It serves net/http; the server
// mounts it on Fiber through Fiber's adaptor, for its few paths.
package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"

	"meridian/pkg/bank"
)

// Paths the provider answers (all under /oauth/ but discovery).
const (
	PathDiscovery  = "/.well-known/openid-configuration"
	PathAuthorize  = "/oauth/authorize"
	PathToken      = "/oauth/token"
	PathKeys       = "/oauth/keys"
	PathUserinfo   = "/oauth/userinfo"
	PathRevoke     = "/oauth/revoke"
	PathIntrospect = "/oauth/introspect"
	PathEndSession = "/oauth/end_session"
	// ConsentPath is the app's page the authorization endpoint sends the
	// browser to, with the request's parameters.
	ConsentPath = "/consent"
)

// NewProvider returns the OpenID provider over svc. issuer is the https
// address apps reach Meridian at (config oauth_issuer); empty: each
// request's own scheme and host (then http is allowed too, for a server on
// a laptop or in tests).
func NewProvider(svc *bank.Service, issuer string) (*op.Provider, error) {
	cfg := &op.Config{
		CodeMethodS256:        true,
		AuthMethodPost:        true,
		GrantTypeRefreshToken: true,
		SupportedScopes:       append([]string{oidc.ScopeOpenID, oidc.ScopeOfflineAccess}, scopeNames()...),
		SupportedClaims:       []string{"sub", "name", "email", "aud", "exp", "iat", "iss", "auth_time", "nonce"},
	}
	opts := []op.Option{
		op.WithCrypto(tokenIDs{}),
		op.WithCustomAuthEndpoint(op.NewEndpoint(PathAuthorize)),
		op.WithCustomTokenEndpoint(op.NewEndpoint(PathToken)),
		op.WithCustomKeysEndpoint(op.NewEndpoint(PathKeys)),
		op.WithCustomUserinfoEndpoint(op.NewEndpoint(PathUserinfo)),
		op.WithCustomRevocationEndpoint(op.NewEndpoint(PathRevoke)),
		op.WithCustomIntrospectionEndpoint(op.NewEndpoint(PathIntrospect)),
		op.WithCustomEndSessionEndpoint(op.NewEndpoint(PathEndSession)),
	}
	iss := op.IssuerFromHost("")
	if issuer != "" {
		iss = op.StaticIssuer(issuer)
	} else {
		opts = append(opts, op.WithAllowInsecure())
	}
	return op.NewProvider(cfg, &storage{svc: svc}, iss, opts...)
}

func scopeNames() []string {
	var out []string
	for _, s := range bank.Scopes {
		if !s.Admin {
			out = append(out, s.Scope)
		}
	}
	return out
}

// tokenIDs is the provider's "crypto" for opaque access tokens: a token's
// text is bank.OAuthPrefix + its id, and the id is 256 random bits whose
// SHA-256 only is stored (pkg/bank tokens.go). Nothing is encrypted: the
// token is looked up, never decoded, so it can be revoked. The subject
// rides in the database, not the token ("-" here; the storage ignores it).
type tokenIDs struct{}

func (tokenIDs) Encrypt(s string) (string, error) {
	id, _, _ := strings.Cut(s, ":")
	return bank.OAuthPrefix + id, nil
}

func (tokenIDs) Decrypt(s string) (string, error) {
	id, ok := strings.CutPrefix(s, bank.OAuthPrefix)
	if !ok || id == "" || strings.Contains(id, ":") {
		return "", errors.New("not an access token")
	}
	return id + ":-", nil
}

// client is a registered app as the protocol sees it.
type client struct{ c bank.OAuthClient }

func (c client) GetID() string                    { return c.c.ClientID }
func (c client) RedirectURIs() []string           { return c.c.RedirectURIs }
func (c client) PostLogoutRedirectURIs() []string { return nil }
func (c client) ApplicationType() op.ApplicationType {
	if c.c.Public {
		return op.ApplicationTypeNative // loopback http and private-use schemes
	}
	return op.ApplicationTypeWeb
}
func (c client) AuthMethod() oidc.AuthMethod {
	if c.c.Public {
		return oidc.AuthMethodNone // PKCE alone
	}
	return oidc.AuthMethodBasic
}
func (c client) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c client) GrantTypes() []oidc.GrantType {
	return []oidc.GrantType{oidc.GrantTypeCode, oidc.GrantTypeRefreshToken}
}

// LoginURL sends the browser to the app's consent page with the
// authorization request's parameters (the id CreateAuthRequest gave is
// that query).
func (c client) LoginURL(id string) string           { return ConsentPath + "?" + id }
func (c client) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeBearer }
func (c client) IDTokenLifetime() time.Duration      { return time.Hour }
func (c client) DevMode() bool                       { return false }
func (c client) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c client) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c client) IsScopeAllowed(scope string) bool     { return slices.Contains(scopeNames(), scope) }
func (c client) IDTokenUserinfoClaimsAssertion() bool { return false }
func (c client) ClockSkew() time.Duration             { return 0 }

// request is a grant on its way to tokens: the code exchange's and the
// refresh's request at once.
type request struct {
	g      bank.OAuthGrant
	scopes []string
}

func (r *request) GetID() string         { return strconv.FormatInt(r.g.ID, 10) }
func (r *request) GetACR() string        { return "" }
func (r *request) GetAMR() []string      { return []string{"pwd"} }
func (r *request) GetAudience() []string { return []string{r.g.ClientID} }
func (r *request) GetAuthTime() time.Time {
	return r.g.CreatedAt
}
func (r *request) GetClientID() string { return r.g.ClientID }
func (r *request) GetCodeChallenge() *oidc.CodeChallenge {
	return &oidc.CodeChallenge{Challenge: r.g.CodeChallenge, Method: oidc.CodeChallengeMethodS256}
}
func (r *request) GetNonce() string                   { return r.g.Nonce }
func (r *request) GetRedirectURI() string             { return r.g.RedirectURI }
func (r *request) GetResponseType() oidc.ResponseType { return oidc.ResponseTypeCode }
func (r *request) GetResponseMode() oidc.ResponseMode { return oidc.ResponseModeQuery }

// GetScopes: the grant's scopes, and offline_access, so every code
// exchange gets a refresh token.
func (r *request) GetScopes() []string {
	if r.scopes != nil {
		return r.scopes
	}
	s := slices.Clone(r.g.Scopes)
	if !slices.Contains(s, oidc.ScopeOfflineAccess) {
		s = append(s, oidc.ScopeOfflineAccess)
	}
	return s
}
func (r *request) SetCurrentScopes(s []string) { r.scopes = s }
func (r *request) GetState() string            { return "" }
func (r *request) GetSubject() string          { return bank.UserSubject(r.g.UserID) }
func (r *request) Done() bool                  { return true }

// pending is an authorization request on its way to the consent page: its
// id is the query the page gets.
type pending struct{ query string }

func (p pending) GetID() string                         { return p.query }
func (p pending) GetACR() string                        { return "" }
func (p pending) GetAMR() []string                      { return nil }
func (p pending) GetAudience() []string                 { return nil }
func (p pending) GetAuthTime() time.Time                { return time.Time{} }
func (p pending) GetClientID() string                   { return "" }
func (p pending) GetCodeChallenge() *oidc.CodeChallenge { return nil }
func (p pending) GetNonce() string                      { return "" }
func (p pending) GetRedirectURI() string                { return "" }
func (p pending) GetResponseType() oidc.ResponseType    { return oidc.ResponseTypeCode }
func (p pending) GetResponseMode() oidc.ResponseMode    { return oidc.ResponseModeQuery }
func (p pending) GetScopes() []string                   { return nil }
func (p pending) GetState() string                      { return "" }
func (p pending) GetSubject() string                    { return "" }
func (p pending) Done() bool                            { return false }

// storage is op.Storage over the bank.
type storage struct{ svc *bank.Service }

var errNotSupported = errors.New("not supported")

// CreateAuthRequest keeps nothing: the request's parameters travel to the
// consent page, which answers them with the customer's consent
// (POST /api/oauth/consent checks them again).
func (s *storage) CreateAuthRequest(_ context.Context, r *oidc.AuthRequest, _ string) (op.AuthRequest, error) {
	q := url.Values{}
	q.Set("response_type", string(r.ResponseType))
	q.Set("client_id", r.ClientID)
	q.Set("redirect_uri", r.RedirectURI)
	q.Set("scope", strings.Join(r.Scopes, " "))
	if r.State != "" {
		q.Set("state", r.State)
	}
	if r.Nonce != "" {
		q.Set("nonce", r.Nonce)
	}
	q.Set("code_challenge", r.CodeChallenge)
	q.Set("code_challenge_method", string(r.CodeChallengeMethod))
	// Spaces as %20, not +: the app's router reads the query as a URI's.
	return pending{query: strings.ReplaceAll(q.Encode(), "+", "%20")}, nil
}

func (s *storage) AuthRequestByID(context.Context, string) (op.AuthRequest, error) {
	return nil, errNotSupported // codes are made by the consent call, not /callback
}

func (s *storage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	g, err := s.svc.RedeemOAuthCode(ctx, code)
	if err != nil {
		return nil, err
	}
	return &request{g: g}, nil
}

func (s *storage) SaveAuthCode(context.Context, string, string) error { return nil }
func (s *storage) DeleteAuthRequest(context.Context, string) error    { return nil }

func (s *storage) CreateAccessToken(ctx context.Context, tr op.TokenRequest) (string, time.Time, error) {
	r, ok := tr.(*request)
	if !ok {
		return "", time.Time{}, errNotSupported
	}
	t, err := s.svc.IssueOAuthTokens(ctx, r.g, "", false)
	return t.AccessID, t.ExpiresAt, err
}

func (s *storage) CreateAccessAndRefreshTokens(ctx context.Context, tr op.TokenRequest, current string) (string, string, time.Time, error) {
	r, ok := tr.(*request)
	if !ok {
		return "", "", time.Time{}, errNotSupported
	}
	t, err := s.svc.IssueOAuthTokens(ctx, r.g, current, true)
	return t.AccessID, t.Refresh, t.ExpiresAt, err
}

func (s *storage) TokenRequestByRefreshToken(ctx context.Context, refresh string) (op.RefreshTokenRequest, error) {
	g, err := s.svc.OAuthRefresh(ctx, refresh)
	if err != nil {
		return nil, err
	}
	return &request{g: g}, nil
}

func (s *storage) TerminateSession(context.Context, string, string) error { return nil }

func (s *storage) RevokeToken(ctx context.Context, tokenOrID, _ string, clientID string) *oidc.Error {
	if err := s.svc.RevokeOAuthToken(ctx, clientID, tokenOrID); err != nil {
		return oidc.ErrServerError().WithParent(err)
	}
	return nil
}

func (s *storage) GetRefreshTokenInfo(ctx context.Context, clientID, token string) (string, string, error) {
	if !strings.HasPrefix(token, "mrd_ort_") {
		return "", "", op.ErrInvalidRefreshToken
	}
	return "", token, nil
}

type signingKey struct {
	id  string
	key any
}

func (k signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k signingKey) Algorithm() jose.SignatureAlgorithm          { return jose.RS256 }
func (k signingKey) Key() any                                    { return k.key }
func (k signingKey) ID() string                                  { return k.id }
func (k signingKey) Use() string                                 { return "sig" }

func (s *storage) SigningKey(ctx context.Context) (op.SigningKey, error) {
	id, k, err := s.svc.OAuthSigningKey(ctx)
	if err != nil {
		return nil, err
	}
	return signingKey{id: id, key: k}, nil
}

func (s *storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

func (s *storage) KeySet(ctx context.Context) ([]op.Key, error) {
	id, k, err := s.svc.OAuthSigningKey(ctx)
	if err != nil {
		return nil, err
	}
	return []op.Key{signingKey{id: id, key: &k.PublicKey}}, nil
}

func (s *storage) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	c, err := s.svc.OAuthClientByID(ctx, id)
	if err != nil {
		return nil, err
	}
	return client{c: c}, nil
}

func (s *storage) AuthorizeClientIDSecret(ctx context.Context, id, secret string) error {
	ok, err := s.svc.CheckOAuthClientSecret(ctx, id, secret)
	if err != nil {
		return oidc.ErrServerError().WithParent(err)
	}
	if !ok {
		return errors.New("wrong client secret")
	}
	return nil
}

func (s *storage) SetUserinfoFromScopes(context.Context, *oidc.UserInfo, string, string, []string) error {
	return nil
}

// SetUserinfoFromRequest fills the ID token's claims: who the customer is.
func (s *storage) SetUserinfoFromRequest(ctx context.Context, info *oidc.UserInfo, r op.IDTokenRequest, _ []string) error {
	id, err := strconv.ParseInt(r.GetSubject(), 10, 64)
	if err != nil {
		return err
	}
	u, err := s.svc.Me(ctx, bank.Actor{UserID: id})
	if err != nil {
		return err
	}
	info.Subject, info.Name, info.Email = r.GetSubject(), u.FullName, u.Email
	return nil
}

func (s *storage) SetUserinfoFromToken(ctx context.Context, info *oidc.UserInfo, tokenID, _, _ string) error {
	t, err := s.svc.OAuthTokenInfo(ctx, tokenID)
	if err != nil || !t.Active {
		return errors.New("token is not active")
	}
	info.Subject = bank.UserSubject(t.UserID)
	if slices.Contains(t.Scopes, oidc.ScopeOpenID) {
		info.Name, info.Email = t.FullName, t.Email
	}
	return nil
}

func (s *storage) SetIntrospectionFromToken(ctx context.Context, r *oidc.IntrospectionResponse, tokenID, _, clientID string) error {
	t, err := s.svc.OAuthTokenInfo(ctx, tokenID)
	if err != nil || !t.Active || t.ClientID != clientID {
		return errors.New("token is not active")
	}
	r.Active, r.Subject, r.ClientID = true, bank.UserSubject(t.UserID), t.ClientID
	r.Scope = oidc.SpaceDelimitedArray(t.Scopes)
	r.Expiration = oidc.FromTime(t.Expires)
	return nil
}

func (s *storage) GetPrivateClaimsFromScopes(context.Context, string, string, []string) (map[string]any, error) {
	return nil, nil
}

func (s *storage) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errNotSupported
}

func (s *storage) ValidateJWTProfileScopes(context.Context, string, []string) ([]string, error) {
	return nil, errNotSupported
}

func (s *storage) Health(ctx context.Context) error { return s.svc.DB().PingContext(ctx) }

// Handler is the provider as net/http (for the server's adaptor).
func Handler(p *op.Provider) http.Handler { return p }
