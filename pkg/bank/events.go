package bank

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/lib/pq"

	"meridian/pkg/errs"
)

// Events reach their followers in commit order through the sealer
// (migrations/0004_events.up.sql, function event_seal): a money transaction
// only inserts its audit and notification rows; afterwards the sealer numbers
// the committed rows (audit_chain, notification_feed), chains the audit rows'
// hashes, and announces each batch with one NOTIFY on SealedChannel. Followers
// (the WebSocket hub, `audit-log tail -f`) read "seq > last seen" and so see
// every row once, in the order it was sealed, which is commit order: see the
// comment on event_seal.
//
// No money transaction calls pg_notify any more. A transaction that has
// called it holds a database-wide lock from just before its commit until the
// commit is flushed, so money commits could not be flushed together.

// Channels of PostgreSQL NOTIFY that Meridian uses.
const (
	// SealedChannel announces a seal; the payload is "<notification seq>/<audit seq>".
	SealedChannel = "meridian_sealed"
	// RevokedChannel announces a revoked token (payload: its jti) or a
	// deactivated user (payload: "user:<id>"); triggers of migration 0004 send it.
	RevokedChannel = "meridian_revoked"
)

// sealMinGap spaces seals under load: a seal started right after another one
// that found many rows waits until this long after the previous start, so a
// busy server seals in batches of many rows rather than once per commit. It bounds what the
// sealer adds to a push's latency.
const sealMinGap = 10 * time.Millisecond

// sealQuietRows is how many rows a seal may find and still count the server
// as quiet: then the next seal runs at once, not sealMinGap after this one,
// so a push on a quiet server costs one seal, not the gap (one transfer
// writes two rows: its notification and its audit row).
const sealQuietRows = 4

// Sealed is the newest seq of each feed after a seal.
type Sealed struct {
	NotificationSeq int64
	AuditSeq        int64
	// Notifications are the ones this seal added to the feed, in seq order.
	Notifications []FeedNotification
	// ForeignLinks counts the links of the audit chain and entries of the
	// notification feed this seal found above the sealer's head, which no
	// seal wrote: the seal went on after them (audit-log verify names the
	// first link that does not verify).
	ForeignLinks int64
}

// Seal seals every committed audit and notification row not sealed yet, in
// one short transaction of its own, and returns the newest seq of each feed.
// Any number of processes may call it at once: seals run one at a time.
//
// Returns only internal errors (the database failed).
func (s *Service) Seal(ctx context.Context) (Sealed, error) {
	var r Sealed
	var feed []byte
	err := s.db.QueryRowContext(ctx, `SELECT notif_seq, audit_seq, sealed_notifications, foreign_links FROM event_seal()`).
		Scan(&r.NotificationSeq, &r.AuditSeq, &feed, &r.ForeignLinks)
	if err != nil {
		return r, errs.Wrap(err, "seal events")
	}
	if r.ForeignLinks > 0 {
		s.sealerForeign.Add(r.ForeignLinks)
	}
	if len(feed) > 0 {
		if err := json.Unmarshal(feed, &r.Notifications); err != nil {
			return r, errs.Wrap(err, "seal events: notifications")
		}
	}
	return r, nil
}

// SealerForeignLinks counts the links no seal wrote that this process's
// seals found (Sealed.ForeignLinks), for /metrics.
func (s *Service) SealerForeignLinks() int64 { return s.sealerForeign.Load() }

// SealedHere delivers the notifications each seal of RunSealer added to the
// feed, in seq order, once that seal has committed: the WebSocket hub of the
// same process pushes them without reading them back. A batch nobody takes
// at once is dropped; the hub then reads the feed as it does for the seals
// of other processes.
func (s *Service) SealedHere() <-chan []FeedNotification { return s.sealedHere }

// pokeSealer tells this process's sealer (RunSealer) that a transaction has
// committed. It never blocks and touches no database: pokes that arrive while
// a seal runs collapse into one more seal.
func (s *Service) pokeSealer() {
	select {
	case s.sealPoke <- struct{}{}:
	default:
	}
	s.pokeWebhooks() // the commit may have written webhook events
}

// RunSealer seals at once, then whenever a transaction of this process
// commits (coalesced), and at least every interval, so rows written by other
// instances or by the CLI are sealed too, until ctx ends. Failures (the
// database is down) are logged once and retried.
func (s *Service) RunSealer(ctx context.Context, interval time.Duration, log *slog.Logger) {
	if interval <= 0 {
		interval = time.Second
	}
	if log == nil {
		log = slog.Default()
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	var failing outage
	var last Sealed
	for {
		start := time.Now()
		sealed, err := s.Seal(ctx)
		busy := true // how the first seal counts: it may find a backlog
		if err == nil {
			busy = sealed.NotificationSeq-last.NotificationSeq+sealed.AuditSeq-last.AuditSeq > sealQuietRows
			last = sealed
		}
		if err == nil && len(sealed.Notifications) > 0 {
			select {
			case s.sealedHere <- sealed.Notifications:
			default:
			}
		}
		if err == nil && sealed.ForeignLinks > 0 {
			log.Error("the sealer found links of the audit chain or the notification feed that no seal wrote, and sealed on after them; run meridian audit-log verify",
				"foreign_links", sealed.ForeignLinks, "audit_seq", sealed.AuditSeq, "notification_seq", sealed.NotificationSeq)
		}
		failing.report(ctx, log, err, "sealing events")
		select {
		case <-ctx.Done():
			return
		case <-s.sealPoke:
			if wait := sealMinGap - time.Since(start); busy && wait > 0 {
				time.Sleep(wait)
			}
		case <-t.C:
		}
	}
}

// outage reports a background job's failure once, when it starts, and its
// recovery once, so an outage of the database is two log lines, not one a
// round.
type outage struct{ failing bool }

func (o *outage) report(ctx context.Context, log *slog.Logger, err error, what string) {
	switch {
	case err != nil && ctx.Err() == nil && !o.failing:
		log.Warn(what+" failed; retrying", "err", err)
		o.failing = true
	case err == nil && o.failing:
		log.Info(what + " again")
		o.failing = false
	}
}

// SealPending seals once if a transaction of this process committed since
// the last seal. A CLI command calls it before it exits, so what it wrote
// reaches live followers at once rather than at a serve's next tick.
//
// Returns only internal errors (the database failed).
func (s *Service) SealPending(ctx context.Context) error {
	select {
	case <-s.sealPoke:
		_, err := s.Seal(ctx)
		return err
	default:
		return nil
	}
}

// FeedNotification is a sealed notification, as the WebSocket fan-out reads it.
type FeedNotification struct {
	Seq       int64     `db:"seq" json:"seq"`
	ID        int64     `db:"id" json:"id"`
	UserID    int64     `db:"user_id" json:"user_id"`
	Message   string    `db:"message" json:"message"`
	CreatedAt time.Time `db:"created_at" json:"created_at"`
}

// NotificationFeedHead returns the newest sealed notification seq (0: none).
//
// Returns only internal errors (the database failed).
func (s *Service) NotificationFeedHead(ctx context.Context) (int64, error) {
	var seq int64
	err := s.db.GetContext(ctx, &seq, `SELECT notif_seq FROM event_sealer WHERE id = 1`)
	return seq, errs.Wrap(err, "notification feed head")
}

// NotificationsAfter returns up to limit sealed notifications with a seq
// above afterSeq, in seq order.
//
// Returns only internal errors (the database failed).
func (s *Service) NotificationsAfter(ctx context.Context, afterSeq int64, limit int) ([]FeedNotification, error) {
	out := []FeedNotification{}
	err := s.db.SelectContext(ctx, &out, `
		SELECT f.seq, n.id, n.user_id, n.message, n.created_at
		FROM notification_feed f JOIN notifications n ON n.id = f.notification_id
		WHERE f.seq > $1 ORDER BY f.seq LIMIT $2`, afterSeq, limit)
	return out, errs.Wrap(err, "notifications after")
}

// sealedAudit is an audit row with its place in the chain.
type sealedAudit struct {
	Seq int64 `db:"seq"`
	AuditRow
}

// selectSealedAudit reads sealedAudit: the audit rows the chain c holds.
const selectSealedAudit = `SELECT c.seq, ` + auditColumns + ` ` + auditFrom + ` JOIN audit_chain c ON c.audit_id = l.id`

// AuditTail seals, then returns the newest n sealed audit rows in seal order
// and the seq of the newest (0: none), from which AuditFollow continues.
// Returns admin_only (403) for a non-admin or invalid_input (n outside 1 to
// 1000).
func (s *Service) AuditTail(ctx context.Context, a Actor, n int) ([]AuditRow, int64, error) {
	if err := requireAdmin(a); err != nil {
		return nil, 0, err
	}
	if n < 1 || n > maxLimit {
		return nil, 0, errs.Field("n", "n must be between 1 and 1000")
	}
	if _, err := s.Seal(ctx); err != nil {
		return nil, 0, err
	}
	var rows []sealedAudit
	if err := s.db.SelectContext(ctx, &rows, selectSealedAudit+` ORDER BY c.seq DESC LIMIT $1`, n); err != nil {
		return nil, 0, errs.Wrap(err, "audit tail")
	}
	out := make([]AuditRow, len(rows))
	for i, r := range rows {
		out[len(rows)-1-i] = r.AuditRow
	}
	var last int64
	if len(rows) > 0 {
		last = rows[0].Seq
	}
	return out, last, nil
}

// FollowOptions configure AuditFollow.
type FollowOptions struct {
	DSN      string        // connection string for LISTEN; empty: poll only
	AfterSeq int64         // deliver rows sealed after this seq (from AuditTail)
	Poll     time.Duration // seal and read at least this often; default 1s
	Log      *slog.Logger  // outages are reported here
}

// AuditFollow delivers every audit row sealed after o.AfterSeq to fn, in seal
// (commit) order, each exactly once, until ctx ends or fn fails. Each round
// runs the sealer itself, so it needs no serve running; it wakes on each seal
// announced on SealedChannel and at least every o.Poll. It outlives a
// database restart: it reconnects and continues from the last seq delivered.
// Returns admin_only for a non-admin, or fn's error.
func (s *Service) AuditFollow(ctx context.Context, a Actor, o FollowOptions, fn func([]AuditRow) error) error {
	if err := requireAdmin(a); err != nil {
		return err
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	var wake <-chan *pq.Notification
	if o.DSN != "" {
		l := pq.NewListener(o.DSN, 100*time.Millisecond, 10*time.Second, nil)
		defer l.Close()
		if err := l.Listen(SealedChannel); err != nil && !errors.Is(err, pq.ErrChannelAlreadyOpen) {
			o.Log.Warn("audit follow: listen failed; polling", "err", err)
		}
		wake = l.Notify
	}
	tick := time.NewTicker(o.Poll)
	defer tick.Stop()
	last := o.AfterSeq
	failing := false
	for {
		err := s.followRound(ctx, &last, fn)
		var fnErr followError
		switch {
		case errors.As(err, &fnErr):
			return fnErr.error
		case err != nil && ctx.Err() == nil && !failing:
			o.Log.Warn("audit follow: database unavailable; retrying", "err", err)
			failing = true
		case err == nil && failing:
			o.Log.Info("audit follow: reconnected", "after_seq", last)
			failing = false
		}
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-tick.C:
		}
	}
}

// followError marks an error of the caller's function, which ends the follow.
type followError struct{ error }

// followRound seals, then hands fn every sealed row after *last, in batches.
func (s *Service) followRound(ctx context.Context, last *int64, fn func([]AuditRow) error) error {
	if _, err := s.Seal(ctx); err != nil {
		return err
	}
	for {
		var rows []sealedAudit
		if err := s.db.SelectContext(ctx, &rows, selectSealedAudit+` WHERE c.seq > $1 ORDER BY c.seq LIMIT 1000`, *last); err != nil {
			return errs.Wrap(err, "audit follow")
		}
		if len(rows) == 0 {
			return nil
		}
		out := make([]AuditRow, len(rows))
		for i, r := range rows {
			out[i] = r.AuditRow
		}
		if err := fn(out); err != nil {
			return followError{err}
		}
		*last = rows[len(rows)-1].Seq
	}
}

// ChainReport is the outcome of VerifyAuditChain.
type ChainReport struct {
	OK bool `json:"ok"`
	// VerifiedThrough is the id of the last audit row whose link verifies,
	// in seal order (null: none).
	VerifiedThrough *int64 `json:"verified_through"`
	// FirstBadID is the first audit row that was changed or removed (null when OK).
	FirstBadID *int64 `json:"first_bad_id"`
	// Problem says what is wrong with FirstBadID: ChainChanged, ChainMissing,
	// ChainBroken, ChainTruncated or ChainUnsealed.
	Problem string `json:"-"`
	// Head is the chain's last link (VerifyAuditLog): what to compare with
	// a checkpoint kept elsewhere.
	Head *AuditHead `json:"head,omitempty"`
	// Anchors is the check of the chain against the checkpoints
	// (VerifyAuditLog with a directory of them).
	Anchors *AnchorReport `json:"anchors,omitempty"`
}

// What VerifyAuditChain found wrong with the first bad row.
const (
	ChainChanged   = "changed"   // the row's fields no longer match its hash
	ChainMissing   = "missing"   // the row was deleted; its link remains
	ChainBroken    = "broken"    // links before this row were removed
	ChainTruncated = "truncated" // the chain's last links (through this row) were removed
	ChainUnsealed  = "unsealed"  // the row escaped the chain (its transaction id was forged or its link removed)
)

// Sentence describes a report for a person: the chain, its head, the
// checkpoints.
func (r ChainReport) Sentence() string {
	out := r.chainSentence()
	if r.Head != nil && r.Head.Seq > 0 {
		out += fmt.Sprintf(" Head: link %d (audit row %d), hash %s.", r.Head.Seq, r.Head.AuditID, r.Head.Hash)
	}
	if r.Anchors != nil {
		out += " " + r.Anchors.Sentence()
	}
	return out
}

func (r ChainReport) chainSentence() string {
	through := "no row verifies"
	if r.VerifiedThrough != nil {
		through = "rows verify through audit row " + strconv.FormatInt(*r.VerifiedThrough, 10)
	}
	if r.OK {
		if r.VerifiedThrough == nil {
			return "The audit log is intact (it is empty)."
		}
		return "The audit log is intact: " + through + "."
	}
	id := "?"
	if r.FirstBadID != nil {
		id = strconv.FormatInt(*r.FirstBadID, 10)
	}
	var what string
	switch r.Problem {
	case ChainChanged:
		what = "audit row " + id + " was changed"
	case ChainMissing:
		what = "audit row " + id + " was removed"
	case ChainBroken:
		what = "the chain breaks at audit row " + id + ": a row sealed just before it was removed"
	case ChainTruncated:
		what = "the newest rows, through audit row " + id + ", were removed"
	default:
		what = "audit row " + id + " is missing from the chain"
	}
	return "The audit log was tampered with: " + what + " (" + through + ")."
}

// VerifyAuditChain seals, then recomputes the audit chain in seal order from
// its genesis (32 zero bytes) and reports the first row that was changed or
// removed. It reads one snapshot. Returns admin_only for a non-admin.
func (s *Service) VerifyAuditChain(ctx context.Context, a Actor) (ChainReport, error) {
	if err := requireAdmin(a); err != nil {
		return ChainReport{}, err
	}
	if _, err := s.Seal(ctx); err != nil {
		return ChainReport{}, err
	}
	tx, err := s.db.BeginTxx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return ChainReport{}, errs.Wrap(err, "verify: begin")
	}
	defer tx.Rollback()
	rep := ChainReport{OK: true}
	// The first link that does not verify: its row is gone, its seq does not
	// follow the previous one, or its hash is not the digest of the previous
	// link's hash and the row as it is now.
	var bad struct {
		Seq        int64         `db:"seq"`
		AuditID    int64         `db:"audit_id"`
		Present    bool          `db:"present"`
		Contiguous bool          `db:"contiguous"`
		PrevID     sql.NullInt64 `db:"prev_id"`
	}
	err = tx.GetContext(ctx, &bad, `
		SELECT seq, audit_id, present, contiguous, prev_id FROM (
			SELECT c.seq, c.audit_id, l.id IS NOT NULL AS present,
				c.seq = lag(c.seq, 1, 0::bigint) OVER w + 1 AS contiguous,
				c.hash = audit_digest(lag(c.hash, 1, '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea) OVER w,
					l.id, l.actor_user_id, l.account_number, l.action_type, l.table_name, l.description, l.created_at) AS hash_ok,
				lag(c.audit_id) OVER w AS prev_id
			FROM audit_chain c LEFT JOIN audit_log l ON l.id = c.audit_id
			WINDOW w AS (ORDER BY c.seq)) x
		WHERE NOT (present AND contiguous AND coalesce(hash_ok, false))
		ORDER BY seq LIMIT 1`)
	switch {
	case err == nil:
		rep.OK = false
		rep.FirstBadID = &bad.AuditID
		if bad.PrevID.Valid {
			rep.VerifiedThrough = &bad.PrevID.Int64
		}
		switch {
		case !bad.Contiguous:
			rep.Problem = ChainBroken
		case !bad.Present:
			rep.Problem = ChainMissing
		default:
			rep.Problem = ChainChanged
		}
		return rep, nil
	case !notFound(err):
		return rep, errs.Wrap(err, "verify chain")
	}

	// Every link verifies. The sealer's head must be the chain's last link
	// (else links were cut from the end), and every row below the sealer's
	// horizon must be in the chain.
	var head struct {
		Seq      int64         `db:"audit_seq"`
		Hash     []byte        `db:"audit_hash"`
		LastID   sql.NullInt64 `db:"audit_last_id"`
		LinkSeq  int64         `db:"link_seq"`
		LinkHash []byte        `db:"link_hash"`
		LinkID   sql.NullInt64 `db:"link_id"`
	}
	err = tx.GetContext(ctx, &head, `
		SELECT s.audit_seq, s.audit_hash, s.audit_last_id,
			COALESCE(c.seq, 0) AS link_seq, COALESCE(c.hash, s.audit_hash) AS link_hash, c.audit_id AS link_id
		FROM event_sealer s LEFT JOIN LATERAL (
			SELECT seq, hash, audit_id FROM audit_chain ORDER BY seq DESC LIMIT 1) c ON true
		WHERE s.id = 1`)
	if err != nil {
		return rep, errs.Wrap(err, "verify head")
	}
	if head.LinkID.Valid {
		rep.VerifiedThrough = &head.LinkID.Int64
	}
	if head.LinkSeq != head.Seq || string(head.LinkHash) != string(head.Hash) {
		rep.OK = false
		rep.Problem = ChainTruncated
		if head.LastID.Valid {
			rep.FirstBadID = &head.LastID.Int64
		}
		return rep, nil
	}
	var stray sql.NullInt64
	err = tx.GetContext(ctx, &stray, `
		SELECT min(l.id) FROM audit_log l, event_sealer s
		WHERE s.id = 1 AND l.txid < s.audit_horizon
		  AND NOT EXISTS (SELECT 1 FROM audit_chain c WHERE c.audit_id = l.id)`)
	if err != nil {
		return rep, errs.Wrap(err, "verify unsealed")
	}
	if stray.Valid {
		rep.OK = false
		rep.Problem = ChainUnsealed
		rep.FirstBadID = &stray.Int64
	}
	return rep, nil
}

// ParseSealed reads a SealedChannel payload "<notification seq>/<audit seq>".
func ParseSealed(payload string) (Sealed, bool) {
	n, a, ok := strings.Cut(payload, "/")
	if !ok {
		return Sealed{}, false
	}
	ns, err1 := strconv.ParseInt(n, 10, 64)
	as, err2 := strconv.ParseInt(a, 10, 64)
	if err1 != nil || err2 != nil {
		return Sealed{}, false
	}
	return Sealed{NotificationSeq: ns, AuditSeq: as}, true
}
