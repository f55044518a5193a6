// Package auth signs and checks Meridian's tokens (HS256 JWTs) and hashes
// passwords (bcrypt). Whether a token is revoked, and who its user is now,
// is the bank service's question: it asks the database on every request.
package auth

import (
	"context"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"golang.org/x/crypto/bcrypt"
)

// ErrInvalidToken covers every token that must be refused: malformed,
// tampered, expired, wrong algorithm.
var ErrInvalidToken = errors.New("invalid token")

// Tokens issues and verifies signed tokens.
type Tokens struct {
	secret []byte
	ttl    time.Duration
}

// NewTokens returns a token signer. The secret must be at least 32 bytes.
func NewTokens(secret []byte, ttl time.Duration) (*Tokens, error) {
	if len(secret) < 32 {
		return nil, errors.New("the JWT secret must be at least 32 bytes")
	}
	return &Tokens{secret: secret, ttl: ttl}, nil
}

// Claims are what a token says.
type Claims struct {
	UserID    int64
	ID        string // jti, the row in auth_tokens
	ExpiresAt time.Time
}

// Issue signs a new token for userID.
func (t *Tokens) Issue(userID int64, now time.Time) (string, Claims, error) {
	c := Claims{UserID: userID, ID: uuid.NewString(), ExpiresAt: now.Add(t.ttl).UTC().Truncate(time.Second)}
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{
		Subject:   strconv.FormatInt(userID, 10),
		ID:        c.ID,
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(c.ExpiresAt),
		Issuer:    "meridian",
	})
	s, err := tok.SignedString(t.secret)
	return s, c, err
}

// Parse verifies the signature (HS256 only), expiry and shape of a token.
func (t *Tokens) Parse(s string, now time.Time) (Claims, error) {
	var rc jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(s, &rc, func(*jwt.Token) (any, error) { return t.secret, nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired(), jwt.WithIssuer("meridian"),
		jwt.WithTimeFunc(func() time.Time { return now }))
	if err != nil {
		return Claims{}, ErrInvalidToken
	}
	id, err := strconv.ParseInt(rc.Subject, 10, 64)
	if err != nil || id <= 0 || uuid.Validate(rc.ID) != nil {
		return Claims{}, ErrInvalidToken
	}
	return Claims{UserID: id, ID: rc.ID, ExpiresAt: rc.ExpiresAt.Time}, nil
}

// ErrBusy means every password-check slot stayed taken for the whole wait.
var ErrBusy = errors.New("too many password checks at once")

// Passwords runs bcrypt, at most n checks or hashes at once in this process,
// so a flood of sign-ins cannot take every core: a caller waits up to the
// configured time for a slot, then gets ErrBusy. Every bcrypt of the service
// goes through it (sign-in, registration, password reset).
type Passwords struct {
	slots chan struct{}
	wait  time.Duration
	runs  atomic.Int64
}

// NewPasswords returns a gate of n slots (n < 1: the number of cores) whose
// callers wait up to wait (wait <= 0: 2 s) for a slot.
func NewPasswords(n int, wait time.Duration) *Passwords {
	if n < 1 {
		n = runtime.NumCPU()
	}
	if wait <= 0 {
		wait = 2 * time.Second
	}
	return &Passwords{slots: make(chan struct{}, n), wait: wait}
}

// Hold takes a slot, waiting up to the gate's wait, and returns the function
// that gives it back. It returns ErrBusy when none freed in time, or the
// context's error.
func (p *Passwords) Hold(ctx context.Context) (release func(), err error) {
	release = func() { <-p.slots }
	select {
	case p.slots <- struct{}{}:
		return release, nil
	default:
	}
	t := time.NewTimer(p.wait)
	defer t.Stop()
	select {
	case p.slots <- struct{}{}:
		return release, nil
	case <-t.C:
		return nil, ErrBusy
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Runs reports how many bcrypt operations the gate has run.
func (p *Passwords) Runs() int64 { return p.runs.Load() }

// Hash hashes a password (HashPassword) in a slot.
func (p *Passwords) Hash(ctx context.Context, password string) (string, error) {
	release, err := p.Hold(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	p.runs.Add(1)
	return HashPassword(password)
}

// Check reports, in a slot, whether password matches hash (CheckPassword).
func (p *Passwords) Check(ctx context.Context, hash, password string) (bool, error) {
	release, err := p.Hold(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	p.runs.Add(1)
	return CheckPassword(hash, password), nil
}

// CheckNothing spends, in a slot, the time of one password check: for an
// unknown email, so that it answers in the time a known one does.
func (p *Passwords) CheckNothing(ctx context.Context, password string) error {
	release, err := p.Hold(ctx)
	if err != nil {
		return err
	}
	defer release()
	p.runs.Add(1)
	CheckNothing(password)
	return nil
}

// HashPassword hashes a password with bcrypt.
func HashPassword(password string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	return string(h), err
}

// CheckPassword reports whether password matches hash.
func CheckPassword(hash, password string) bool {
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
}

// dummyHash is compared against when an email is unknown, so a wrong email
// and a wrong password take the same time.
var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("meridian-timing-equaliser"), bcrypt.DefaultCost)

// CheckNothing spends the time of one password check.
func CheckNothing(password string) { _ = bcrypt.CompareHashAndPassword(dummyHash, []byte(password)) }

// LoadOrCreateSecret returns the secret kept in dir/jwt_secret, creating it
// (32 random bytes, hex, mode 0600) the first time.
func LoadOrCreateSecret(dir string) ([]byte, error) {
	path := filepath.Join(dir, "jwt_secret")
	if b, err := os.ReadFile(path); err == nil {
		if len(b) < 32 {
			return nil, fmt.Errorf("%s is shorter than 32 bytes; delete it to have a new one generated", path)
		}
		return b, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return nil, err
	}
	secret := []byte(hex.EncodeToString(raw))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) { // another process made it first
		return os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(secret); err != nil {
		f.Close()
		return nil, err
	}
	return secret, f.Close()
}

// DeriveKey derives a 32-byte key for one purpose from the token secret
// (HKDF-SHA256, the purpose as its info), so that what the server keeps
// encrypted or keyed at rest (two-factor secrets, backup codes) needs no
// key of its own, and no two purposes share one. Another jwt_secret derives
// other keys: what was sealed under the old one can no longer be read.
func (t *Tokens) DeriveKey(purpose string) []byte { return DeriveKeyFrom(t.secret, purpose) }

// DeriveKeyFrom derives a 32-byte key for purpose from secret (HKDF-SHA256),
// as DeriveKey does from the token secret.
func DeriveKeyFrom(secret []byte, purpose string) []byte {
	k, err := hkdf.Key(sha256.New, secret, nil, "meridian "+purpose, 32)
	if err != nil {
		panic(err) // only for a key length past 255 hash lengths
	}
	return k
}
