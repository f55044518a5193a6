package bank

import (
	"context"
	"net/mail"
	"regexp"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"meridian/pkg/errs"
)

// User is a customer or an administrator, as the API shows them.
type User struct {
	ID          int64     `json:"id" db:"id"`
	FullName    string    `json:"full_name" db:"full_name"`
	Email       string    `json:"email" db:"email"`
	PhoneNumber string    `json:"phone_number" db:"phone_number"`
	Role        string    `json:"role" db:"role"`
	IsActive    bool      `json:"is_active" db:"is_active"`
	CreatedAt   time.Time `json:"created_at" db:"created_at"`
}

const userColumns = `u.id, u.full_name, u.email, u.phone_number, r.name AS role, u.is_active, u.created_at`
const userFrom = `FROM users u JOIN roles r ON r.id = u.role_id`

// RegisterInput is the body of a registration.
type RegisterInput struct {
	FullName    string `json:"full_name"`
	Email       string `json:"email"`
	PhoneNumber string `json:"phone_number"`
	Password    string `json:"password"`
	Role        string `json:"-"` // only the CLI may set it; empty means User
}

var phonePattern = regexp.MustCompile(`^\+?[0-9 ()\-]{6,20}$`)

func validateRegistration(in *RegisterInput) error {
	var err error
	if in.FullName, err = clean("full_name", in.FullName, MaxNameLen, true); err != nil {
		return err
	}
	if in.Email, err = clean("email", in.Email, MaxEmailLen, true); err != nil {
		return err
	}
	if a, e := mail.ParseAddress(in.Email); e != nil || a.Address != in.Email {
		return errs.Field("email", "email must be a valid email address")
	}
	if in.PhoneNumber, err = clean("phone_number", in.PhoneNumber, MaxPhoneLen, true); err != nil {
		return err
	}
	if !phonePattern.MatchString(in.PhoneNumber) {
		return errs.Field("phone_number", "phone_number must be a phone number of 6 to 20 digits")
	}
	return checkPassword("password", in.Password)
}

// Register creates a customer (or, from the CLI, a user of any role).
// Returns invalid_input (a field that is missing, too long, not text, or a
// password outside 8 to 72 bytes), email_taken, forbidden (a role from a
// non-admin), or busy (503) when no password-check slot frees in time.
func (s *Service) Register(ctx context.Context, actor Actor, in RegisterInput) (User, error) {
	if err := validateRegistration(&in); err != nil {
		return User{}, err
	}
	role := RoleUser
	if in.Role != "" {
		if !actor.IsAdmin() {
			return User{}, errs.ErrForbidden
		}
		if in.Role != RoleUser && in.Role != RoleAdmin {
			return User{}, errs.Field("role", "role must be Admin or User")
		}
		role = in.Role
	}
	hash, err := s.hashPassword(ctx, in.Password)
	if err != nil {
		return User{}, err
	}
	var u User
	// Another role than User is given by set_user_role, which only an
	// administrator or the operator (connected as the owner) may call.
	inTx := s.inTx
	if role != RoleUser {
		inTx = func(ctx context.Context, fn func(tx *sqlx.Tx) error) error { return s.inTxAs(ctx, actor, fn) }
	}
	err = inTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &u.ID, `
			INSERT INTO users (full_name, email, phone_number) VALUES ($1, $2, $3) RETURNING id`,
			in.FullName, in.Email, in.PhoneNumber); err != nil {
			if isUniqueViolation(err, "users_email_key") {
				return errs.E(errs.Conflict, "email_taken", "An account with this email already exists")
			}
			return errs.Wrap(err, "insert user")
		}
		if role != RoleUser {
			if err := setRole(ctx, tx, actor, u.ID, role); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO credentials (user_id, password_hash) VALUES ($1, $2)`, u.ID, hash); err != nil {
			return errs.Wrap(err, "insert credentials")
		}
		self := actor
		if !actor.CLI {
			self = Actor{UserID: u.ID, Role: role}
		}
		if err := audit(ctx, tx, self, AuditEntry{Action: "REGISTER", Table: "users", Description: "Registered user " + in.Email + " as " + role}); err != nil {
			return err
		}
		return tx.GetContext(ctx, &u, `SELECT `+userColumns+` `+userFrom+` WHERE u.id = $1`, u.ID)
	})
	return u, err
}

// LoginResult is a successful sign-in, or, when SecondFactor is set, a
// right password that waits for its two-factor code (no token yet: the
// server answers SecondFactor instead).
type LoginResult struct {
	Token        string              `json:"token"`
	ExpiresAt    time.Time           `json:"expires_at"`
	User         User                `json:"user"`
	SecondFactor *TwoFactorChallenge `json:"-"`
}

var errBadCredentials = errs.E(errs.Unauthorized, "invalid_credentials", "Invalid credentials")

// Login checks an email and password and issues a token. A wrong email and
// a wrong password get the same answer, in the same time. Before the
// password is hashed the attempt is claimed under the email and the client
// address (see signin.go): past 10 checks for the email, or 50 failures from
// the address, within 15 minutes, it answers too_many_attempts (429) without
// a bcrypt. A right password gives its claims back.
//
// With two-factor sign-in on, a right password issues no token: the result
// holds a challenge for VerifyTwoFactor (twofactor.go) instead.
//
// Returns invalid_input (empty, over-long or non-text email or password:
// checked before any query), invalid_credentials, user_deactivated (403),
// too_many_attempts (429), or busy (503) when no password-check slot frees
// in time (the claims are then given back).
func (s *Service) Login(ctx context.Context, in LoginInput) (LoginResult, error) {
	email, password := in.Email, in.Password
	if err := checkLogin(&email, password); err != nil {
		return LoginResult{}, err
	}
	now := s.now()
	// A malformed email cannot be anyone's: it costs no bcrypt and no email
	// claim, but still counts as a failure of the address.
	wellFormed := wellFormedEmail(email)
	var keys []throttleKey
	if k, ok := addressKey(in.IP); ok {
		keys = append(keys, k)
	}
	if wellFormed {
		keys = append(keys, emailKey(email))
	}
	claims, err := s.claimAttempts(ctx, now, keys...)
	if err != nil {
		return LoginResult{}, err
	}
	var row struct {
		User
		Hash      string `db:"password_hash"`
		TwoFactor bool   `db:"two_factor"`
	}
	right := false
	if wellFormed {
		err := s.db.GetContext(ctx, &row, `SELECT `+userColumns+`, c.password_hash, f.enabled_at IS NOT NULL AS two_factor `+userFrom+`
			JOIN credentials c ON c.user_id = u.id LEFT JOIN two_factor f ON f.user_id = u.id
			WHERE lower(u.email) = lower($1)`, email)
		if err != nil && !notFound(err) {
			return LoginResult{}, errs.Wrap(err, "find user")
		}
		// An unknown email (no hash) is checked against a dummy hash: same time.
		if right, err = s.checkPassword(ctx, claims, row.Hash, password); err != nil {
			return LoginResult{}, err
		}
	}
	if !right {
		// The claims stay: they are the record of this failure.
		a, desc := Actor{}, "Failed sign-in for a malformed email"
		if wellFormed {
			desc = "Failed sign-in for " + email
		}
		if row.ID != 0 {
			a = Actor{UserID: row.ID, Role: row.Role}
		}
		if err := s.inTx(ctx, func(tx *sqlx.Tx) error {
			return audit(ctx, tx, a, AuditEntry{Action: "LOGIN_FAILED", Table: "users", Description: desc})
		}); err != nil {
			return LoginResult{}, err
		}
		return LoginResult{}, errBadCredentials
	}
	if !row.IsActive {
		if err := releaseAttempts(ctx, s.db, claims); err != nil {
			return LoginResult{}, err
		}
		return LoginResult{}, errs.E(errs.Forbidden, "user_deactivated", "This user is deactivated")
	}
	if row.TwoFactor {
		ch, err := s.startChallenge(ctx, row.User, claims, now)
		return LoginResult{SecondFactor: ch}, err
	}
	var res LoginResult
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := releaseAttempts(ctx, tx, claims); err != nil {
			return err
		}
		token, expires, err := s.issueSession(ctx, tx, row.ID, now, SessionMeta{UserAgent: in.UserAgent, IP: in.IP})
		if err != nil {
			return err
		}
		res = LoginResult{Token: token, ExpiresAt: expires, User: row.User}
		return audit(ctx, tx, Actor{UserID: row.ID, Role: row.Role}, AuditEntry{Action: "LOGIN", Table: "users", Description: "Signed in"})
	})
	if err != nil {
		return LoginResult{}, err
	}
	return res, nil
}

// Authenticate checks a bearer token and returns its user as they are now
// in the database: role and active flag are read on every request, from the
// database or, while revocation announcements reach this process, from the
// sessions it verified a moment ago (sessioncache.go).
//
// Returns invalid_token (bad, expired or revoked) or user_deactivated (401).
func (s *Service) Authenticate(ctx context.Context, token string) (Actor, error) {
	return s.authenticate(ctx, token, true)
}

// AuthenticateLive checks who opens a live connection (the WebSocket):
// the token, as Authenticate does, then the user_id sent along as text
// ("" when none), which must be the token's user.
//
// Returns invalid_token or user_deactivated (401), invalid_input (a user_id
// that is not a positive whole number) or forbidden (another user's id).
func (s *Service) AuthenticateLive(ctx context.Context, token, userID string) (Actor, error) {
	a, err := s.Authenticate(ctx, token)
	if err == nil && a.Scoped() {
		return Actor{}, ErrInsufficientScope // live notifications are for people signed in
	}
	if err != nil || userID == "" {
		return a, err
	}
	id, err := ParseID("user_id", userID)
	if err != nil {
		return Actor{}, err
	}
	if err := checkUserID(a, &id); err != nil {
		return Actor{}, err
	}
	return a, nil
}

// CheckSession is Authenticate without the session cache: it always asks
// the database (the WebSocket keepalive's backstop).
//
// Returns invalid_token or user_deactivated (401), as Authenticate.
func (s *Service) CheckSession(ctx context.Context, token string) (Actor, error) {
	return s.authenticate(ctx, token, false)
}

var errInvalidToken = errs.E(errs.Unauthorized, "invalid_token", "Your session is invalid or has expired; sign in again")

func (s *Service) authenticate(ctx context.Context, token string, cached bool) (Actor, error) {
	if strings.HasPrefix(token, PATPrefix) || strings.HasPrefix(token, OAuthPrefix) {
		return s.authenticateOpaque(ctx, token, cached)
	}
	now := s.now()
	claims, err := s.tokens.Parse(token, now)
	if err != nil {
		return Actor{}, errInvalidToken
	}
	e, epoch, ok := s.sessions.get(claims.ID, now)
	if ok && cached && e.actor.UserID == claims.UserID {
		s.touch(claims.ID, e.seen, now)
		return e.actor, nil
	}
	return s.verifyToken(ctx, claims.ID, epoch, now, `t.jti = $1 AND t.user_id = $2 AND t.kind = 'session'`, claims.ID, claims.UserID)
}

// verifyToken reads the token the condition where names (a session, or an
// access token by its hash) with its user as they are now, refuses it when
// revoked, expired or of a deactivated user, and keeps it in the session
// cache under key.
func (s *Service) verifyToken(ctx context.Context, key string, epoch uint64, now time.Time, where string, args ...any) (Actor, error) {
	var row struct {
		JTI      string         `db:"jti"`
		UserID   int64          `db:"id"`
		FullName string         `db:"full_name"`
		Role     string         `db:"role"`
		Active   bool           `db:"is_active"`
		Revoked  *time.Time     `db:"revoked_at"`
		Expires  time.Time      `db:"expires_at"`
		LastSeen time.Time      `db:"last_seen_at"`
		TwoFA    bool           `db:"two_factor"`
		Kind     string         `db:"kind"`
		Scopes   pq.StringArray `db:"scopes"`
		Accounts pq.StringArray `db:"accounts"`
		Limited  bool           `db:"limited"`
	}
	err := s.db.GetContext(ctx, &row, `
		SELECT t.jti, u.id, u.full_name, r.name AS role, u.is_active, t.revoked_at, t.expires_at, t.last_seen_at, t.kind, t.scopes,
			EXISTS (SELECT 1 FROM two_factor f WHERE f.user_id = u.id AND f.enabled_at IS NOT NULL) AS two_factor,
			g.accounts, g.id IS NOT NULL AS limited
		FROM auth_tokens t JOIN users u ON u.id = t.user_id JOIN roles r ON r.id = u.role_id
		LEFT JOIN oauth_grants g ON g.id = t.grant_id
		WHERE `+where, args...)
	if notFound(err) {
		return Actor{}, errInvalidToken
	}
	if err != nil {
		return Actor{}, errs.Wrap(err, "authenticate")
	}
	// A deactivated user's tokens are revoked too; while deactivated they
	// are told why. Once revoked, a token never works again.
	if !row.Active {
		return Actor{}, errs.E(errs.Unauthorized, "user_deactivated", "This user is deactivated")
	}
	if row.Revoked != nil || !now.Before(row.Expires) {
		return Actor{}, errInvalidToken
	}
	a := Actor{UserID: row.UserID, Role: row.Role, FullName: row.FullName, TokenID: row.JTI, TwoFactor: row.TwoFA,
		Kind: row.Kind, Scopes: []string(row.Scopes)}
	if row.Limited {
		a.Accounts = append([]string{}, row.Accounts...) // never nil: an app that was given none sees none
	}
	// The last use goes to the background flusher (sessions.go), never
	// written here: this read is the only query a request pays for its token.
	seen := &seenStamp{}
	seen.at.Store(row.LastSeen.UnixNano())
	s.touch(row.JTI, seen, now)
	s.sessions.putKey(key, a, seen, epoch, row.Expires, now)
	return a, nil
}

// Logout revokes the token the actor signed in with.
//
// Returns only internal errors (the database failed).
func (s *Service) Logout(ctx context.Context, a Actor) error {
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE auth_tokens SET revoked_at = now() WHERE jti = $1 AND revoked_at IS NULL`, a.TokenID); err != nil {
			return errs.Wrap(err, "revoke")
		}
		return audit(ctx, tx, a, AuditEntry{Action: "LOGOUT", Table: "auth_tokens", Description: "Signed out"})
	})
	if err == nil {
		s.forgetToken(a.TokenID)
	}
	return err
}

// Me returns the actor's own user.
//
// Returns user_not_found (404) for an actor without a user (the CLI).
func (s *Service) Me(ctx context.Context, a Actor) (User, error) {
	return s.getUser(ctx, s.db, a.UserID)
}

// errUserNotFound answers for a user id that names no user.
var errUserNotFound = errs.E(errs.NotFound, "user_not_found", "User not found")

func (s *Service) getUser(ctx context.Context, q sqlx.QueryerContext, id int64) (User, error) {
	var u User
	err := sqlx.GetContext(ctx, q, &u, `SELECT `+userColumns+` `+userFrom+` WHERE u.id = $1`, id)
	if notFound(err) {
		return u, errUserNotFound
	}
	return u, errs.Wrap(err, "get user")
}

// ResetPassword changes the actor's password after checking the old one,
// and revokes every other token of the actor. The check of the old password
// is claimed against the same per-email throttle as sign-in, before it is
// hashed; a wrong one writes a PASSWORD_RESET_FAILED audit row (never the
// password) in a transaction of its own.
//
// Returns invalid_input (a missing or wrong old_password, a new_password
// outside 8 to 72 bytes), too_many_attempts (429), or busy (503) when no
// password-check slot frees in time.
func (s *Service) ResetPassword(ctx context.Context, a Actor, oldPassword, newPassword string) error {
	if oldPassword == "" {
		return errs.Field("old_password", "old_password is required")
	}
	if err := checkPasswordInput("old_password", oldPassword); err != nil {
		return err
	}
	if err := checkPassword("new_password", newPassword); err != nil {
		return err
	}
	ok, claims, err := s.checkOwnPassword(ctx, a, oldPassword)
	if err != nil {
		return err
	}
	if !ok {
		if err := s.inTx(ctx, func(tx *sqlx.Tx) error {
			return audit(ctx, tx, a, AuditEntry{Action: "PASSWORD_RESET_FAILED", Table: "credentials", Description: "Password reset refused: wrong old password"})
		}); err != nil {
			return err
		}
		return errs.Field("old_password", "The old password is incorrect")
	}
	newHash, err := s.hashPassword(ctx, newPassword)
	if err != nil {
		if rerr := releaseAttempts(context.WithoutCancel(ctx), s.db, claims); rerr != nil {
			return rerr
		}
		return err
	}
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := releaseAttempts(ctx, tx, claims); err != nil {
			return err
		}
		// The hash, the other sessions' end and the audit row: in the one
		// function the runtime role may change a password with.
		var keep any
		if a.TokenID != "" {
			keep = a.TokenID
		}
		_, err := tx.ExecContext(ctx, `SELECT change_password($1, $2, $3)`, a.UserID, newHash, keep)
		return errs.Wrap(err, "change password")
	})
	if err == nil {
		// Its other sessions ended: none may be answered from memory.
		s.forgetUser(a.UserID)
	}
	return err
}
