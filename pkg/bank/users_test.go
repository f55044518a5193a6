package bank

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"meridian/pkg/errs"
)

func TestRegisterValidation(t *testing.T) {
	t.Parallel()
	s := newService(t)
	good := RegisterInput{FullName: "Alice Smith", Email: "alice@example.test", PhoneNumber: "+1 555 0100", Password: "password123"}
	bad := map[string]func(*RegisterInput){
		"no name":        func(in *RegisterInput) { in.FullName = " " },
		"long name":      func(in *RegisterInput) { in.FullName = strings.Repeat("a", 101) },
		"no email":       func(in *RegisterInput) { in.Email = "" },
		"bad email":      func(in *RegisterInput) { in.Email = "not-an-email" },
		"named email":    func(in *RegisterInput) { in.Email = "Alice <alice@example.test>" },
		"no phone":       func(in *RegisterInput) { in.PhoneNumber = "" },
		"bad phone":      func(in *RegisterInput) { in.PhoneNumber = "call me" },
		"short password": func(in *RegisterInput) { in.Password = "1234567" },
		"long password":  func(in *RegisterInput) { in.Password = strings.Repeat("p", 73) },
	}
	for name, mutate := range bad {
		in := good
		mutate(&in)
		_, err := s.Register(ctx, Actor{}, in)
		wantKind(t, err, errs.Invalid, "invalid_input")
		if len(errs.As(err).Fields) != 1 {
			t.Errorf("%s: want one field error, got %v", name, errs.As(err).Fields)
		}
	}
	var users int
	s.db.Get(&users, `SELECT count(*) FROM users`)
	if users != 0 {
		t.Fatalf("bad registrations left %d users behind", users)
	}
	u, err := s.Register(ctx, Actor{}, good)
	if err != nil || u.ID == 0 || u.Role != RoleUser || !u.IsActive || u.FullName != "Alice Smith" {
		t.Fatalf("register: %+v %v", u, err)
	}
	dup := good
	dup.Email = "ALICE@example.test"
	_, err = s.Register(ctx, Actor{}, dup)
	wantKind(t, err, errs.Conflict, "email_taken")
	if errs.As(err).Message != "An account with this email already exists" {
		t.Fatalf("message %q", errs.As(err).Message)
	}
	if n := auditCount(t, s, "REGISTER"); n != 1 {
		t.Fatalf("REGISTER audit rows: %d", n)
	}
	// Only the CLI (an admin) may choose a role.
	withRole := good
	withRole.Email, withRole.Role = "eve@example.test", RoleAdmin
	_, err = s.Register(ctx, Actor{}, withRole)
	wantKind(t, err, errs.Forbidden, "")
}

func TestLogin(t *testing.T) {
	t.Parallel()
	s := newService(t)
	a := newCustomer(t, s, "Bob Jones")
	u, _ := s.Me(ctx, a)

	res, err := s.Login(ctx, LoginInput{Email: strings.ToUpper(u.Email), Password: testPassword})
	if err != nil || res.Token == "" || res.User.ID != u.ID || !res.ExpiresAt.After(time.Now()) {
		t.Fatalf("login: %+v %v", res, err)
	}
	_, errWrongPassword := s.Login(ctx, LoginInput{Email: u.Email, Password: "wrong-password"})
	_, errWrongEmail := s.Login(ctx, LoginInput{Email: "nobody@example.test", Password: testPassword})
	wantKind(t, errWrongPassword, errs.Unauthorized, "invalid_credentials")
	wantKind(t, errWrongEmail, errs.Unauthorized, "invalid_credentials")
	if errWrongEmail.Error() != errWrongPassword.Error() || errs.As(errWrongEmail).Message != "Invalid credentials" {
		t.Fatalf("wrong email and wrong password differ: %q vs %q", errWrongEmail, errWrongPassword)
	}
	if n := auditCount(t, s, "LOGIN_FAILED"); n != 2 {
		t.Fatalf("LOGIN_FAILED rows: %d", n)
	}
	_, err = s.Login(ctx, LoginInput{Email: "", Password: ""})
	wantKind(t, err, errs.Invalid, "")
}

func TestLoginRateLimit(t *testing.T) {
	t.Parallel()
	s := newService(t)
	a := newCustomer(t, s, "Carol King")
	u, _ := s.Me(ctx, a)
	for i := 0; i < 10; i++ {
		_, err := s.Login(ctx, LoginInput{Email: u.Email, Password: "wrong-password"})
		wantKind(t, err, errs.Unauthorized, "")
	}
	// The eleventh try is refused even with the right password.
	_, err := s.Login(ctx, LoginInput{Email: u.Email, Password: testPassword})
	wantKind(t, err, errs.RateLimited, "too_many_attempts")
	// Another email is not affected; after 15 minutes the email is free again.
	other := newCustomer(t, s, "Dan Brown")
	if _, err := s.Me(ctx, other); err != nil {
		t.Fatal(err)
	}
	s.SetClock(func() time.Time { return time.Now().Add(16 * time.Minute) })
	if _, err := s.Login(ctx, LoginInput{Email: u.Email, Password: testPassword}); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

func TestAuthenticate(t *testing.T) {
	t.Parallel()
	s := newService(t)
	a := newCustomer(t, s, "Erin Gray")
	u, _ := s.Me(ctx, a)
	res, _ := s.Login(ctx, LoginInput{Email: u.Email, Password: testPassword})

	for _, bad := range []string{"", "garbage", res.Token + "x", strings.Replace(res.Token, ".", "x.", 1)} {
		_, err := s.Authenticate(ctx, bad)
		wantKind(t, err, errs.Unauthorized, "invalid_token")
	}
	// Expired.
	s.SetClock(func() time.Time { return time.Now().Add(2 * time.Hour) })
	_, err := s.Authenticate(ctx, res.Token)
	wantKind(t, err, errs.Unauthorized, "invalid_token")
	s.SetClock(time.Now)

	// Role and active flag are read on every request.
	if _, err := s.db.Exec(`UPDATE users SET role_id = 2 WHERE id = $1`, u.ID); err != nil {
		t.Fatal(err)
	}
	got, err := s.Authenticate(ctx, res.Token)
	if err != nil || got.Role != RoleAdmin {
		t.Fatalf("role change not seen: %+v %v", got, err)
	}
	s.db.Exec(`UPDATE users SET is_active = false WHERE id = $1`, u.ID)
	_, err = s.Authenticate(ctx, res.Token)
	wantKind(t, err, errs.Unauthorized, "user_deactivated")
	_, err = s.Login(ctx, LoginInput{Email: u.Email, Password: testPassword})
	wantKind(t, err, errs.Forbidden, "user_deactivated")
}

// TestAuthenticateLive: a live connection's user_id, when sent, must be a
// valid id and the token's own user; the token is checked first.
func TestAuthenticateLive(t *testing.T) {
	t.Parallel()
	s := newService(t)
	a, b := newCustomer(t, s, "Liv Socket"), newCustomer(t, s, "Lou Other")
	u, _ := s.Me(ctx, a)
	res, _ := s.Login(ctx, LoginInput{Email: u.Email, Password: testPassword})
	for _, uid := range []string{"", strconv.FormatInt(a.UserID, 10)} {
		if got, err := s.AuthenticateLive(ctx, res.Token, uid); err != nil || got.UserID != a.UserID {
			t.Fatalf("user_id %q: %+v %v", uid, got, err)
		}
	}
	_, err := s.AuthenticateLive(ctx, res.Token, strconv.FormatInt(b.UserID, 10))
	wantKind(t, err, errs.Forbidden, "forbidden")
	for _, bad := range []string{"0", "-1", "x", "1.5"} {
		_, err = s.AuthenticateLive(ctx, res.Token, bad)
		wantKind(t, err, errs.Invalid, "invalid_input")
	}
	_, err = s.AuthenticateLive(ctx, "garbage", "x")
	wantKind(t, err, errs.Unauthorized, "invalid_token")
}

func TestLogoutRevokes(t *testing.T) {
	t.Parallel()
	s := newService(t)
	a := newCustomer(t, s, "Finn Hale")
	if err := s.Logout(ctx, a); err != nil {
		t.Fatal(err)
	}
	var revoked bool
	s.db.Get(&revoked, `SELECT revoked_at IS NOT NULL FROM auth_tokens WHERE jti = $1`, a.TokenID)
	if !revoked {
		t.Fatal("token not revoked")
	}
	if n := auditCount(t, s, "LOGOUT"); n != 1 {
		t.Fatalf("LOGOUT rows %d", n)
	}
}

func TestResetPassword(t *testing.T) {
	t.Parallel()
	s := newService(t)
	a := newCustomer(t, s, "Gina Ray")
	u, _ := s.Me(ctx, a)
	other, _ := s.Login(ctx, LoginInput{Email: u.Email, Password: testPassword}) // a second session

	wantKind(t, s.ResetPassword(ctx, a, "wrong-password", "new-password-1"), errs.Invalid, "")
	wantKind(t, s.ResetPassword(ctx, a, testPassword, "short"), errs.Invalid, "")
	wantKind(t, s.ResetPassword(ctx, a, "", "new-password-1"), errs.Invalid, "")
	if _, err := s.Authenticate(ctx, other.Token); err != nil {
		t.Fatal("a refused reset must not revoke anything")
	}
	if err := s.ResetPassword(ctx, a, testPassword, "new-password-1"); err != nil {
		t.Fatal(err)
	}
	// The other session is revoked, this one is kept; only the new password works.
	_, err := s.Authenticate(ctx, other.Token)
	wantKind(t, err, errs.Unauthorized, "invalid_token")
	var revoked bool
	s.db.Get(&revoked, `SELECT revoked_at IS NOT NULL FROM auth_tokens WHERE jti = $1`, a.TokenID)
	if revoked {
		t.Fatal("the current session was revoked")
	}
	if _, err := s.Login(ctx, LoginInput{Email: u.Email, Password: testPassword}); err == nil {
		t.Fatal("old password still works")
	}
	if _, err := s.Login(ctx, LoginInput{Email: u.Email, Password: "new-password-1"}); err != nil {
		t.Fatal(err)
	}
	var desc string
	s.db.Get(&desc, `SELECT string_agg(description, ' ') FROM audit_log`)
	if strings.Contains(desc, "new-password-1") || strings.Contains(desc, testPassword) {
		t.Fatal("a password reached the audit log")
	}
}
