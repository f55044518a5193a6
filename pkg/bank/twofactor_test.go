package bank

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"meridian/pkg/auth"
	"meridian/pkg/errs"
)

// stepStart is a time at the start of a 30-second step, so a test that
// advances the clock by whole steps knows which code is current.
func stepStart() time.Time { return time.Now().Truncate(30 * time.Second).Add(time.Second) }

// codeAt is the TOTP code of secret at t, as an authenticator app shows it.
func codeAt(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// wrongCodeAt is a six-digit code that is none of the codes accepted at t.
func wrongCodeAt(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	bad := map[string]bool{}
	for _, d := range []time.Duration{-30 * time.Second, 0, 30 * time.Second} {
		bad[codeAt(t, secret, at.Add(d))] = true
	}
	for _, c := range []string{"000000", "111111", "123456", "654321"} {
		if !bad[c] {
			return c
		}
	}
	t.Fatal("no wrong code found")
	return ""
}

// enableTwoFactor sets two-factor sign-in up and on for a, at the clock's
// time, and returns the secret and the backup codes.
func enableTwoFactor(t *testing.T, s *Service, a Actor) (string, []string) {
	t.Helper()
	setup, err := s.SetupTwoFactor(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	codes, err := s.EnableTwoFactor(ctx, a, codeAt(t, setup.Secret, s.now()))
	if err != nil {
		t.Fatal(err)
	}
	return setup.Secret, codes.BackupCodes
}

// challengeFor signs email in with the password and returns the challenge.
func challengeFor(t *testing.T, s *Service, email string) string {
	t.Helper()
	res, err := s.Login(ctx, LoginInput{Email: email, Password: testPassword})
	if err != nil {
		t.Fatal(err)
	}
	if res.SecondFactor == nil || !res.SecondFactor.TwoFactorRequired || res.SecondFactor.Challenge == "" || res.Token != "" {
		t.Fatalf("a right password with two-factor on: %+v", res)
	}
	return res.SecondFactor.Challenge
}

func TestTwoFactorEnableVerifyDisable(t *testing.T) {
	t.Parallel()
	s := newService(t)
	clock := fixClock(s, stepStart())
	c := newCustomer(t, s, "Tess Totp")
	email := mustEmail(t, s, c.UserID)

	if st, err := s.TwoFactorStatus(ctx, c); err != nil || st.Enabled {
		t.Fatalf("status before: %+v %v", st, err)
	}
	_, err := s.EnableTwoFactor(ctx, c, "123456")
	wantKind(t, err, errs.Conflict, "two_factor_not_set_up")

	setup, err := s.SetupTwoFactor(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(setup.OTPAuthURL, "otpauth://totp/Meridian:") || !strings.Contains(setup.OTPAuthURL, "secret="+setup.Secret) ||
		!strings.Contains(setup.OTPAuthURL, "issuer=Meridian") || len(setup.Secret) < 32 {
		t.Fatalf("setup %+v", setup)
	}
	// Not on yet: the password alone still signs in.
	if res, err := s.Login(ctx, LoginInput{Email: email, Password: testPassword}); err != nil || res.Token == "" {
		t.Fatalf("sign-in before enabling: %+v %v", res, err)
	}
	// Stored sealed: neither the secret nor its bytes are in the row.
	var stored []byte
	s.db.Get(&stored, `SELECT secret FROM two_factor WHERE user_id = $1`, c.UserID)
	if len(stored) == 0 || bytes.Contains(stored, []byte(setup.Secret)) {
		t.Fatal("the TOTP secret is stored in the clear")
	}

	for _, bad := range []string{wrongCodeAt(t, setup.Secret, s.now()), "abc", strings.Repeat("1", 40)} {
		_, err = s.EnableTwoFactor(ctx, c, bad)
		wantKind(t, err, errs.Invalid, "invalid_input")
	}
	codes, err := s.EnableTwoFactor(ctx, c, codeAt(t, setup.Secret, s.now()))
	if err != nil {
		t.Fatal(err)
	}
	if len(codes.BackupCodes) != 10 {
		t.Fatalf("%d backup codes", len(codes.BackupCodes))
	}
	seen := map[string]bool{}
	format := regexp.MustCompile(`^[a-z2-9]{5}-[a-z2-9]{5}$`)
	for _, bc := range codes.BackupCodes {
		if seen[bc] || !format.MatchString(bc) {
			t.Fatalf("backup codes %v", codes.BackupCodes)
		}
		seen[bc] = true
		var clear int
		s.db.Get(&clear, `SELECT count(*) FROM two_factor_backup_codes WHERE position($1::bytea IN code_hash) > 0`, []byte(strings.ReplaceAll(bc, "-", "")))
		if clear != 0 {
			t.Fatal("a backup code is stored in the clear")
		}
	}
	if st, _ := s.TwoFactorStatus(ctx, c); !st.Enabled || st.BackupCodesLeft != 10 {
		t.Fatalf("status after enabling: %+v", st)
	}
	_, err = s.SetupTwoFactor(ctx, c)
	wantKind(t, err, errs.Conflict, "two_factor_enabled")
	_, err = s.EnableTwoFactor(ctx, c, codeAt(t, setup.Secret, s.now()))
	wantKind(t, err, errs.Conflict, "two_factor_enabled")

	// Signing in now takes two steps.
	ch := challengeFor(t, s, email)
	_, err = s.VerifyTwoFactor(ctx, VerifyInput{Challenge: ch, Code: wrongCodeAt(t, setup.Secret, s.now())})
	wantKind(t, err, errs.Unauthorized, "invalid_two_factor_code")
	_, err = s.VerifyTwoFactor(ctx, VerifyInput{Challenge: "not-a-challenge", Code: "123456"})
	wantKind(t, err, errs.Unauthorized, "invalid_challenge")
	_, err = s.VerifyTwoFactor(ctx, VerifyInput{Challenge: ch})
	wantKind(t, err, errs.Invalid, "invalid_input")
	clock.add(30 * time.Second)
	res, err := s.VerifyTwoFactor(ctx, VerifyInput{Challenge: ch, Code: codeAt(t, setup.Secret, s.now()), UserAgent: "Phone"})
	if err != nil || res.Token == "" || res.User.ID != c.UserID {
		t.Fatalf("verify: %+v %v", res, err)
	}
	a, err := s.Authenticate(ctx, res.Token)
	if err != nil || !a.TwoFactor {
		t.Fatalf("the new session: %+v %v", a, err)
	}
	if list, _ := s.ListSessions(ctx, a); !strings.Contains(sessionAgents(list), "Phone") {
		t.Fatalf("the session of a two-step sign-in records its client: %+v", list)
	}
	clock.add(30 * time.Second)
	_, err = s.VerifyTwoFactor(ctx, VerifyInput{Challenge: ch, Code: codeAt(t, setup.Secret, s.now())})
	wantKind(t, err, errs.Unauthorized, "invalid_challenge") // used up by the sign-in
	// A challenge lasts five minutes.
	late := challengeFor(t, s, email)
	clock.add(5*time.Minute + time.Second)
	_, err = s.VerifyTwoFactor(ctx, VerifyInput{Challenge: late, Code: codeAt(t, setup.Secret, s.now())})
	wantKind(t, err, errs.Unauthorized, "invalid_challenge")
	for _, action := range []string{"TWO_FACTOR_SETUP", "TWO_FACTOR_ENABLE", "LOGIN_CHALLENGE", "LOGIN_FAILED"} {
		if auditCount(t, s, action) == 0 {
			t.Errorf("no %s audit row", action)
		}
	}

	// Turning it off takes the password and a code.
	clock.add(30 * time.Second)
	err = s.DisableTwoFactor(ctx, a, "wrong-password", codeAt(t, setup.Secret, s.now()))
	wantKind(t, err, errs.Invalid, "invalid_input")
	if e := errs.As(err); e.Fields["password"] == "" {
		t.Fatalf("wrong password: %v", err)
	}
	err = s.DisableTwoFactor(ctx, a, testPassword, wrongCodeAt(t, setup.Secret, s.now()))
	if e := errs.As(err); e.Fields["code"] == "" {
		t.Fatalf("wrong code: %v", err)
	}
	if err := s.DisableTwoFactor(ctx, a, testPassword, codeAt(t, setup.Secret, s.now())); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.TwoFactorStatus(ctx, a); st.Enabled {
		t.Fatal("still on after disabling")
	}
	if auditCount(t, s, "TWO_FACTOR_DISABLE") != 1 || auditCount(t, s, "TWO_FACTOR_DISABLE_FAILED") != 2 {
		t.Fatal("disabling is audited, refusals too")
	}
	if res, err := s.Login(ctx, LoginInput{Email: email, Password: testPassword}); err != nil || res.Token == "" || res.SecondFactor != nil {
		t.Fatalf("after disabling the password signs in alone: %+v %v", res, err)
	}
	err = s.DisableTwoFactor(ctx, a, testPassword, "123456")
	wantKind(t, err, errs.Conflict, "two_factor_not_enabled")
}

func sessionAgents(list []Session) string {
	var b strings.Builder
	for _, x := range list {
		b.WriteString(x.UserAgent + "|")
	}
	return b.String()
}

// A code is accepted once: not again within its step, and no code of a
// step at or before the last one accepted; two sign-ins racing with one
// code get one session.
func TestTwoFactorCodeReplayRefused(t *testing.T) {
	t.Parallel()
	s := newService(t)
	clock := fixClock(s, stepStart())
	c := newCustomer(t, s, "Rex Replay")
	email := mustEmail(t, s, c.UserID)
	secret, _ := enableTwoFactor(t, s, c) // uses this step's code

	first := codeAt(t, secret, s.now())
	_, err := s.VerifyTwoFactor(ctx, VerifyInput{Challenge: challengeFor(t, s, email), Code: first})
	wantKind(t, err, errs.Unauthorized, "invalid_two_factor_code")

	clock.add(30 * time.Second)
	second := codeAt(t, secret, s.now())
	if _, err := s.VerifyTwoFactor(ctx, VerifyInput{Challenge: challengeFor(t, s, email), Code: second}); err != nil {
		t.Fatal(err)
	}
	_, err = s.VerifyTwoFactor(ctx, VerifyInput{Challenge: challengeFor(t, s, email), Code: second})
	wantKind(t, err, errs.Unauthorized, "invalid_two_factor_code")
	// The previous step's code is still within the drift, but older than the last accepted.
	_, err = s.VerifyTwoFactor(ctx, VerifyInput{Challenge: challengeFor(t, s, email), Code: first})
	wantKind(t, err, errs.Unauthorized, "invalid_two_factor_code")

	// Sign-ins racing with one fresh code: exactly one gets in.
	clock.add(30 * time.Second)
	third := codeAt(t, secret, s.now())
	const racers = 8
	var challenges []string
	for range racers {
		challenges = append(challenges, challengeFor(t, s, email))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, lost := 0, 0
	for _, ch := range challenges {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.VerifyTwoFactor(ctx, VerifyInput{Challenge: ch, Code: third})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
			case errs.As(err).Code == "invalid_two_factor_code":
				lost++
			default:
				t.Errorf("racing verify: %v", err)
			}
		}()
	}
	wg.Wait()
	if won != 1 || lost != racers-1 {
		t.Fatalf("one code, %d racing sign-ins: %d got in, %d refused", racers, won, lost)
	}
}

// Each backup code signs in once, however it is typed, and racing sign-ins
// with one code get one session.
func TestBackupCodesSingleUse(t *testing.T) {
	t.Parallel()
	s := newService(t)
	fixClock(s, stepStart())
	c := newCustomer(t, s, "Bea Backup")
	email := mustEmail(t, s, c.UserID)
	_, codes := enableTwoFactor(t, s, c)

	typed := " " + strings.ToUpper(strings.ReplaceAll(codes[0], "-", " - ")) + " "
	res, err := s.VerifyTwoFactor(ctx, VerifyInput{Challenge: challengeFor(t, s, email), Code: typed})
	if err != nil || res.Token == "" {
		t.Fatalf("a backup code as typed: %v", err)
	}
	// Used again: it says so, rather than "Invalid code".
	_, err = s.VerifyTwoFactor(ctx, VerifyInput{Challenge: challengeFor(t, s, email), Code: codes[0]})
	wantKind(t, err, errs.Unauthorized, "backup_code_used")
	_, err = s.VerifyTwoFactor(ctx, VerifyInput{Challenge: challengeFor(t, s, email), Code: "abcde-fghjk"})
	wantKind(t, err, errs.Unauthorized, "invalid_two_factor_code")
	a, _ := s.Authenticate(ctx, res.Token)
	if st, _ := s.TwoFactorStatus(ctx, a); st.BackupCodesLeft != 9 {
		t.Fatalf("%d backup codes left, want 9", st.BackupCodesLeft)
	}

	const racers = 6
	var challenges []string
	for range racers {
		challenges = append(challenges, challengeFor(t, s, email))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for _, ch := range challenges {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.VerifyTwoFactor(ctx, VerifyInput{Challenge: ch, Code: codes[1]})
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				won++
			} else if c := errs.As(err).Code; c != "invalid_two_factor_code" && c != "backup_code_used" {
				t.Errorf("racing verify: %v", err)
			}
		}()
	}
	wg.Wait()
	if won != 1 {
		t.Fatalf("one backup code signed in %d times", won)
	}
	// A backup code also turns two-factor sign-in off.
	if err := s.DisableTwoFactor(ctx, a, testPassword, codes[2]); err != nil {
		t.Fatal(err)
	}
}

// Wrong codes count against the sign-in throttle exactly as wrong passwords
// do, however many arrive at once: of 30 wrong codes for one email, 10 are
// checked and refused, the rest get 429 unchecked, and then even the right
// code waits out the window. A right code gives its claim back.
func TestWrongCodesThrottledUnderConcurrency(t *testing.T) {
	t.Parallel()
	s := newService(t)
	clock := fixClock(s, stepStart())
	c := newCustomer(t, s, "Theo Throttle")
	email := mustEmail(t, s, c.UserID)
	secret, _ := enableTwoFactor(t, s, c)
	clock.add(30 * time.Second)

	// Three wrong codes, then the right one: the right one's claim is given
	// back, the wrong ones' stay.
	ch := challengeFor(t, s, email)
	for range 3 {
		_, err := s.VerifyTwoFactor(ctx, VerifyInput{Challenge: ch, Code: wrongCodeAt(t, secret, s.now())})
		wantKind(t, err, errs.Unauthorized, "invalid_two_factor_code")
	}
	if _, err := s.VerifyTwoFactor(ctx, VerifyInput{Challenge: ch, Code: codeAt(t, secret, s.now())}); err != nil {
		t.Fatal(err)
	}
	var claims int
	s.db.Get(&claims, `SELECT count(*) FROM signin_attempts WHERE kind = 'email' AND key = $1`, emailKey(email).key)
	if claims != 3 {
		t.Fatalf("%d claims on the email after 3 wrong codes and a right one, want 3", claims)
	}

	ch = challengeFor(t, s, email)
	wrong := wrongCodeAt(t, secret, s.now())
	const tries = 30
	var wg sync.WaitGroup
	var mu sync.Mutex
	count := map[string]int{}
	start := make(chan struct{})
	for range tries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, err := s.VerifyTwoFactor(ctx, VerifyInput{Challenge: ch, Code: wrong})
			mu.Lock()
			count[errs.As(err).Code]++
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	if count["invalid_two_factor_code"] != maxEmailChecks-3 || count["too_many_attempts"] != tries-(maxEmailChecks-3) {
		t.Fatalf("%d wrong codes at once: %v; want %d checked and refused, the rest 429", tries, count, maxEmailChecks-3)
	}
	clock.add(30 * time.Second)
	_, err := s.VerifyTwoFactor(ctx, VerifyInput{Challenge: ch, Code: codeAt(t, secret, s.now())})
	wantKind(t, err, errs.RateLimited, "too_many_attempts")
	if n := auditCount(t, s, "LOGIN_FAILED"); n != maxEmailChecks {
		t.Fatalf("%d failed sign-ins audited, want %d (one per checked wrong code)", n, maxEmailChecks)
	}
}

func TestTwoFactorResetAndDeactivated(t *testing.T) {
	t.Parallel()
	s := newService(t)
	fixClock(s, stepStart())
	admin := newAdmin(t, s)
	c := newCustomer(t, s, "Lou Lost")
	email := mustEmail(t, s, c.UserID)
	secret, _ := enableTwoFactor(t, s, c)
	pending := challengeFor(t, s, email)

	wantKind(t, s.ResetTwoFactor(ctx, c, c.UserID), errs.Forbidden, "admin_only")
	if err := s.ResetTwoFactor(ctx, CLIActor, c.UserID); err != nil {
		t.Fatal(err)
	}
	wantKind(t, s.ResetTwoFactor(ctx, CLIActor, c.UserID), errs.Conflict, "two_factor_not_enabled")
	wantKind(t, s.ResetTwoFactor(ctx, CLIActor, 1<<60), errs.NotFound, "user_not_found")
	if auditCount(t, s, "TWO_FACTOR_RESET") != 1 {
		t.Fatal("the reset is audited")
	}
	_, err := s.VerifyTwoFactor(ctx, VerifyInput{Challenge: pending, Code: codeAt(t, secret, s.now().Add(30*time.Second))})
	wantKind(t, err, errs.Unauthorized, "invalid_challenge")
	if res, err := s.Login(ctx, LoginInput{Email: email, Password: testPassword}); err != nil || res.Token == "" {
		t.Fatalf("after the reset the password signs in alone: %+v %v", res, err)
	}

	// A user deactivated between the two steps does not get in.
	d := newCustomer(t, s, "Dee Deact")
	demail := mustEmail(t, s, d.UserID)
	dsecret, _ := enableTwoFactor(t, s, d)
	ch := challengeFor(t, s, demail)
	if _, err := s.SetUserActive(ctx, admin, d.UserID, false); err != nil {
		t.Fatal(err)
	}
	_, err = s.VerifyTwoFactor(ctx, VerifyInput{Challenge: ch, Code: codeAt(t, dsecret, s.now().Add(30*time.Second))})
	wantKind(t, err, errs.Forbidden, "user_deactivated")
}

// require_2fa_for_admins: an administrator without two-factor sign-in is
// refused until it is on, and may not turn it off; customers are not concerned.
func TestRequireTwoFactorForAdmins(t *testing.T) {
	t.Parallel()
	s := newServiceWith(t, func(st *Settings) { st.RequireTwoFactorForAdmins = true })
	fixClock(s, stepStart())
	admin := newAdmin(t, s)
	c := newCustomer(t, s, "Cus Tomer")
	wantKind(t, s.CheckTwoFactorPolicy(admin), errs.Forbidden, "two_factor_required")
	if err := s.CheckTwoFactorPolicy(c); err != nil {
		t.Fatalf("a customer: %v", err)
	}
	if err := s.CheckTwoFactorPolicy(CLIActor); err != nil {
		t.Fatalf("the CLI: %v", err)
	}
	secret, _ := enableTwoFactor(t, s, admin)
	again := signInWithCode(t, s, mustEmail(t, s, admin.UserID), secret, s.now().Add(30*time.Second))
	if err := s.CheckTwoFactorPolicy(again); err != nil {
		t.Fatalf("an administrator with two-factor on: %v", err)
	}
	wantKind(t, s.DisableTwoFactor(ctx, again, testPassword, codeAt(t, secret, s.now().Add(60*time.Second))), errs.Forbidden, "two_factor_required")
	if !s.PublicConfig().RequireTwoFactorForAdmins {
		t.Fatal("PublicConfig does not tell the app")
	}
	// Off (the default), nobody is held back.
	if err := newService(t).CheckTwoFactorPolicy(admin); err != nil {
		t.Fatalf("with the default: %v", err)
	}
}

// signInWithCode signs in in two steps with the code of secret at at.
func signInWithCode(t *testing.T, s *Service, email, secret string, at time.Time) Actor {
	t.Helper()
	res, err := s.VerifyTwoFactor(ctx, VerifyInput{Challenge: challengeFor(t, s, email), Code: codeAt(t, secret, at)})
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Authenticate(ctx, res.Token)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// The secret is sealed under a key derived from the JWT secret: a server
// with another jwt_secret cannot read it, and says so (never a 500).
func TestTwoFactorSecretNeedsTheServerKey(t *testing.T) {
	t.Parallel()
	s := newService(t)
	c := newCustomer(t, s, "Kim Key")
	secret, codes := enableTwoFactor(t, s, c)
	tokens, err := auth.NewTokens([]byte(strings.Repeat("x", 32)), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	other := New(s.db, tokens, Settings{})
	ch := challengeFor(t, other, mustEmail(t, s, c.UserID))
	_, err = other.VerifyTwoFactor(ctx, VerifyInput{Challenge: ch, Code: codeAt(t, secret, time.Now().Add(30*time.Second))})
	wantKind(t, err, errs.Unprocessable, "two_factor_unreadable")
	// Nor are the backup codes the same under another key.
	_, err = other.VerifyTwoFactor(ctx, VerifyInput{Challenge: ch, Code: codes[0]})
	wantKind(t, err, errs.Unauthorized, "invalid_two_factor_code")
}
