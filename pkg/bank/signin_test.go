package bank

import (
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"meridian/pkg/auth"
	"meridian/pkg/errs"
	"meridian/pkg/testdb"
)

// newServiceWith returns a Service whose settings tune may change.
func newServiceWith(t testing.TB, tune func(*Settings)) *Service {
	t.Helper()
	tokens, err := auth.NewTokens([]byte(strings.Repeat("s", 32)), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	st := Settings{RequestsTTL: time.Hour, LookupPerMinute: 1000}
	tune(&st)
	return New(testdb.New(t), tokens, st)
}

// patient waits long for a password-check slot, so a loaded test machine
// never turns a check into a 503 where the test counts 401s and 429s.
func patient(st *Settings) { st.PasswordCheckWait = time.Minute }

// loginAll runs the sign-ins at once and counts the answers by code.
func loginAll(t *testing.T, s *Service, ins []LoginInput) map[string]int {
	t.Helper()
	var mu sync.Mutex
	codes := map[string]int{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, in := range ins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, err := s.Login(ctx, in)
			code := "ok"
			if err != nil {
				code = errs.As(err).Code
			}
			mu.Lock()
			codes[code]++
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	return codes
}

// 40 wrong passwords for one email at once: exactly 10 are checked (10
// bcrypts, 10 × 401), the other 30 are refused before hashing (429).
func TestSignInThrottleHoldsUnderConcurrency(t *testing.T) {
	t.Parallel()
	s := newServiceWith(t, patient)
	a := newCustomer(t, s, "Tess Throttle")
	u, _ := s.Me(ctx, a)
	ins := make([]LoginInput, 40)
	for i := range ins {
		email := u.Email
		if i%2 == 1 {
			email = strings.ToUpper(email) // one email, compared case-insensitively
		}
		ins[i] = LoginInput{Email: email, Password: fmt.Sprintf("wrong-password-%d", i)}
	}
	before := s.Passwords().Runs()
	codes := loginAll(t, s, ins)
	if codes["invalid_credentials"] != 10 || codes["too_many_attempts"] != 30 || len(codes) != 2 {
		t.Fatalf("answers %v; want 10 invalid_credentials and 30 too_many_attempts", codes)
	}
	if n := s.Passwords().Runs() - before; n != 10 {
		t.Fatalf("%d bcrypt checks; want exactly 10", n)
	}
	if n := auditCount(t, s, "LOGIN_FAILED"); n != 10 {
		t.Fatalf("LOGIN_FAILED rows %d, want 10", n)
	}
	// The right password is refused too, without a check.
	before = s.Passwords().Runs()
	_, err := s.Login(ctx, LoginInput{Email: u.Email, Password: testPassword})
	wantKind(t, err, errs.RateLimited, "too_many_attempts")
	if errs.As(err).Message != "Too many failed sign-in attempts; try again in 15 minutes" {
		t.Fatalf("message %q", errs.As(err).Message)
	}
	if s.Passwords().Runs() != before {
		t.Fatal("a refused sign-in ran a bcrypt")
	}
}

// An unknown email is throttled like a known one (a 429 says nothing about
// whether the email exists) and costs a check of the same length.
func TestSignInThrottleUnknownEmail(t *testing.T) {
	t.Parallel()
	s := newServiceWith(t, patient)
	before := s.Passwords().Runs()
	for i := 0; i < 10; i++ {
		_, err := s.Login(ctx, LoginInput{Email: "ghost@example.test", Password: testPassword})
		wantKind(t, err, errs.Unauthorized, "invalid_credentials")
	}
	if n := s.Passwords().Runs() - before; n != 10 {
		t.Fatalf("%d checks for 10 unknown-email sign-ins; want 10 (same time as a known email)", n)
	}
	_, err := s.Login(ctx, LoginInput{Email: "GHOST@example.test", Password: testPassword})
	wantKind(t, err, errs.RateLimited, "too_many_attempts")
}

// A successful sign-in gives its claim back: it does not use up the
// customer's ten tries.
func TestSignInSuccessDoesNotCount(t *testing.T) {
	t.Parallel()
	s := newServiceWith(t, patient)
	a := newCustomer(t, s, "Sam Success")
	u, _ := s.Me(ctx, a)
	for i := 0; i < 9; i++ {
		_, err := s.Login(ctx, LoginInput{Email: u.Email, Password: "wrong-password"})
		wantKind(t, err, errs.Unauthorized, "invalid_credentials")
	}
	for i := 0; i < 3; i++ {
		if _, err := s.Login(ctx, LoginInput{Email: u.Email, Password: testPassword}); err != nil {
			t.Fatalf("sign-in %d after 9 failures: %v", i, err)
		}
	}
	_, err := s.Login(ctx, LoginInput{Email: u.Email, Password: "wrong-password"})
	wantKind(t, err, errs.Unauthorized, "invalid_credentials") // the tenth failure
	_, err = s.Login(ctx, LoginInput{Email: u.Email, Password: testPassword})
	wantKind(t, err, errs.RateLimited, "too_many_attempts")
}

// At most 50 failed sign-ins per client address per 15 minutes, whatever
// the emails; IPv6 addresses count per /64. Another address is not affected.
func TestSignInAddressLimit(t *testing.T) {
	t.Parallel()
	s := newServiceWith(t, patient)
	ip := netip.MustParseAddr("203.0.113.7")
	ins := make([]LoginInput, 60)
	for i := range ins {
		ins[i] = LoginInput{Email: fmt.Sprintf("spray%d@example.test", i), Password: testPassword, IP: ip}
	}
	before := s.Passwords().Runs()
	codes := loginAll(t, s, ins)
	if codes["invalid_credentials"] != 50 || codes["too_many_attempts"] != 10 || len(codes) != 2 {
		t.Fatalf("answers %v; want 50 invalid_credentials and 10 too_many_attempts", codes)
	}
	if n := s.Passwords().Runs() - before; n != 50 {
		t.Fatalf("%d bcrypt checks; want 50", n)
	}
	// The 61st, with a fresh email, even a malformed one or the right
	// password of a real customer, is refused.
	c := newCustomer(t, s, "Rita Real")
	cu, _ := s.Me(ctx, c)
	for _, in := range []LoginInput{
		{Email: "fresh@example.test", Password: "x-password"},
		{Email: "not an email", Password: "x-password"},
		{Email: cu.Email, Password: testPassword},
	} {
		in.IP = netip.MustParseAddr("::ffff:203.0.113.7") // the same address, IPv4-mapped
		_, err := s.Login(ctx, in)
		wantKind(t, err, errs.RateLimited, "too_many_attempts")
	}
	if _, err := s.Login(ctx, LoginInput{Email: cu.Email, Password: testPassword, IP: netip.MustParseAddr("203.0.113.8")}); err != nil {
		t.Fatalf("another address: %v", err)
	}

	// IPv6: one /64 is one address.
	for i := 0; i < 50; i++ {
		ip := netip.MustParseAddr(fmt.Sprintf("2001:db8:1:2::%x", i+1))
		_, err := s.Login(ctx, LoginInput{Email: "not an email", Password: testPassword, IP: ip})
		wantKind(t, err, errs.Unauthorized, "invalid_credentials")
	}
	_, err := s.Login(ctx, LoginInput{Email: cu.Email, Password: testPassword, IP: netip.MustParseAddr("2001:db8:1:2:ffff::1")})
	wantKind(t, err, errs.RateLimited, "too_many_attempts")
	if _, err := s.Login(ctx, LoginInput{Email: cu.Email, Password: testPassword, IP: netip.MustParseAddr("2001:db8:1:3::1")}); err != nil {
		t.Fatalf("another /64: %v", err)
	}
	// After the window the address is free again.
	s.SetClock(func() time.Time { return time.Now().Add(16 * time.Minute) })
	if _, err := s.Login(ctx, LoginInput{Email: cu.Email, Password: testPassword, IP: ip}); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

// A failed sign-in's audit row names a well-formed email, never a malformed
// string, and never the attempted password.
func TestFailedSignInAudit(t *testing.T) {
	t.Parallel()
	s := newServiceWith(t, patient)
	// Text no email field may hold (control characters, bytes that are not
	// UTF-8, past 254 characters) is refused as input before anything else:
	// 400, no query, no audit row.
	unreadable := []string{
		"x@y.test\r\nLOGIN ok",
		"a\x00b@example.test",
		"\xff\xfe@example.test",
		strings.Repeat("a", 250) + "@example.test",
	}
	// Readable text that is not an email address is a failed sign-in,
	// audited without echoing it.
	malformed := []string{
		"not an email",
		"<script>alert(1)</script>",
		"Eve <eve@example.test>",
	}
	before := s.Passwords().Runs()
	for i, e := range unreadable {
		_, err := s.Login(ctx, LoginInput{Email: e, Password: fmt.Sprintf("secret-guess-u%d", i)})
		wantKind(t, err, errs.Invalid, "")
	}
	for i, e := range malformed {
		_, err := s.Login(ctx, LoginInput{Email: e, Password: fmt.Sprintf("secret-guess-%d", i)})
		wantKind(t, err, errs.Unauthorized, "invalid_credentials")
	}
	if s.Passwords().Runs() != before {
		t.Fatal("a malformed email cost a bcrypt")
	}
	_, err := s.Login(ctx, LoginInput{Email: "Ghost@Example.test", Password: "secret-guess-x"})
	wantKind(t, err, errs.Unauthorized, "invalid_credentials")

	var descs []string
	if err := s.db.Select(&descs, `SELECT description FROM audit_log WHERE action_type = 'LOGIN_FAILED' ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	if len(descs) != len(malformed)+1 {
		t.Fatalf("%d LOGIN_FAILED rows, want %d", len(descs), len(malformed)+1)
	}
	for _, d := range descs[:len(malformed)] {
		if d != "Failed sign-in for a malformed email" {
			t.Errorf("malformed email audited as %q", d)
		}
	}
	if descs[len(malformed)] != "Failed sign-in for Ghost@Example.test" {
		t.Errorf("well-formed email audited as %q", descs[len(malformed)])
	}
	var leaked int
	s.db.Get(&leaked, `SELECT count(*) FROM audit_log WHERE description LIKE '%secret-guess%'`)
	if leaked != 0 {
		t.Fatal("an attempted password reached the audit log")
	}
}

// At most max_password_checks bcrypts at once; one more waits, and past the
// wait answers busy (503) without using up a try.
func TestPasswordCheckCap(t *testing.T) {
	t.Parallel()
	const wait = 300 * time.Millisecond
	s := newServiceWith(t, func(st *Settings) { st.MaxPasswordChecks = 1; st.PasswordCheckWait = wait })
	a := newCustomer(t, s, "Bea Busy")
	u, _ := s.Me(ctx, a)

	release, err := s.Passwords().Hold(ctx) // a check under way
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = s.Login(ctx, LoginInput{Email: u.Email, Password: testPassword, IP: netip.MustParseAddr("198.51.100.1")})
	wantKind(t, err, errs.Unavailable, "busy")
	if took := time.Since(start); took < wait {
		t.Fatalf("busy after %s; it must wait %s for a slot first", took, wait)
	}
	if errs.As(err).Message != "The bank is busy; please try again in a moment" {
		t.Fatalf("message %q", errs.As(err).Message)
	}
	_, err = s.Register(ctx, Actor{}, RegisterInput{FullName: "New One", Email: "new1@example.test", PhoneNumber: "+1 555 0100", Password: testPassword})
	wantKind(t, err, errs.Unavailable, "busy")
	wantKind(t, s.ResetPassword(ctx, a, testPassword, "new-password-1"), errs.Unavailable, "busy")
	var claims int
	s.db.Get(&claims, `SELECT count(*) FROM signin_attempts`)
	if claims != 0 {
		t.Fatalf("%d claims left by checks that never ran", claims)
	}

	// A waiter gets the slot when it frees within the wait.
	time.AfterFunc(wait/3, release)
	if _, err := s.Login(ctx, LoginInput{Email: u.Email, Password: testPassword}); err != nil {
		t.Fatalf("waiting for a slot: %v", err)
	}
}

// A wrong old password in a reset counts against the per-email throttle,
// before hashing, and is audited (without the password).
func TestResetPasswordThrottledAndAudited(t *testing.T) {
	t.Parallel()
	s := newServiceWith(t, patient)
	a := newCustomer(t, s, "Rex Reset")
	u, _ := s.Me(ctx, a)
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[string]int{}
	for i := 0; i < 15; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.ResetPassword(ctx, a, fmt.Sprintf("guess-old-%d", i), "new-password-1")
			mu.Lock()
			codes[errs.As(err).Code]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if codes["invalid_input"] != 10 || codes["too_many_attempts"] != 5 {
		t.Fatalf("answers %v; want 10 invalid_input and 5 too_many_attempts", codes)
	}
	if n := auditCount(t, s, "PASSWORD_RESET_FAILED"); n != 10 {
		t.Fatalf("PASSWORD_RESET_FAILED rows %d, want 10", n)
	}
	var leaked int
	s.db.Get(&leaked, `SELECT count(*) FROM audit_log WHERE description LIKE '%guess-old%'`)
	if leaked != 0 {
		t.Fatal("an attempted password reached the audit log")
	}
	// The same throttle as sign-in: the right passwords are refused now.
	wantKind(t, s.ResetPassword(ctx, a, testPassword, "new-password-1"), errs.RateLimited, "too_many_attempts")
	_, err := s.Login(ctx, LoginInput{Email: u.Email, Password: testPassword})
	wantKind(t, err, errs.RateLimited, "too_many_attempts")
	s.SetClock(func() time.Time { return time.Now().Add(16 * time.Minute) })
	if err := s.ResetPassword(ctx, a, testPassword, "new-password-1"); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}
