package bank

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/hotp"
	"github.com/pquerna/otp/totp"

	"meridian/pkg/errs"
)

// Two-factor sign-in: TOTP (RFC 6238: HMAC-SHA-1, 6 digits, 30-second
// steps, one step of clock drift either way) through github.com/pquerna/otp,
// with ten one-time backup codes.
//
// With it on, a right password does not sign in: Login answers a challenge
// (opaque, 5 minutes, once), and VerifyTwoFactor trades the challenge and a
// current code (or an unused backup code) for the session. Each code is
// claimed against the sign-in throttle before it is checked, exactly as a
// password is (signin.go): a wrong code keeps its claim, a right one gives
// it back. A code is accepted once: the newest step accepted is stored, and
// a code of that step or an older one is refused, so a code seen over a
// shoulder cannot be replayed within its 30 seconds.
//
// The secret is sealed with AES-256-GCM under a key derived from the JWT
// secret and bound to the user's id; backup codes are kept as HMAC-SHA256
// under another derived key. Neither is ever shown again.

const (
	totpIssuer      = "Meridian"
	totpPeriod      = 30 // seconds
	totpSkew        = 1  // steps of drift accepted either way
	challengeTTL    = 5 * time.Minute
	backupCodeCount = 10
	// backupAlphabet has no letters or digits one could read as another
	// (no 0/o, 1/l/i): ten of them are about 49 bits.
	backupAlphabet = "abcdefghjkmnpqrstuvwxyz23456789"
	backupCodeLen  = 10
	maxCodeLen     = 32
	maxChallenge   = 128
)

var (
	errWrongCode = errs.E(errs.Unauthorized, "invalid_two_factor_code", "Invalid code")
	// errUsedBackupCode is a backup code of this user that signed in before:
	// saying so tells its owner to take another one (it tells a stranger
	// nothing: only its owner holds the code).
	errUsedBackupCode = errs.E(errs.Unauthorized, "backup_code_used", "This backup code was already used; use another one")
	errChallenge      = errs.E(errs.Unauthorized, "invalid_challenge",
		"This sign-in has expired or was already used; sign in again with your email and password")
	errTwoFactorOn      = errs.E(errs.Conflict, "two_factor_enabled", "Two-factor sign-in is already on; turn it off first to set it up again")
	errTwoFactorOff     = errs.E(errs.Conflict, "two_factor_not_enabled", "Two-factor sign-in is not on")
	errTwoFactorNoSetup = errs.E(errs.Conflict, "two_factor_not_set_up", "Set up two-factor sign-in first")
	errEnableCode       = errs.Field("code", "The code is wrong or has expired; enter the current code from your authenticator app")
	// ErrTwoFactorRequired: require_2fa_for_admins is on and this
	// administrator has not turned two-factor sign-in on.
	ErrTwoFactorRequired = errs.E(errs.Forbidden, "two_factor_required",
		"Administrators must turn on two-factor sign-in first: set it up under Security")
	errAdminKeepsTwoFactor = errs.E(errs.Forbidden, "two_factor_required",
		"Administrators must keep two-factor sign-in on at this bank")
	// errSecretUnreadable: the secret was sealed under another jwt_secret.
	errSecretUnreadable = errs.E(errs.Unprocessable, "two_factor_unreadable",
		"Two-factor sign-in cannot be checked on this server; ask the bank to reset it")
)

// TwoFactorSetup is a new, not yet confirmed TOTP secret: the base32 secret
// and the otpauth:// URL an authenticator app reads (the app draws the QR
// code from it itself).
type TwoFactorSetup struct {
	Secret     string `json:"secret"`
	OTPAuthURL string `json:"otpauth_url"`
}

// BackupCodes are the one-time codes shown once, when two-factor sign-in is
// turned on.
type BackupCodes struct {
	BackupCodes []string `json:"backup_codes"`
}

// TwoFactorStatus tells the signed-in user where their two-factor sign-in stands.
type TwoFactorStatus struct {
	Enabled         bool `json:"enabled"`
	BackupCodesLeft int  `json:"backup_codes_left"`
}

// TwoFactorChallenge is Login's answer when the password was right and a
// second factor is needed.
type TwoFactorChallenge struct {
	TwoFactorRequired bool   `json:"two_factor_required"`
	Challenge         string `json:"challenge"`
}

// VerifyInput is the second step of a sign-in: the body, and the client's
// address and User-Agent as for Login.
type VerifyInput struct {
	Challenge string     `json:"challenge"`
	Code      string     `json:"code"`
	IP        netip.Addr `json:"-"`
	UserAgent string     `json:"-"`
}

// twoFactorKeys are the keys derived from the JWT secret for what is kept at rest.
type twoFactorKeys struct {
	secrets cipher.AEAD // seals TOTP secrets
	backup  []byte      // HMAC key of backup codes
}

func newTwoFactorKeys(sealKey, backupKey []byte) twoFactorKeys {
	block, err := aes.NewCipher(sealKey)
	if err != nil {
		panic(err) // a 32-byte key always makes a cipher
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return twoFactorKeys{secrets: gcm, backup: backupKey}
}

func secretAAD(userID int64) []byte {
	return []byte("meridian totp secret of user " + strconv.FormatInt(userID, 10))
}

// seal encrypts a user's TOTP secret: nonce || ciphertext.
func (k twoFactorKeys) seal(userID int64, secret string) ([]byte, error) {
	nonce := make([]byte, k.secrets.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return k.secrets.Seal(nonce, nonce, []byte(secret), secretAAD(userID)), nil
}

// open decrypts what seal made for the same user.
func (k twoFactorKeys) open(userID int64, sealed []byte) (string, error) {
	n := k.secrets.NonceSize()
	if len(sealed) < n {
		return "", fmt.Errorf("sealed secret too short")
	}
	plain, err := k.secrets.Open(nil, sealed[:n], sealed[n:], secretAAD(userID))
	return string(plain), err
}

// backupHash keys a backup code to its user.
func (k twoFactorKeys) backupHash(userID int64, code string) []byte {
	m := hmac.New(sha256.New, k.backup)
	m.Write([]byte(strconv.FormatInt(userID, 10) + ":" + code))
	return m.Sum(nil)
}

// normalizeCode reads a code as typed: spaces and hyphens dropped, lower
// case. It refuses what is not text or far too long.
func normalizeCode(code string) (string, error) {
	if err := checkText("code", code, maxCodeLen, false); err != nil {
		return "", err
	}
	code = strings.ToLower(strings.NewReplacer(" ", "", "-", "").Replace(code))
	if code == "" {
		return "", errs.Field("code", "code is required")
	}
	return code, nil
}

// isTOTP reports whether a normalized code is six digits.
func isTOTP(code string) bool {
	if len(code) != 6 {
		return false
	}
	for _, r := range code {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// totpStep returns the time step within the drift whose code is code and
// that is newer than after, or 0 when there is none (a wrong code, or one
// already used).
func totpStep(secret, code string, now time.Time, after int64) int64 {
	cur := now.Unix() / totpPeriod
	for _, step := range []int64{cur, cur - totpSkew, cur + totpSkew} {
		if step <= after {
			continue
		}
		ok, err := hotp.ValidateCustom(code, uint64(step), secret, hotp.ValidateOpts{Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err == nil && ok {
			return step
		}
	}
	return 0
}

// newBackupCodes makes backupCodeCount codes, shown as "abcde-fghjk".
func newBackupCodes() ([]string, error) {
	codes := make([]string, backupCodeCount)
	buf := make([]byte, backupCodeLen)
	for i := range codes {
		var b strings.Builder
		for j := 0; j < backupCodeLen; j++ {
			// Rejection sampling keeps every character equally likely.
			for {
				if _, err := rand.Read(buf[:1]); err != nil {
					return nil, err
				}
				if int(buf[0]) < 256-256%len(backupAlphabet) {
					break
				}
			}
			if j == backupCodeLen/2 {
				b.WriteByte('-')
			}
			b.WriteByte(backupAlphabet[int(buf[0])%len(backupAlphabet)])
		}
		codes[i] = b.String()
	}
	return codes, nil
}

// twoFactorRow is a user's two-factor state.
type twoFactorRow struct {
	Secret   []byte     `db:"secret"`
	Enabled  *time.Time `db:"enabled_at"`
	LastStep int64      `db:"last_step"`
}

func (s *Service) twoFactorOf(ctx context.Context, q sqlx.QueryerContext, userID int64, lock bool) (twoFactorRow, bool, error) {
	var r twoFactorRow
	query := `SELECT secret, enabled_at, last_step FROM two_factor WHERE user_id = $1`
	if lock {
		query += ` FOR UPDATE`
	}
	err := sqlx.GetContext(ctx, q, &r, query, userID)
	if notFound(err) {
		return r, false, nil
	}
	return r, err == nil, errs.Wrap(err, "read two-factor state")
}

// requireOwnSession guards the two-factor calls of a signed-in user.
func requireOwnSession(a Actor) error {
	if a.Scoped() {
		return ErrInsufficientScope
	}
	if a.CLI || a.UserID == 0 {
		return errs.ErrForbidden
	}
	return nil
}

// CheckTwoFactorPolicy enforces require_2fa_for_admins: an administrator
// without two-factor sign-in may reach only the calls that turn it on (the
// server marks them), nothing else.
//
// Returns two_factor_required (403).
func (s *Service) CheckTwoFactorPolicy(a Actor) error {
	if s.settings.RequireTwoFactorForAdmins && !a.CLI && a.Role == RoleAdmin && !a.TwoFactor {
		return ErrTwoFactorRequired
	}
	return nil
}

// TwoFactorStatus tells whether the actor's two-factor sign-in is on and
// how many backup codes are left.
func (s *Service) TwoFactorStatus(ctx context.Context, a Actor) (TwoFactorStatus, error) {
	if err := requireOwnSession(a); err != nil {
		return TwoFactorStatus{}, err
	}
	var st TwoFactorStatus
	err := s.db.GetContext(ctx, &st.Enabled, `SELECT EXISTS (SELECT 1 FROM two_factor WHERE user_id = $1 AND enabled_at IS NOT NULL)`, a.UserID)
	if err != nil {
		return st, errs.Wrap(err, "two-factor status")
	}
	if st.Enabled {
		err = s.db.GetContext(ctx, &st.BackupCodesLeft, `SELECT count(*) FROM two_factor_backup_codes WHERE user_id = $1 AND used_at IS NULL`, a.UserID)
	}
	return st, errs.Wrap(err, "backup codes left")
}

// SetupTwoFactor makes a new TOTP secret for the actor, not yet on: it is
// turned on by EnableTwoFactor with a code from it. Setting up again before
// that replaces the secret.
//
// Returns forbidden (the CLI) or two_factor_enabled (409).
func (s *Service) SetupTwoFactor(ctx context.Context, a Actor) (TwoFactorSetup, error) {
	if err := requireOwnSession(a); err != nil {
		return TwoFactorSetup{}, err
	}
	u, err := s.getUser(ctx, s.db, a.UserID)
	if err != nil {
		return TwoFactorSetup{}, err
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: totpIssuer, AccountName: u.Email, Period: totpPeriod,
		Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return TwoFactorSetup{}, errs.Wrap(err, "generate TOTP secret")
	}
	sealed, err := s.twoFactor.seal(a.UserID, key.Secret())
	if err != nil {
		return TwoFactorSetup{}, errs.Wrap(err, "seal TOTP secret")
	}
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		var stored bool
		err := tx.GetContext(ctx, &stored, `
			INSERT INTO two_factor (user_id, secret) VALUES ($1, $2)
			ON CONFLICT (user_id) DO UPDATE SET secret = EXCLUDED.secret, last_step = 0, created_at = now()
			WHERE two_factor.enabled_at IS NULL
			RETURNING true`, a.UserID, sealed)
		if notFound(err) {
			return errTwoFactorOn
		}
		if err != nil {
			return errs.Wrap(err, "store TOTP secret")
		}
		return audit(ctx, tx, a, AuditEntry{Action: "TWO_FACTOR_SETUP", Table: "two_factor", Description: "Began setting up two-factor sign-in"})
	})
	if err != nil {
		return TwoFactorSetup{}, err
	}
	return TwoFactorSetup{Secret: key.Secret(), OTPAuthURL: key.URL()}, nil
}

// EnableTwoFactor turns two-factor sign-in on with a current code of the
// secret SetupTwoFactor made, and returns ten new backup codes, shown this
// once (only their HMACs are kept).
//
// Returns forbidden (the CLI), invalid_input (a missing or wrong code),
// two_factor_not_set_up (409) or two_factor_enabled (409).
func (s *Service) EnableTwoFactor(ctx context.Context, a Actor, code string) (BackupCodes, error) {
	if err := requireOwnSession(a); err != nil {
		return BackupCodes{}, err
	}
	code, err := normalizeCode(code)
	if err != nil {
		return BackupCodes{}, err
	}
	codes, err := newBackupCodes()
	if err != nil {
		return BackupCodes{}, errs.Wrap(err, "backup codes")
	}
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		row, ok, err := s.twoFactorOf(ctx, tx, a.UserID, true)
		switch {
		case err != nil:
			return err
		case !ok:
			return errTwoFactorNoSetup
		case row.Enabled != nil:
			return errTwoFactorOn
		}
		secret, err := s.twoFactor.open(a.UserID, row.Secret)
		if err != nil {
			return errSecretUnreadable
		}
		step := int64(0)
		if isTOTP(code) {
			step = totpStep(secret, code, s.now(), row.LastStep)
		}
		if step == 0 {
			return errEnableCode
		}
		if _, err := tx.ExecContext(ctx, `UPDATE two_factor SET enabled_at = now(), last_step = $2 WHERE user_id = $1`, a.UserID, step); err != nil {
			return errs.Wrap(err, "enable two-factor")
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM two_factor_backup_codes WHERE user_id = $1`, a.UserID); err != nil {
			return errs.Wrap(err, "drop old backup codes")
		}
		for _, c := range codes {
			if _, err := tx.ExecContext(ctx, `INSERT INTO two_factor_backup_codes (user_id, code_hash) VALUES ($1, $2)`,
				a.UserID, s.twoFactor.backupHash(a.UserID, strings.ReplaceAll(c, "-", ""))); err != nil {
				return errs.Wrap(err, "store backup code")
			}
		}
		return audit(ctx, tx, a, AuditEntry{Action: "TWO_FACTOR_ENABLE", Table: "two_factor",
			Description: fmt.Sprintf("Turned on two-factor sign-in (%d backup codes)", len(codes))})
	})
	if err != nil {
		return BackupCodes{}, err
	}
	s.forgetUser(a.UserID) // what the actor may reach changes (require_2fa_for_admins)
	return BackupCodes{BackupCodes: codes}, nil
}

// consumeCode accepts code for userID inside tx, once: a TOTP code of a
// step newer than the last one accepted (which it then becomes), or an
// unused backup code (which it marks used). It reports whether the code was
// accepted and whether it was a backup code.
func (s *Service) consumeCode(ctx context.Context, tx *sqlx.Tx, userID int64, code string) (bool, bool, error) {
	if isTOTP(code) {
		row, ok, err := s.twoFactorOf(ctx, tx, userID, true)
		if err != nil || !ok || row.Enabled == nil {
			return false, false, err
		}
		secret, err := s.twoFactor.open(userID, row.Secret)
		if err != nil {
			return false, false, errSecretUnreadable
		}
		step := totpStep(secret, code, s.now(), row.LastStep)
		if step == 0 {
			return false, false, nil
		}
		// The row is locked: two requests with one code queue here, and the
		// second finds the step used.
		_, err = tx.ExecContext(ctx, `UPDATE two_factor SET last_step = $2 WHERE user_id = $1`, userID, step)
		return err == nil, false, errs.Wrap(err, "use TOTP step")
	}
	res, err := tx.ExecContext(ctx, `
		UPDATE two_factor_backup_codes SET used_at = now()
		WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL
		  AND EXISTS (SELECT 1 FROM two_factor WHERE user_id = $1 AND enabled_at IS NOT NULL)`,
		userID, s.twoFactor.backupHash(userID, code))
	if err != nil {
		return false, true, errs.Wrap(err, "use backup code")
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return true, true, nil
	}
	var used bool
	err = tx.GetContext(ctx, &used, `SELECT EXISTS (SELECT 1 FROM two_factor_backup_codes WHERE user_id = $1 AND code_hash = $2 AND used_at IS NOT NULL)`,
		userID, s.twoFactor.backupHash(userID, code))
	if err != nil {
		return false, true, errs.Wrap(err, "read backup code")
	}
	if used {
		return false, true, errUsedBackupCode
	}
	return false, true, nil
}

// startChallenge is Login's answer for a right password when two-factor
// sign-in is on: the password's claims are given back (the code will claim
// its own) and a challenge is stored, in one transaction.
func (s *Service) startChallenge(ctx context.Context, u User, claims []int64, now time.Time) (*TwoFactorChallenge, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return nil, errs.Wrap(err, "challenge")
	}
	challenge := base64.RawURLEncoding.EncodeToString(raw)
	sum := sha256.Sum256([]byte(challenge))
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := releaseAttempts(ctx, tx, claims); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO two_factor_challenges (id_hash, user_id, expires_at) VALUES ($1, $2, $3)`,
			sum[:], u.ID, now.Add(challengeTTL)); err != nil {
			return errs.Wrap(err, "store challenge")
		}
		return audit(ctx, tx, Actor{UserID: u.ID, Role: u.Role}, AuditEntry{Action: "LOGIN_CHALLENGE", Table: "users",
			Description: "Password accepted; waiting for the two-factor code"})
	})
	if err != nil {
		return nil, err
	}
	return &TwoFactorChallenge{TwoFactorRequired: true, Challenge: challenge}, nil
}

// VerifyTwoFactor is a sign-in's second step: a challenge from Login and a
// current TOTP code or an unused backup code. It answers like Login. The
// code is claimed against the sign-in throttle (the client's address, then
// the user's email) before it is checked: a wrong one keeps its claim and is
// audited as a failed sign-in, a right one gives it back. The challenge is
// used up by the sign-in.
//
// Returns invalid_input (a missing or malformed challenge or code),
// invalid_challenge (401: unknown, expired or used), invalid_two_factor_code
// (401), user_deactivated (403), two_factor_unreadable (422: the secret was
// sealed under another jwt_secret; an operator resets it) or
// too_many_attempts (429).
func (s *Service) VerifyTwoFactor(ctx context.Context, in VerifyInput) (LoginResult, error) {
	if in.Challenge == "" {
		return LoginResult{}, errs.Field("challenge", "challenge is required")
	}
	if err := checkText("challenge", in.Challenge, maxChallenge, false); err != nil {
		return LoginResult{}, err
	}
	code, err := normalizeCode(in.Code)
	if err != nil {
		return LoginResult{}, err
	}
	now := s.now()
	sum := sha256.Sum256([]byte(in.Challenge))
	var row struct {
		User
		Expires time.Time `db:"expires_at"`
	}
	err = s.db.GetContext(ctx, &row, `SELECT `+userColumns+`, c.expires_at `+userFrom+`
		JOIN two_factor_challenges c ON c.user_id = u.id
		WHERE c.id_hash = $1 AND c.used_at IS NULL`, sum[:])
	if notFound(err) || (err == nil && !now.Before(row.Expires)) {
		return LoginResult{}, errChallenge
	}
	if err != nil {
		return LoginResult{}, errs.Wrap(err, "read challenge")
	}
	var keys []throttleKey
	if k, ok := addressKey(in.IP); ok {
		keys = append(keys, k)
	}
	keys = append(keys, emailKey(row.Email))
	claims, err := s.claimAttempts(ctx, now, keys...)
	if err != nil {
		return LoginResult{}, err
	}
	self := Actor{UserID: row.ID, Role: row.Role}
	var res LoginResult
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		ok, backup, err := s.consumeCode(ctx, tx, row.ID, code)
		if err != nil {
			return err
		}
		if !ok {
			return errWrongCode
		}
		if !row.IsActive {
			return errs.E(errs.Forbidden, "user_deactivated", "This user is deactivated")
		}
		used, err := tx.ExecContext(ctx, `UPDATE two_factor_challenges SET used_at = now() WHERE id_hash = $1 AND used_at IS NULL`, sum[:])
		if err != nil {
			return errs.Wrap(err, "use challenge")
		}
		if n, _ := used.RowsAffected(); n != 1 {
			return errChallenge // another request signed in with it a moment ago
		}
		if err := releaseAttempts(ctx, tx, claims); err != nil {
			return err
		}
		token, expires, err := s.issueSession(ctx, tx, row.ID, now, SessionMeta{UserAgent: in.UserAgent, IP: in.IP})
		if err != nil {
			return err
		}
		res = LoginResult{Token: token, ExpiresAt: expires, User: row.User}
		desc := "Signed in with a two-factor code"
		if backup {
			desc = "Signed in with a backup code"
		}
		return audit(ctx, tx, self, AuditEntry{Action: "LOGIN", Table: "users", Description: desc})
	})
	switch {
	case err == errWrongCode || err == errUsedBackupCode:
		// The claims stay: they are the record of this failure.
		if aerr := s.inTx(ctx, func(tx *sqlx.Tx) error {
			return audit(ctx, tx, self, AuditEntry{Action: "LOGIN_FAILED", Table: "users", Description: "Wrong two-factor code for " + row.Email})
		}); aerr != nil {
			return LoginResult{}, aerr
		}
		return LoginResult{}, err
	case err != nil:
		// Not a wrong code (deactivated, a used challenge, an outage): the code was not the problem.
		if rerr := releaseAttempts(context.WithoutCancel(ctx), s.db, claims); rerr != nil {
			return LoginResult{}, rerr
		}
		return LoginResult{}, err
	}
	return res, nil
}

// DisableTwoFactor turns the actor's two-factor sign-in off, given their
// password and a current code (or an unused backup code). The password and
// the code are claimed against the per-email sign-in throttle before they
// are checked; a wrong one keeps the claim and is audited.
//
// Returns forbidden (the CLI), invalid_input (a missing or wrong password or
// code), two_factor_not_enabled (409), two_factor_required (403: an
// administrator while require_2fa_for_admins is on), too_many_attempts
// (429) or busy (503).
func (s *Service) DisableTwoFactor(ctx context.Context, a Actor, password, code string) error {
	if err := requireOwnSession(a); err != nil {
		return err
	}
	if password == "" {
		return errs.Field("password", "password is required")
	}
	if err := checkPasswordInput("password", password); err != nil {
		return err
	}
	if _, err := normalizeCode(code); err != nil {
		return err
	}
	if s.settings.RequireTwoFactorForAdmins && a.Role == RoleAdmin {
		return errAdminKeepsTwoFactor
	}
	st, err := s.TwoFactorStatus(ctx, a)
	if err != nil {
		return err
	}
	if !st.Enabled {
		return errTwoFactorOff
	}
	err = s.confirmIdentity(ctx, a, password, code, identityCheck{what: "Turning off two-factor sign-in",
		failAction: "TWO_FACTOR_DISABLE_FAILED", table: "two_factor", alwaysCode: true},
		func(tx *sqlx.Tx) error {
			if err := deleteTwoFactor(ctx, tx, a.UserID); err != nil {
				return err
			}
			return audit(ctx, tx, a, AuditEntry{Action: "TWO_FACTOR_DISABLE", Table: "two_factor", Description: "Turned off two-factor sign-in"})
		})
	if err == nil {
		s.forgetUser(a.UserID)
	}
	return err
}

// deleteTwoFactor removes a user's secret, backup codes and pending challenges.
func deleteTwoFactor(ctx context.Context, tx *sqlx.Tx, userID int64) error {
	for _, q := range []string{
		`DELETE FROM two_factor_backup_codes WHERE user_id = $1`,
		`DELETE FROM two_factor_challenges WHERE user_id = $1`,
		`DELETE FROM two_factor WHERE user_id = $1`,
	} {
		if _, err := tx.ExecContext(ctx, q, userID); err != nil {
			return errs.Wrap(err, "remove two-factor sign-in")
		}
	}
	return nil
}

// ResetTwoFactor turns a user's two-factor sign-in off, as an operator
// does for a customer who lost their device (meridian user 2fa-reset):
// secret, backup codes and pending challenges are removed. The user signs
// in with the password alone and may set it up again.
//
// Returns admin_only (403), user_not_found (404) or two_factor_not_enabled
// (409: nothing was set up).
func (s *Service) ResetTwoFactor(ctx context.Context, a Actor, userID int64) error {
	if err := requireAdmin(a); err != nil {
		return err
	}
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		u, err := s.getUser(ctx, tx, userID)
		if err != nil {
			return err
		}
		var had bool
		if err := tx.GetContext(ctx, &had, `SELECT EXISTS (SELECT 1 FROM two_factor WHERE user_id = $1)`, userID); err != nil {
			return errs.Wrap(err, "two-factor state")
		}
		if !had {
			return errTwoFactorOff
		}
		if err := deleteTwoFactor(ctx, tx, userID); err != nil {
			return err
		}
		return audit(ctx, tx, a, AuditEntry{Action: "TWO_FACTOR_RESET", Table: "two_factor",
			Description: fmt.Sprintf("Turned off two-factor sign-in of %s (id %d)", u.Email, u.ID)})
	})
	if err == nil {
		s.forgetUser(userID)
	}
	return err
}

// purgeChallenges forgets challenges that expired a while ago.
func (s *Service) purgeChallenges(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM two_factor_challenges WHERE expires_at < $1`, s.now().Add(-time.Hour))
	return errs.Wrap(err, "purge two-factor challenges")
}
