package bank

import (
	"strings"
	"testing"
	"time"

	"meridian/pkg/errs"
)

func newPAT(t *testing.T, s *Service, a Actor, scopes ...string) NewAccessToken {
	t.Helper()
	tok, err := s.CreateAccessToken(ctx, a, TokenInput{Name: "script", Scopes: scopes, ExpiresInDays: 30, Password: testPassword})
	if err != nil {
		t.Fatalf("create token: %v", err)
	}
	return tok
}

func TestAccessTokenLifecycle(t *testing.T) {
	s := newService(t)
	alice := newCustomer(t, s, "Alice Ames")
	tok := newPAT(t, s, alice, ScopeTransactionsRead, ScopeAccountsRead, ScopeAccountsRead)
	if !strings.HasPrefix(tok.Token, PATPrefix) || len(tok.Token) < 40 {
		t.Fatalf("token text %q", tok.Token)
	}
	if got := strings.Join(tok.Scopes, " "); got != "accounts:read transactions:read" {
		t.Fatalf("scopes %q: want them once each, in the order of Scopes", got)
	}
	if d := time.Until(tok.ExpiresAt); d < 29*24*time.Hour || d > 30*24*time.Hour+time.Minute {
		t.Fatalf("expires in %v, want 30 days", d)
	}
	var stored []byte
	if err := s.db.Get(&stored, `SELECT token_hash FROM auth_tokens WHERE id = $1`, tok.ID); err != nil || strings.Contains(string(stored), tok.Token) || len(stored) != 32 {
		t.Fatalf("the database keeps %x (%v): want only a SHA-256", stored, err)
	}
	a, err := s.Authenticate(ctx, tok.Token)
	if err != nil || a.UserID != alice.UserID || a.Kind != KindPAT || !a.Scoped() {
		t.Fatalf("authenticate: %+v %v", a, err)
	}
	if err := a.RequireScope(ScopeTransfersWrite); errs.As(err).Code != "insufficient_scope" {
		t.Fatalf("a scope the token lacks: %v", err)
	}
	if err := a.RequireScope(ScopeAccountsRead); err != nil {
		t.Fatalf("a scope the token holds: %v", err)
	}
	// A token never makes tokens, nor reads the sessions.
	_, err = s.CreateAccessToken(ctx, a, TokenInput{Name: "x", Scopes: []string{ScopeAccountsRead}, ExpiresInDays: 1, Password: testPassword})
	wantKind(t, err, errs.Forbidden, "insufficient_scope")
	_, err = s.ListSessions(ctx, a)
	wantKind(t, err, errs.Forbidden, "insufficient_scope")
	_, err = s.AuthenticateLive(ctx, tok.Token, "")
	wantKind(t, err, errs.Forbidden, "insufficient_scope")

	list, err := s.ListAccessTokens(ctx, alice)
	if err != nil || len(list) != 1 || list[0].ID != tok.ID || list[0].Name != "script" {
		t.Fatalf("list: %+v %v", list, err)
	}
	sessions, _ := s.ListSessions(ctx, alice)
	for _, se := range sessions {
		if se.ID == tok.ID {
			t.Fatal("an access token is listed among the sessions")
		}
	}
	bob := newCustomer(t, s, "Bob Best")
	wantKind(t, s.RevokeAccessToken(ctx, bob, tok.ID), errs.NotFound, "token_not_found")
	if err := s.RevokeAccessToken(ctx, alice, tok.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Authenticate(ctx, tok.Token)
	wantKind(t, err, errs.Unauthorized, "invalid_token")
	wantKind(t, s.RevokeAccessToken(ctx, alice, tok.ID), errs.NotFound, "token_not_found")
	if n := auditCount(t, s, "TOKEN_CREATE"); n != 1 {
		t.Fatalf("TOKEN_CREATE rows: %d", n)
	}
	if n := auditCount(t, s, "TOKEN_REVOKE"); n != 1 {
		t.Fatalf("TOKEN_REVOKE rows: %d", n)
	}
}

func TestAccessTokenRefusals(t *testing.T) {
	s := newService(t)
	alice := newCustomer(t, s, "Alice Ames")
	in := func(mod func(*TokenInput)) TokenInput {
		i := TokenInput{Name: "ci", Scopes: []string{ScopeAccountsRead}, ExpiresInDays: 7, Password: testPassword}
		mod(&i)
		return i
	}
	for name, c := range map[string]struct {
		in   TokenInput
		kind errs.Kind
		code string
	}{
		"no name":        {in(func(i *TokenInput) { i.Name = "" }), errs.Invalid, "invalid_input"},
		"no scopes":      {in(func(i *TokenInput) { i.Scopes = nil }), errs.Invalid, "invalid_input"},
		"unknown scope":  {in(func(i *TokenInput) { i.Scopes = []string{"everything"} }), errs.Invalid, "invalid_input"},
		"admin scope":    {in(func(i *TokenInput) { i.Scopes = []string{ScopeAdminRead} }), errs.Forbidden, "scope_not_allowed"},
		"zero days":      {in(func(i *TokenInput) { i.ExpiresInDays = 0 }), errs.Invalid, "invalid_input"},
		"366 days":       {in(func(i *TokenInput) { i.ExpiresInDays = 366 }), errs.Invalid, "invalid_input"},
		"no password":    {in(func(i *TokenInput) { i.Password = "" }), errs.Invalid, "invalid_input"},
		"wrong password": {in(func(i *TokenInput) { i.Password = "wrong-password" }), errs.Invalid, "invalid_input"},
	} {
		_, err := s.CreateAccessToken(ctx, alice, c.in)
		if e := errs.As(err); err == nil || e.Kind != c.kind || e.Code != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
	if n := auditCount(t, s, "TOKEN_CREATE_FAILED"); n != 1 {
		t.Fatalf("a wrong password writes one audit row, got %d", n)
	}
	_, err := s.CreateAccessToken(ctx, CLIActor, in(func(*TokenInput) {}))
	wantKind(t, err, errs.Forbidden, "")
	admin := newAdmin(t, s)
	if _, err := s.CreateAccessToken(ctx, admin, in(func(i *TokenInput) { i.Scopes = []string{ScopeAdminRead, ScopeAdminWrite} })); err != nil {
		t.Fatalf("an admin's admin scopes: %v", err)
	}
}

func TestAccessTokenNeedsTwoFactorCode(t *testing.T) {
	s := newService(t)
	alice := newCustomer(t, s, "Alice Ames")
	secret, _ := enableTwoFactor(t, s, alice)
	// Signed in with the password alone a moment ago, then two-factor
	// sign-in turned on: the fresh session never passed it, so it does not
	// stand for a code.
	in0 := TokenInput{Name: "now", Scopes: []string{ScopeAccountsRead}, ExpiresInDays: 7, Password: testPassword}
	_, err := s.CreateAccessToken(ctx, alice, in0)
	wantKind(t, err, errs.Invalid, "invalid_input")
	// The session signed in before two-factor sign-in was on, a minute ago:
	// it does not stand for a code.
	later := time.Now().Add(FreshSignIn)
	s.SetClock(func() time.Time { return later })
	in := TokenInput{Name: "ci", Scopes: []string{ScopeAccountsRead}, ExpiresInDays: 7, Password: testPassword}
	_, err = s.CreateAccessToken(ctx, alice, in)
	wantKind(t, err, errs.Invalid, "invalid_input")
	in.Code = wrongCodeAt(t, secret, later)
	_, err = s.CreateAccessToken(ctx, alice, in)
	wantKind(t, err, errs.Invalid, "invalid_input")
	in.Code = codeAt(t, secret, later)
	if _, err := s.CreateAccessToken(ctx, alice, in); err != nil {
		t.Fatalf("with a current code: %v", err)
	}
	if _, err := s.CreateAccessToken(ctx, alice, in); err == nil {
		t.Fatal("the same code twice")
	}

	// A session that has just passed two-factor sign-in stands for the code.
	later = later.Add(time.Minute)
	me, err := s.Me(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.VerifyTwoFactor(ctx, VerifyInput{Challenge: challengeFor(t, s, me.Email), Code: codeAt(t, secret, later)})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := s.Authenticate(ctx, res.Token)
	if err != nil {
		t.Fatal(err)
	}
	in.Code = ""
	if _, err := s.CreateAccessToken(ctx, fresh, in); err != nil {
		t.Fatalf("a fresh two-factor session without a code: %v", err)
	}
}

func TestAccessTokenEndsWithItsUserAndItsTime(t *testing.T) {
	s := newService(t)
	s.SessionFeed(true) // answer from the cache as serve does: the ends must reach it
	alice := newCustomer(t, s, "Alice Ames")
	tok := newPAT(t, s, alice, ScopeAccountsRead)
	if _, err := s.Authenticate(ctx, tok.Token); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetUserActive(ctx, CLIActor, alice.UserID, false); err != nil {
		t.Fatal(err)
	}
	_, err := s.Authenticate(ctx, tok.Token)
	wantKind(t, err, errs.Unauthorized, "user_deactivated")
	if _, err := s.SetUserActive(ctx, CLIActor, alice.UserID, true); err != nil {
		t.Fatal(err)
	}
	_, err = s.Authenticate(ctx, tok.Token)
	wantKind(t, err, errs.Unauthorized, "invalid_token") // reactivating brings no token back

	bob := newCustomer(t, s, "Bob Best")
	tok = newPAT(t, s, bob, ScopeAccountsRead)
	s.SetClock(func() time.Time { return time.Now().Add(31 * 24 * time.Hour) })
	_, err = s.Authenticate(ctx, tok.Token)
	wantKind(t, err, errs.Unauthorized, "invalid_token")
}

func TestAccessTokenCannotBeGuessed(t *testing.T) {
	s := newService(t)
	for _, tok := range []string{PATPrefix, PATPrefix + "x", OAuthPrefix + strings.Repeat("A", 43), PATPrefix + strings.Repeat("é", 300)} {
		_, err := s.Authenticate(ctx, tok)
		wantKind(t, err, errs.Unauthorized, "invalid_token")
	}
}

// TestAccessTokenRevokedOnAnotherInstance: an instance that answers a
// token from memory forgets it when the revocation's announcement (its
// token id, on meridian_revoked) reaches it, though it keys the token by
// its hash.
func TestAccessTokenRevokedOnAnotherInstance(t *testing.T) {
	s := newService(t)
	other := New(s.db, s.tokens, Settings{})
	other.SessionFeed(true)
	alice := newCustomer(t, s, "Alice Ames")
	tok := newPAT(t, s, alice, ScopeAccountsRead)
	a, err := other.Authenticate(ctx, tok.Token)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeAccessToken(ctx, alice, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Authenticate(ctx, tok.Token); err != nil {
		t.Fatalf("before the announcement the other instance answers from memory: %v", err)
	}
	other.ForgetSession(a.TokenID) // what its listener does with the announcement
	_, err = other.Authenticate(ctx, tok.Token)
	wantKind(t, err, errs.Unauthorized, "invalid_token")
}
