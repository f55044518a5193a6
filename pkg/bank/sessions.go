package bank

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"meridian/pkg/errs"
)

// Sessions. Every sign-in token is a session (a row of auth_tokens) that
// records what signed in (the User-Agent), from where (the client address)
// and when it was last used. Its owner can list them and end any of them;
// ending one revokes its token, which the database announces on
// meridian_revoked, so every instance's session cache forgets it and its
// WebSockets close within a second.

// Session is one of a user's signed-in sessions as the API shows it. ID is
// the session's own number, not the token's identifier.
type Session struct {
	ID         int64     `json:"id" db:"id"`
	CreatedAt  time.Time `json:"created_at" db:"created_at"`
	LastSeenAt time.Time `json:"last_seen_at" db:"last_seen_at"`
	UserAgent  string    `json:"user_agent" db:"user_agent"`
	IP         *string   `json:"ip" db:"ip"` // null when it was not signed in over the network
	Current    bool      `json:"current" db:"current"`
}

// MaxUserAgentLen is how much of a User-Agent a session keeps.
const MaxUserAgentLen = 255

// SanitizeUserAgent makes a User-Agent header storable: invalid UTF-8 and
// control characters are dropped, spaces trimmed, and it is cut to
// MaxUserAgentLen characters. A header is the client's to write, so it is
// never a reason to refuse a sign-in.
func SanitizeUserAgent(v string) string {
	v = strings.ToValidUTF8(v, "")
	v = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return -1
		}
		return r
	}, v)
	v = strings.TrimSpace(v)
	if utf8.RuneCountInString(v) > MaxUserAgentLen {
		v = strings.TrimSpace(string([]rune(v)[:MaxUserAgentLen]))
	}
	return v
}

// SessionMeta is what a new session records about its client.
type SessionMeta struct {
	UserAgent string     // as sent; sanitized when stored
	IP        netip.Addr // zero: not over the network
}

func (m SessionMeta) ip() any {
	if !m.IP.IsValid() {
		return nil
	}
	return m.IP.Unmap().WithZone("").String()
}

// issueSession signs a token for userID and stores its session row in tx.
func (s *Service) issueSession(ctx context.Context, tx *sqlx.Tx, userID int64, now time.Time, meta SessionMeta) (string, time.Time, error) {
	token, tc, err := s.tokens.Issue(userID, now)
	if err != nil {
		return "", time.Time{}, errs.Wrap(err, "issue token")
	}
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO auth_tokens (jti, user_id, issued_at, expires_at, user_agent, ip, last_seen_at)
		VALUES ($1, $2, $3, $4, $5, $6::inet, $3)`,
		tc.ID, userID, now, tc.ExpiresAt, SanitizeUserAgent(meta.UserAgent), meta.ip()); err != nil {
		return "", time.Time{}, errs.Wrap(err, "store token")
	}
	return token, tc.ExpiresAt, nil
}

// sessionSeenEvery is how often, at most, a session's last use is written.
const sessionSeenEvery = time.Minute

// seenSessions collects the sessions used since the last flush, so that
// their last use is written by one UPDATE in the background, never by the
// request that used them. A request marks its session only when the last
// use known for it is a minute old or more (the session cache keeps that
// time for its entries, so a cached request costs one atomic load), and a
// session marked twice before a flush is written once: each session's
// last_seen_at is written at most about once a minute.
type seenSessions struct {
	mu      sync.Mutex
	pending map[string]time.Time // jti -> when it was used
}

func newSeenSessions() *seenSessions { return &seenSessions{pending: map[string]time.Time{}} }

func (p *seenSessions) mark(jti string, at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.pending) >= sessionCacheMax { // a flusher that cannot write: drop, never grow without bound
		return
	}
	if at.After(p.pending[jti]) {
		p.pending[jti] = at
	}
}

// take empties the set and returns what it held.
func (p *seenSessions) take() map[string]time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.pending
	p.pending = map[string]time.Time{}
	return out
}

// restore puts back marks a flush could not write.
func (p *seenSessions) restore(m map[string]time.Time) {
	for jti, at := range m {
		p.mark(jti, at)
	}
}

// lookup returns the pending mark of jti, if any.
func (p *seenSessions) lookup(jti string) (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	at, ok := p.pending[jti]
	return at, ok
}

// seenStamp is the last use of a cached session this process knows of (Unix
// nanoseconds), shared by the cache entry and the requests that hit it.
type seenStamp struct{ at atomic.Int64 }

// touch marks the session used at now when the last known use is a minute
// old or more. Only the request that moves the stamp marks it.
func (s *Service) touch(jti string, st *seenStamp, now time.Time) {
	last := st.at.Load()
	if now.UnixNano()-last < int64(sessionSeenEvery) {
		return
	}
	if st.at.CompareAndSwap(last, now.UnixNano()) {
		s.seen.mark(jti, now)
	}
}

// FlushSessionsSeen writes the last use of every session marked since the
// previous flush, in one UPDATE. Marks it could not write are kept for the
// next flush.
//
// Returns only internal errors (the database failed).
func (s *Service) FlushSessionsSeen(ctx context.Context) error {
	marks := s.seen.take()
	if len(marks) == 0 {
		return nil
	}
	jtis := make([]string, 0, len(marks))
	ats := make([]string, 0, len(marks))
	for jti, at := range marks {
		jtis = append(jtis, jti)
		ats = append(ats, at.UTC().Format(time.RFC3339Nano))
	}
	_, err := s.db.ExecContext(ctx, `
		UPDATE auth_tokens t SET last_seen_at = v.seen
		FROM unnest($1::uuid[], $2::timestamptz[]) AS v(jti, seen)
		WHERE t.jti = v.jti AND t.revoked_at IS NULL AND t.last_seen_at < v.seen`,
		pq.Array(jtis), pq.Array(ats))
	if err != nil {
		s.seen.restore(marks)
		return errs.Wrap(err, "write sessions' last use")
	}
	return nil
}

// RunSessionsSeen flushes the sessions' last use every interval until ctx
// is done, and once more then, so a stopping serve loses none.
func (s *Service) RunSessionsSeen(ctx context.Context, interval time.Duration, log *slog.Logger) {
	if interval <= 0 {
		interval = 15 * time.Second
	}
	if log == nil {
		log = slog.Default()
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := s.FlushSessionsSeen(fctx); err != nil {
				log.Warn("writing sessions' last use", "err", err)
			}
			return
		case <-t.C:
			if err := s.FlushSessionsSeen(ctx); err != nil && ctx.Err() == nil {
				log.Warn("writing sessions' last use", "err", err)
			}
		}
	}
}

var errSessionNotFound = errs.E(errs.NotFound, "session_not_found", "Session not found")

// requireSession guards the session calls: a signed-in user with a token
// (the CLI has no session of its own).
func requireSession(a Actor) error {
	if a.Scoped() {
		return ErrInsufficientScope
	}
	if a.CLI || a.UserID == 0 || a.TokenID == "" {
		return errs.ErrForbidden
	}
	return nil
}

// ListSessions returns the actor's sessions that are neither ended nor
// expired, newest first; Current marks the one the request came with. A
// last use not yet written by the flusher is shown as this process knows it.
//
// Returns forbidden (the CLI has no sessions).
func (s *Service) ListSessions(ctx context.Context, a Actor) ([]Session, error) {
	if err := requireSession(a); err != nil {
		return nil, err
	}
	var rows []struct {
		Session
		JTI string `db:"jti"`
	}
	err := s.db.SelectContext(ctx, &rows, `
		SELECT id, jti, issued_at AS created_at, last_seen_at, user_agent, host(ip) AS ip, jti = $2::uuid AS current
		FROM auth_tokens
		WHERE user_id = $1 AND kind = 'session' AND revoked_at IS NULL AND expires_at > $3
		ORDER BY id DESC`, a.UserID, a.TokenID, s.now())
	if err != nil {
		return nil, errs.Wrap(err, "list sessions")
	}
	out := make([]Session, len(rows))
	for i, r := range rows {
		out[i] = r.Session
		if at, ok := s.seen.lookup(r.JTI); ok && at.After(out[i].LastSeenAt) {
			out[i].LastSeenAt = at.UTC()
		}
	}
	return out, nil
}

// EndSession signs one of the actor's sessions out (the current one too):
// its token is revoked, and the revocation's announcement closes its
// WebSockets on every instance. Another user's session, or one already
// ended or expired, is not found.
//
// Returns forbidden (the CLI) or session_not_found (404).
func (s *Service) EndSession(ctx context.Context, a Actor, id int64) error {
	if err := requireSession(a); err != nil {
		return err
	}
	return s.revokeOwn(ctx, a, id, KindSession, errSessionNotFound, func(jti string) AuditEntry {
		desc := fmt.Sprintf("Signed out session %d", id)
		if jti == a.TokenID {
			desc += " (this session)"
		}
		return AuditEntry{Action: "SESSION_END", Table: "auth_tokens", Description: desc}
	})
}

// revokeOwn revokes the actor's token of kind with the public number id,
// audited as entry says, and forgets it: its WebSockets close on every
// instance. Another user's, or one revoked or expired, is notFoundErr.
func (s *Service) revokeOwn(ctx context.Context, a Actor, id int64, kind string, notFoundErr error, entry func(jti string) AuditEntry) error {
	var jti string
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		err := tx.GetContext(ctx, &jti, `
			UPDATE auth_tokens SET revoked_at = now()
			WHERE id = $1 AND user_id = $2 AND kind = $4 AND revoked_at IS NULL AND expires_at > $3
			RETURNING jti`, id, a.UserID, s.now(), kind)
		if notFound(err) {
			return notFoundErr
		}
		if err != nil {
			return errs.Wrap(err, "revoke")
		}
		return audit(ctx, tx, a, entry(jti))
	})
	if err == nil {
		s.forgetToken(jti)
	}
	return err
}

// EndOtherSessions signs out every session of the actor but the current one.
//
// Returns forbidden (the CLI).
func (s *Service) EndOtherSessions(ctx context.Context, a Actor) error {
	if err := requireSession(a); err != nil {
		return err
	}
	var ended []string
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		ended = ended[:0]
		if err := tx.SelectContext(ctx, &ended, `
			UPDATE auth_tokens SET revoked_at = now()
			WHERE user_id = $1 AND kind = 'session' AND jti <> $2::uuid AND revoked_at IS NULL
			RETURNING jti`, a.UserID, a.TokenID); err != nil {
			return errs.Wrap(err, "end other sessions")
		}
		return audit(ctx, tx, a, AuditEntry{Action: "SESSION_END_OTHERS", Table: "auth_tokens",
			Description: fmt.Sprintf("Signed out every other session (%d)", len(ended))})
	})
	if err == nil {
		for _, jti := range ended {
			s.forgetToken(jti)
		}
	}
	return err
}
