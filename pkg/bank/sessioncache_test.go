package bank

import (
	"fmt"
	"reflect"
	"testing"
)

// signInToken registers nothing: it signs an existing email in and returns the token.
func signInToken(t *testing.T, s *Service, email string) string {
	t.Helper()
	res, err := s.Login(ctx, LoginInput{Email: email, Password: testPassword})
	if err != nil {
		t.Fatalf("login %s: %v", email, err)
	}
	return res.Token
}

func newCustomerToken(t *testing.T, s *Service, name string) (string, Actor) {
	t.Helper()
	email := fmt.Sprintf("cache%d@example.test", userSeq.Add(1))
	if _, err := s.Register(ctx, Actor{}, RegisterInput{FullName: name, Email: email, PhoneNumber: "+1 555 0100", Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	tok := signInToken(t, s, email)
	a, err := s.Authenticate(ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	return tok, a
}

// While the revocation feed is connected a verified session is answered
// from memory (a change nobody announced is not seen), an announcement
// forgets it, and without the feed every check asks the database.
func TestSessionCacheOnlyWithTheFeed(t *testing.T) {
	t.Parallel()
	s := newService(t)
	tok, a := newCustomerToken(t, s, "Cara Cache")
	revokeQuietly := func() {
		t.Helper()
		// The trigger announces it, but nothing listens in this test.
		if _, err := s.db.Exec(`UPDATE auth_tokens SET revoked_at = now() WHERE jti = $1`, a.TokenID); err != nil {
			t.Fatal(err)
		}
	}

	// Off (no listener): the database answers every time.
	revokeQuietly()
	if _, err := s.Authenticate(ctx, tok); err == nil {
		t.Fatal("a revoked token was accepted with the cache off")
	}

	tok, a = newCustomerToken(t, s, "Cara Cache")
	s.SessionFeed(true)
	if _, err := s.Authenticate(ctx, tok); err != nil { // verified and kept
		t.Fatal(err)
	}
	revokeQuietly()
	got, err := s.Authenticate(ctx, tok)
	if err != nil || !reflect.DeepEqual(got, a) {
		t.Fatalf("with the feed on, the verified session should come from memory: %+v %v", got, err)
	}
	if _, err := s.CheckSession(ctx, tok); err == nil {
		t.Fatal("CheckSession must ask the database")
	}
	s.ForgetSession(a.TokenID) // what the hub does with the announcement
	if _, err := s.Authenticate(ctx, tok); err == nil {
		t.Fatal("a forgotten, revoked session was accepted")
	}

	// The feed dropping empties the cache and turns it off.
	tok, a = newCustomerToken(t, s, "Cara Cache")
	if _, err := s.Authenticate(ctx, tok); err != nil {
		t.Fatal(err)
	}
	s.SessionFeed(false)
	revokeQuietly()
	if _, err := s.Authenticate(ctx, tok); err == nil {
		t.Fatal("a revoked token was accepted after the feed dropped")
	}
	s.SessionFeed(true)
	if _, err := s.Authenticate(ctx, tok); err == nil {
		t.Fatal("a session from before the feed came back was kept")
	}
}

// Changes made by this process are forgotten before the call returns: the
// very next request of the same instance sees them, announcement or not.
func TestSessionCacheForgetsLocalChanges(t *testing.T) {
	t.Parallel()
	s := newService(t)
	s.SessionFeed(true)
	admin := newAdmin(t, s)

	tok, a := newCustomerToken(t, s, "Lou Logout")
	if err := s.Logout(ctx, a); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, tok); err == nil {
		t.Fatal("logout: the token still works")
	}

	tok, a = newCustomerToken(t, s, "Dee Active")
	if _, err := s.SetUserActive(ctx, admin, a.UserID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, tok); err == nil {
		t.Fatal("deactivation: the token still works")
	}

	tok, a = newCustomerToken(t, s, "Rob Role")
	if _, err := s.AssignRole(ctx, admin, a.UserID, []string{RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Authenticate(ctx, tok); err != nil || got.Role != RoleAdmin {
		t.Fatalf("role change: %+v %v", got, err)
	}

	tok, a = newCustomerToken(t, s, "Pat Reset")
	other := signInToken(t, s, mustEmail(t, s, a.UserID))
	if _, err := s.Authenticate(ctx, other); err != nil {
		t.Fatal(err)
	}
	if err := s.ResetPassword(ctx, a, testPassword, "another-password"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, other); err == nil {
		t.Fatal("password reset: the other session still works")
	}
	if _, err := s.Authenticate(ctx, tok); err != nil {
		t.Fatalf("password reset keeps the session it was made from: %v", err)
	}
}

func mustEmail(t *testing.T, s *Service, id int64) string {
	t.Helper()
	u, err := s.getUser(ctx, s.db, id)
	if err != nil {
		t.Fatal(err)
	}
	return u.Email
}
