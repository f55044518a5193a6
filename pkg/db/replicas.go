package db

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
)

// LSN is a position in PostgreSQL's write-ahead log (pg_lsn), as a number:
// a standby that has replayed up to an LSN shows every transaction that
// committed before it.
type LSN uint64

// ParseLSN reads the text form of a pg_lsn ("16/B374D848").
func ParseLSN(s string) (LSN, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok || hi == "" || lo == "" || len(hi) > 8 || len(lo) > 8 {
		return 0, fmt.Errorf("not a WAL position: %q", s)
	}
	h, err1 := strconv.ParseUint(hi, 16, 32)
	l, err2 := strconv.ParseUint(lo, 16, 32)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("not a WAL position: %q", s)
	}
	return LSN(h<<32 | l), nil
}

// String writes the LSN as PostgreSQL does ("16/B374D848").
func (l LSN) String() string { return fmt.Sprintf("%X/%X", uint64(l)>>32, uint64(l)&0xFFFFFFFF) }

type positionKey struct{}

// WithPosition returns ctx carrying the WAL position a read in it must see:
// Router.Reader answers a replica only once it has replayed at least pos.
// A larger position already in ctx wins.
func WithPosition(ctx context.Context, pos LSN) context.Context {
	if pos <= PositionFrom(ctx) {
		return ctx
	}
	return context.WithValue(ctx, positionKey{}, pos)
}

// PositionFrom returns the position ctx carries (0: none).
func PositionFrom(ctx context.Context) LSN {
	p, _ := ctx.Value(positionKey{}).(LSN)
	return p
}

// Replica is one read pool (database_read_urls) and what the router last
// measured of it.
type Replica struct {
	Name string // "replica1", "replica2", … in configuration order
	DB   *sqlx.DB

	replayed   atomic.Uint64 // highest replay position seen
	healthy    atomic.Bool   // it answered its last check
	lagBytes   atomic.Int64  // primary's WAL position minus its replay position, at the last measure
	lagSeconds atomic.Uint64 // math.Float64bits of the seconds since the last replayed commit, when behind
}

// Healthy reports whether the replica answered its last check.
func (r *Replica) Healthy() bool { return r.healthy.Load() }

// Replayed is the highest replay position the router has seen on it.
func (r *Replica) Replayed() LSN { return LSN(r.replayed.Load()) }

// LagBytes is how much WAL the replica had still to replay at the last measure.
func (r *Replica) LagBytes() int64 { return r.lagBytes.Load() }

// LagSeconds is how old the replica's last replayed commit was at the last
// measure, while it was behind (0 when it had replayed everything).
func (r *Replica) LagSeconds() float64 { return math.Float64frombits(r.lagSeconds.Load()) }

func (r *Replica) sawReplayed(pos LSN) {
	for {
		old := r.replayed.Load()
		if uint64(pos) <= old || r.replayed.CompareAndSwap(old, uint64(pos)) {
			return
		}
	}
}

// replayQuery answers how far a read pool has replayed; a server that is not
// in recovery (a read URL naming the primary itself, or a promoted standby)
// is as far as its own WAL.
const replayQuery = `SELECT CASE WHEN pg_is_in_recovery() THEN COALESCE(pg_last_wal_replay_lsn(), '0/0') ELSE pg_current_wal_insert_lsn() END::text`

func (r *Replica) position(ctx context.Context) (LSN, error) {
	var s string
	if err := r.DB.QueryRowContext(ctx, replayQuery).Scan(&s); err != nil {
		return 0, err
	}
	pos, err := ParseLSN(s)
	if err == nil {
		r.sawReplayed(pos)
	}
	return pos, err
}

// Router sends reads to the read replicas and everything else to the
// primary. A read that must see a write (its context carries the write's
// position, WithPosition) goes to a replica only once that replica has
// replayed the position; it waits at most the router's wait, polling, and
// otherwise reads from the primary (counted in Fallbacks).
type Router struct {
	primary  *sqlx.DB
	replicas []*Replica
	wait     time.Duration
	next     atomic.Uint64

	fallbacks atomic.Uint64 // reads sent to the primary because no replica had the position in time
	waited    atomic.Uint64 // reads that waited for a replica and got it
	primaryAt atomic.Uint64 // the highest WAL position seen on the primary

	mu     sync.Mutex
	latest map[int64]LSN // the last write position of each user, on this instance
}

// NewRouter returns a router over the primary and the read pools (none:
// every read goes to the primary). wait is config replica_wait (0: a read
// whose position the replica has not replayed at its first check goes to
// the primary at once). The replicas count as healthy until a check says
// otherwise (Measure).
func NewRouter(primary *sqlx.DB, replicas []*sqlx.DB, wait time.Duration) *Router {
	r := &Router{primary: primary, wait: wait, latest: map[int64]LSN{}}
	for i, db := range replicas {
		rep := &Replica{Name: fmt.Sprintf("replica%d", i+1), DB: db}
		rep.healthy.Store(true)
		r.replicas = append(r.replicas, rep)
	}
	return r
}

// OpenReplicas opens a pool per read URL with the options of Open, without
// waiting for them: a replica that does not answer yet is skipped by the
// router until it does (Measure). As with Open, a replica behind a pooler
// that refuses the options as startup parameters (PgBouncer) runs without
// them, with the role's settings.
func OpenReplicas(urls []string, opts ...Option) ([]*sqlx.DB, error) {
	var out []*sqlx.DB
	for _, u := range urls {
		db, err := open(u, opts...)
		if err != nil {
			for _, o := range out {
				o.Close()
			}
			return nil, fmt.Errorf("database_read_urls: %s %w", redact(u), err)
		}
		out = append(out, db)
	}
	return out, nil
}

// redact hides a URL's password for an error message.
func redact(u string) string {
	if p, err := url.Parse(u); err == nil && strings.Contains(u, "://") {
		return p.Redacted()
	}
	return "(a key=value address)"
}

// Replicas are the read pools, in configuration order.
func (r *Router) Replicas() []*Replica { return r.replicas }

// HasReplicas reports whether any read URL is configured.
func (r *Router) HasReplicas() bool { return r != nil && len(r.replicas) > 0 }

// Fallbacks counts the reads that went to the primary because no replica
// had replayed their position within the wait (or none was healthy).
func (r *Router) Fallbacks() uint64 { return r.fallbacks.Load() }

// Waited counts the reads that waited for a replica to replay their
// position and then read from it.
func (r *Router) Waited() uint64 { return r.waited.Load() }

// pick returns the next healthy replica, round robin, or nil.
func (r *Router) pick() *Replica {
	n := len(r.replicas)
	start := r.next.Add(1)
	for i := 0; i < n; i++ {
		rep := r.replicas[(start+uint64(i))%uint64(n)]
		if rep.healthy.Load() {
			return rep
		}
	}
	return nil
}

// checkTimeout is the least time a replica has to answer a check of its
// replay position before it counts as down.
const checkTimeout = 100 * time.Millisecond

// Reader returns the pool a read in ctx should use: a healthy replica that
// has replayed PositionFrom(ctx), or the primary. It polls the replica's
// replay position (1 ms, doubling to 10 ms) for at most the router's wait.
func (r *Router) Reader(ctx context.Context) *sqlx.DB {
	if !r.HasReplicas() {
		return r.primary
	}
	rep := r.pick()
	if rep == nil {
		r.fallbacks.Add(1)
		return r.primary
	}
	want := PositionFrom(ctx)
	if want == 0 || rep.Replayed() >= want {
		return rep.DB
	}
	deadline := time.Now().Add(r.wait)
	pause := time.Millisecond
	for {
		// Each check may take at least checkTimeout, even past the wait.
		pctx, cancel := context.WithTimeout(ctx, max(time.Until(deadline), checkTimeout))
		got, err := rep.position(pctx)
		cancel()
		if err == nil && got >= want {
			r.waited.Add(1)
			return rep.DB
		}
		if err != nil && ctx.Err() == nil {
			rep.healthy.Store(false) // not answering: skipped until Measure sees it again
		}
		left := time.Until(deadline)
		if err != nil || left <= 0 || ctx.Err() != nil {
			break
		}
		t := time.NewTimer(min(pause, left))
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
		pause = min(2*pause, 10*time.Millisecond)
	}
	r.fallbacks.Add(1)
	return r.primary
}

// CommitPosition returns the primary's WAL insert position: taken after a
// commit, it is at or past that commit's record, so a replica that has
// replayed it shows the commit. (The insert position, not the write
// position: with synchronous_commit off the commit record may not be
// written yet when COMMIT returns.)
func (r *Router) CommitPosition(ctx context.Context) (LSN, error) {
	var s string
	if err := r.primary.QueryRowContext(ctx, `SELECT pg_current_wal_insert_lsn()::text`).Scan(&s); err != nil {
		return 0, err
	}
	pos, err := ParseLSN(s)
	if err == nil {
		r.sawPrimary(pos)
	}
	return pos, err
}

func (r *Router) sawPrimary(pos LSN) {
	for {
		old := r.primaryAt.Load()
		if uint64(pos) <= old || r.primaryAt.CompareAndSwap(old, uint64(pos)) {
			return
		}
	}
}

// Reached reports whether the primary's WAL has reached pos. A position a
// client sends back (HeaderCommitLSN) must be one the primary has passed:
// any answer gave such a one, and a read would wait replica_wait in vain
// for a position no replica will replay soon. It asks the primary only
// when pos is past the highest position this router has seen there (after
// writes, and at each Measure), so a client's own positions cost nothing.
// A router without read replicas answers too: it has the primary.
func (r *Router) Reached(ctx context.Context, pos LSN) (bool, error) {
	if pos <= LSN(r.primaryAt.Load()) {
		return true, nil
	}
	now, err := r.CommitPosition(ctx)
	if err != nil {
		return false, err
	}
	return pos <= now, nil
}

// Remember records the position of a user's write on this instance, so
// that user's next reads here wait for it even without the header.
func (r *Router) Remember(user int64, pos LSN) {
	if user == 0 || pos == 0 {
		return
	}
	r.mu.Lock()
	if pos > r.latest[user] {
		r.latest[user] = pos
	}
	r.mu.Unlock()
}

// Remembered returns the position of the user's last write on this
// instance that some replica may not have replayed yet (0: none).
func (r *Router) Remembered(user int64) LSN {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.latest[user]
}

// Measure checks every replica: whether it answers, how far it has
// replayed, and how far behind the primary it is in bytes and seconds.
// Then it forgets remembered positions that every replica has replayed.
func (r *Router) Measure(ctx context.Context) error {
	if !r.HasReplicas() {
		return nil
	}
	var primary LSN
	var s string
	perr := r.primary.QueryRowContext(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&s)
	if perr == nil {
		primary, perr = ParseLSN(s)
	}
	if perr == nil {
		r.sawPrimary(primary)
	}
	lowest := LSN(math.MaxUint64)
	for _, rep := range r.replicas {
		var inRecovery bool
		var replay string
		var seconds float64
		err := rep.DB.QueryRowContext(ctx, `SELECT pg_is_in_recovery(), (`+replayQuery+`),
			COALESCE(EXTRACT(epoch FROM now() - pg_last_xact_replay_timestamp()), 0)::float8`).Scan(&inRecovery, &replay, &seconds)
		var pos LSN
		if err == nil {
			pos, err = ParseLSN(replay)
		}
		rep.healthy.Store(err == nil)
		if err != nil {
			lowest = 0
			continue
		}
		rep.sawReplayed(pos)
		lowest = min(lowest, rep.Replayed())
		var bytes int64
		if perr == nil && primary > pos {
			bytes = int64(primary - pos)
		}
		// An idle standby's last replayed commit grows old without it
		// being behind: it lags only while WAL is left to replay.
		if !inRecovery || bytes == 0 {
			seconds = 0
		}
		rep.lagBytes.Store(bytes)
		rep.lagSeconds.Store(math.Float64bits(max(seconds, 0)))
	}
	r.mu.Lock()
	for user, pos := range r.latest {
		if pos <= lowest {
			delete(r.latest, user)
		}
	}
	r.mu.Unlock()
	return perr
}

// RunMonitor measures the replicas every interval until ctx ends.
func (r *Router) RunMonitor(ctx context.Context, every time.Duration, log *slog.Logger) {
	if !r.HasReplicas() {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		mctx, cancel := context.WithTimeout(ctx, every)
		if err := r.Measure(mctx); err != nil && ctx.Err() == nil {
			log.Debug("measuring replica lag", "err", err)
		}
		cancel()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
