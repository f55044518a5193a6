package bank

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"meridian/pkg/errs"
)

// Personal access tokens (contract §9). A program (a script, the CLI after
// `meridian login`) holds a token of the user's, limited to the scopes the
// user chose, for at most a year. Its text is shown once; only its SHA-256
// is kept, as a row of auth_tokens (kind pat), so it ends as a session
// does: revoked, expired, or with its user's deactivation, on every
// instance within the revocation announcement's delay.

// Prefixes of the opaque tokens programs hold: what a token is can be told
// from its text (and a secret scanner can find one pasted somewhere).
const (
	PATPrefix   = "mrd_pat_"
	OAuthPrefix = "mrd_oat_"
)

// Bounds of a personal access token's life, in days.
const (
	MinTokenDays = 1
	MaxTokenDays = 365
)

// AccessToken is a personal access token as its owner lists it (never its text).
type AccessToken struct {
	ID         int64     `json:"id" db:"id"`
	Name       string    `json:"name" db:"name"`
	Scopes     []string  `json:"scopes" db:"-"`
	CreatedAt  time.Time `json:"created_at" db:"issued_at"`
	ExpiresAt  time.Time `json:"expires_at" db:"expires_at"`
	LastUsedAt time.Time `json:"last_used_at" db:"last_seen_at"`
}

// NewAccessToken is a token just created: the only answer that holds its text.
type NewAccessToken struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	Scopes    []string  `json:"scopes"`
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expires_at"`
}

// TokenInput is the body of a request for a personal access token.
type TokenInput struct {
	Name          string   `json:"name"`
	Scopes        []string `json:"scopes"`
	ExpiresInDays int      `json:"expires_in_days"`
	Password      string   `json:"password"`
	Code          string   `json:"code"`
}

var errTokenNotFound = errs.E(errs.NotFound, "token_not_found", "Access token not found")

// newOpaqueToken returns prefix + 256 random bits and the SHA-256 of the whole text.
func newOpaqueToken(prefix string) (string, []byte, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", nil, err
	}
	tok := prefix + base64.RawURLEncoding.EncodeToString(raw)
	return tok, hashToken(tok), nil
}

func hashToken(tok string) []byte {
	h := sha256.Sum256([]byte(tok))
	return h[:]
}

// CreateAccessToken makes a personal access token of the actor's for the
// scopes asked, valid ExpiresInDays days. It takes the password and, when
// two-factor sign-in is on, a current code, as a sign-in does (the same
// throttle); a wrong one writes an audit row.
//
// Returns insufficient_scope or forbidden (403: a token, the CLI),
// invalid_input (name, scopes, days, a missing or wrong password),
// scope_not_allowed (403: an admin scope for a customer),
// invalid_two_factor_code (401), too_many_attempts (429) or busy (503).
func (s *Service) CreateAccessToken(ctx context.Context, a Actor, in TokenInput) (NewAccessToken, error) {
	if err := requireSession(a); err != nil {
		return NewAccessToken{}, err
	}
	name, err := clean("name", in.Name, MaxNameLen, true)
	if err != nil {
		return NewAccessToken{}, err
	}
	scopes, err := checkScopes("scopes", in.Scopes, a.Role, false)
	if err != nil {
		return NewAccessToken{}, err
	}
	if in.ExpiresInDays < MinTokenDays || in.ExpiresInDays > MaxTokenDays {
		return NewAccessToken{}, errs.Field("expires_in_days", fmt.Sprintf("expires_in_days must be between %d and %d", MinTokenDays, MaxTokenDays))
	}
	out := NewAccessToken{Name: name, Scopes: scopes}
	err = s.confirmIdentity(ctx, a, in.Password, in.Code, identityCheck{what: "Creating an access token", failAction: "TOKEN_CREATE_FAILED", table: "auth_tokens"}, func(tx *sqlx.Tx) error {
		tok, hash, err := newOpaqueToken(PATPrefix)
		if err != nil {
			return errs.Wrap(err, "token")
		}
		now := s.now()
		out.Token, out.ExpiresAt = tok, now.Add(time.Duration(in.ExpiresInDays)*24*time.Hour).UTC().Truncate(time.Second)
		if err := tx.GetContext(ctx, &out.ID, `
			INSERT INTO auth_tokens (jti, user_id, issued_at, expires_at, last_seen_at, kind, name, scopes, token_hash)
			VALUES ($1, $2, $3, $4, $3, 'pat', $5, $6, $7) RETURNING id`,
			uuid.NewString(), a.UserID, now, out.ExpiresAt, name, pq.Array(scopes), hash); err != nil {
			return errs.Wrap(err, "store token")
		}
		return audit(ctx, tx, a, AuditEntry{Action: "TOKEN_CREATE", Table: "auth_tokens",
			Description: fmt.Sprintf("Created access token %d %q (%s, %d days)", out.ID, name, strings.Join(scopes, " "), in.ExpiresInDays)})
	})
	return out, err
}

// FreshSignIn is how long after a two-factor sign-in its session may
// confirm the user without a second code (confirmIdentity).
const FreshSignIn = 5 * time.Minute

// identityCheck says what confirmIdentity confirms: what (the start of the
// audit row's sentence when refused), the refusal's audit action and table,
// and whether a code is needed even from a fresh two-factor session.
type identityCheck struct {
	what, failAction, table string
	alwaysCode              bool
}

// confirmIdentity checks the actor's password (claimed against the sign-in
// throttle) and, when two-factor sign-in is on, a code (used once), then
// runs fn in the transaction that uses the code. A session signed in with
// two-factor sign-in less than FreshSignIn ago needs no code (unless
// alwaysCode). A wrong password or code writes an audit row of its own.
func (s *Service) confirmIdentity(ctx context.Context, a Actor, password, code string, check identityCheck, fn func(tx *sqlx.Tx) error) error {
	if password == "" {
		return errs.Field("password", "password is required")
	}
	if err := checkPasswordInput("password", password); err != nil {
		return err
	}
	st, err := s.TwoFactorStatus(ctx, a)
	if err != nil {
		return err
	}
	needCode := st.Enabled
	if needCode && code == "" && !check.alwaysCode {
		// A session that passed two-factor sign-in a moment ago stands for
		// the code (as "sudo mode" does): `meridian login` asks for one
		// code, signs in with it, then makes its token.
		// Only a session that began after two-factor sign-in was turned on
		// passed it (a sign-in then asks for a code): one signed in with the
		// password alone just before turning it on stands for nothing.
		var fresh bool
		if err := s.db.GetContext(ctx, &fresh, `SELECT EXISTS (SELECT 1 FROM auth_tokens t JOIN two_factor f ON f.user_id = t.user_id
			WHERE t.jti = $1::uuid AND t.kind = 'session' AND t.issued_at > $2 AND t.issued_at > f.enabled_at)`,
			a.TokenID, s.now().Add(-FreshSignIn)); err != nil {
			return errs.Wrap(err, "session age")
		}
		needCode = !fresh
	}
	if needCode {
		if code, err = normalizeCode(code); err != nil {
			return err
		}
	}
	failed := func(desc string, refusal error) error {
		if err := s.inTx(ctx, func(tx *sqlx.Tx) error {
			return audit(ctx, tx, a, AuditEntry{Action: check.failAction, Table: check.table, Description: check.what + " refused: " + desc})
		}); err != nil {
			return err
		}
		return refusal
	}
	right, claims, err := s.checkOwnPassword(ctx, a, password)
	if err != nil {
		return err
	}
	if !right {
		return failed("wrong password", errs.Field("password", "The password is incorrect"))
	}
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		if needCode {
			ok, _, err := s.consumeCode(ctx, tx, a.UserID, code)
			if err != nil {
				return err
			}
			if !ok {
				return errWrongCode
			}
		}
		if err := releaseAttempts(ctx, tx, claims); err != nil {
			return err
		}
		return fn(tx)
	})
	if err == errWrongCode || err == errUsedBackupCode {
		return failed("wrong code", errs.Field("code", "The code is wrong or was already used"))
	}
	return err
}

// ListAccessTokens returns the actor's personal access tokens that are
// neither revoked nor expired, newest first, without their text.
//
// Returns insufficient_scope or forbidden (403).
func (s *Service) ListAccessTokens(ctx context.Context, a Actor) ([]AccessToken, error) {
	if err := requireSession(a); err != nil {
		return nil, err
	}
	var rows []struct {
		AccessToken
		JTI    string         `db:"jti"`
		Scopes pq.StringArray `db:"scopes"`
	}
	err := s.db.SelectContext(ctx, &rows, `
		SELECT id, jti, name, scopes, issued_at, expires_at, last_seen_at FROM auth_tokens
		WHERE user_id = $1 AND kind = 'pat' AND revoked_at IS NULL AND expires_at > $2
		ORDER BY id DESC`, a.UserID, s.now())
	if err != nil {
		return nil, errs.Wrap(err, "list tokens")
	}
	out := make([]AccessToken, len(rows))
	for i, r := range rows {
		out[i] = r.AccessToken
		out[i].Scopes = []string(r.Scopes)
		if at, ok := s.seen.lookup(r.JTI); ok && at.After(out[i].LastUsedAt) {
			out[i].LastUsedAt = at.UTC()
		}
	}
	return out, nil
}

// RevokeAccessToken ends one of the actor's personal access tokens at once.
//
// Returns insufficient_scope or forbidden (403) or token_not_found (404:
// another user's, or one already revoked or expired).
func (s *Service) RevokeAccessToken(ctx context.Context, a Actor, id int64) error {
	if err := requireSession(a); err != nil {
		return err
	}
	return s.revokeOwn(ctx, a, id, KindPAT, errTokenNotFound, func(string) AuditEntry {
		return AuditEntry{Action: "TOKEN_REVOKE", Table: "auth_tokens", Description: fmt.Sprintf("Revoked access token %d", id)}
	})
}

// authenticateOpaque checks a personal access token or a connected app's
// access token: by the SHA-256 of its text, from the session cache (keyed
// by that hash) or the database, with its user's role and active state as
// they are now, its scopes and (a connected app) the accounts it may see.
func (s *Service) authenticateOpaque(ctx context.Context, token string, cached bool) (Actor, error) {
	if len(token) > 200 {
		return Actor{}, errInvalidToken
	}
	now := s.now()
	hash := hashToken(token)
	key := "#" + hex.EncodeToString(hash)
	e, epoch, ok := s.sessions.get(key, now)
	if ok && cached {
		s.touch(e.actor.TokenID, e.seen, now)
		return e.actor, nil
	}
	return s.verifyToken(ctx, key, epoch, now, `t.token_hash = $1 AND t.kind IN ('pat', 'oauth')`, hash)
}
