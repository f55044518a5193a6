package bank

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"net/mail"
	"net/netip"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"meridian/pkg/auth"
	"meridian/pkg/errs"
)

// The sign-in throttle. Before a password is hashed, the attempt is claimed
// in the database (table signin_attempts), under the email and under the
// client's address: at most maxEmailChecks claims per email and
// maxAddressFailures per address stay within signInWindow. The claim is
// taken under a per-key lock, so however many requests arrive at once, no
// more than the limit get a bcrypt; the rest get 429 without one. A
// successful check deletes its claims (a customer who signs in often is
// never locked out by it), so what counts are failures, and checks under
// way. The rows are shared by every serve instance.
const (
	maxEmailChecks     = 10
	maxAddressFailures = 50
	signInWindow       = 15 * time.Minute
	// signInLockClass is the first key of the two-key advisory locks taken
	// on throttle keys (0x5349, "SI"); the second is a hash of the key.
	signInLockClass = 0x5349
)

var (
	errTooManyAttempts = errs.E(errs.RateLimited, "too_many_attempts", "Too many failed sign-in attempts; try again in 15 minutes")
	errBusy            = errs.E(errs.Unavailable, "busy", "The bank is busy; please try again in a moment")
)

// LoginInput is a sign-in: the body, the client's address as the server
// determined it (the TCP peer, or X-Forwarded-For from a trusted proxy) and
// its User-Agent, which the new session records.
type LoginInput struct {
	Email     string     `json:"email"`
	Password  string     `json:"password"`
	IP        netip.Addr `json:"-"` // zero: not over the network, no per-address limit
	UserAgent string     `json:"-"` // as sent; sanitized when stored
}

// throttleKey is one counter of the throttle.
type throttleKey struct {
	kind  string // "email" or "address"
	key   string // SHA-256 hex of the normalised value: no raw client text is stored
	lock  int32  // second key of the advisory lock
	limit int
}

func newThrottleKey(kind, value string, limit int) throttleKey {
	sum := sha256.Sum256([]byte(kind + "\x00" + value))
	return throttleKey{kind: kind, key: hex.EncodeToString(sum[:]), lock: int32(binary.BigEndian.Uint32(sum[:4])), limit: limit}
}

// emailKey counts password checks for an email, compared case-insensitively.
func emailKey(email string) throttleKey {
	return newThrottleKey("email", strings.ToLower(strings.TrimSpace(email)), maxEmailChecks)
}

// addressKey counts failed sign-ins from a client address: an IPv4 address,
// or the /64 an IPv6 address is in (one host usually holds a whole /64).
func addressKey(ip netip.Addr) (throttleKey, bool) {
	if !ip.IsValid() {
		return throttleKey{}, false
	}
	ip = ip.Unmap().WithZone("")
	v := ip.String()
	if ip.Is6() {
		v = netip.PrefixFrom(ip, 64).Masked().String()
	}
	return newThrottleKey("address", v, maxAddressFailures), true
}

// claimAttempts takes one claim under each key, or none: when a key is at
// its limit it returns too_many_attempts and takes nothing. Callers pass the
// address key before the email key, always in that order, so two claims
// never wait for each other's locks in a cycle. The advisory lock is held to
// the commit, so the count the next claim reads includes this one.
func (s *Service) claimAttempts(ctx context.Context, now time.Time, keys ...throttleKey) ([]int64, error) {
	var ids []int64
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		ids = ids[:0]
		for _, k := range keys {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, signInLockClass, k.lock); err != nil {
				return errs.Wrap(err, "lock sign-in key")
			}
			var id int64
			err := tx.GetContext(ctx, &id, `
				INSERT INTO signin_attempts (kind, key, claimed_at)
				SELECT $1::text, $2::text, $3::timestamptz
				WHERE (SELECT count(*) FROM signin_attempts
				       WHERE kind = $1::text AND key = $2::text AND claimed_at > $4::timestamptz) < $5
				RETURNING id`, k.kind, k.key, now, now.Add(-signInWindow), k.limit)
			if notFound(err) {
				return errTooManyAttempts
			}
			if err != nil {
				return errs.Wrap(err, "claim sign-in attempt")
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// releaseAttempts gives claims back: the password was right, or it was never
// checked (the bank was busy).
func releaseAttempts(ctx context.Context, q sqlx.ExecerContext, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := q.ExecContext(ctx, `DELETE FROM signin_attempts WHERE id = ANY($1)`, pq.Array(ids))
	return errs.Wrap(err, "release sign-in attempts")
}

// checkPassword runs one bcrypt through the service's gate; an empty hash
// (no such user) spends the same time against a dummy hash. When no slot
// frees in time it gives the claims back and answers busy (503).
func (s *Service) checkPassword(ctx context.Context, claims []int64, hash, password string) (bool, error) {
	var ok bool
	var err error
	if hash == "" {
		err = s.passwords.CheckNothing(ctx, password)
	} else {
		ok, err = s.passwords.Check(ctx, hash, password)
	}
	if err != nil {
		if rerr := releaseAttempts(context.WithoutCancel(ctx), s.db, claims); rerr != nil {
			return false, rerr
		}
		return false, s.passwordErr(err)
	}
	return ok, nil
}

// hashPassword hashes a new password through the service's gate.
func (s *Service) hashPassword(ctx context.Context, password string) (string, error) {
	h, err := s.passwords.Hash(ctx, password)
	if err != nil {
		return "", s.passwordErr(err)
	}
	return h, nil
}

func (s *Service) passwordErr(err error) error {
	if errors.Is(err, auth.ErrBusy) {
		return errBusy
	}
	return errs.Wrap(err, "password check")
}

// purgeSignInAttempts forgets claims older than the window.
func (s *Service) purgeSignInAttempts(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM signin_attempts WHERE claimed_at <= $1`, s.now().Add(-signInWindow))
	return errs.Wrap(err, "purge sign-in attempts")
}

// wellFormedEmail reports whether e is an address registration would
// accept: only those are written into audit rows.
func wellFormedEmail(e string) bool {
	if e == "" || len(e) > 254 || !utf8.ValidString(e) {
		return false
	}
	for _, r := range e {
		if unicode.IsControl(r) {
			return false
		}
	}
	a, err := mail.ParseAddress(e)
	return err == nil && a.Address == e
}

// checkOwnPassword checks a signed-in user's password (password reset,
// turning two-factor sign-in off): the check is claimed against the same
// per-email throttle as sign-in before it is hashed. It returns whether the
// password is right and the claims, which the caller gives back on success.
func (s *Service) checkOwnPassword(ctx context.Context, a Actor, password string) (bool, []int64, error) {
	var cur struct {
		Hash  string `db:"password_hash"`
		Email string `db:"email"`
	}
	if err := s.db.GetContext(ctx, &cur, `SELECT c.password_hash, u.email FROM credentials c JOIN users u ON u.id = c.user_id WHERE c.user_id = $1`, a.UserID); err != nil {
		return false, nil, errs.Wrap(err, "read credentials")
	}
	claims, err := s.claimAttempts(ctx, s.now(), emailKey(cur.Email))
	if err != nil {
		return false, nil, err
	}
	right, err := s.checkPassword(ctx, claims, cur.Hash, password)
	return right, claims, err
}
