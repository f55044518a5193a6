package bank

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// Postings: every movement of money is one.
//
// A customer's transfer, the acceptance of a money request, an
// administrator's deposit or withdrawal and each run of a scheduled transfer
// are postings, and every posting is made by the one SQL function post_batch
// (migrations/functions/post_batch.sql): one set of checks, one ledger
// writer, one builder of texts, the database's clock.
//
// An answer is always the truth (contract §5):
//
//   - Every posting has a key, the client's Idempotency-Key or one made here,
//     stored with its answer in the posting's own transaction. Sending a
//     posting again is therefore always safe: if it committed, the stored
//     answer comes back and nothing moves twice.
//   - A posting's statement is never cancelled from here: a cancelled
//     statement may be committing, and its caller could no longer learn
//     whether it did. Deadlines reach PostgreSQL instead, as lock_timeout
//     (what is left of the earliest caller's deadline) and the connection's
//     statement_timeout, and an error PostgreSQL answers means the statement
//     rolled back: only then is a caller told that nothing changed.
//   - When the connection breaks before the answer comes, the outcome is
//     unknown, and the batch is sent again, waiting for the locks an earlier
//     attempt may still hold, until PostgreSQL answers: the stored answer of
//     what committed, or the postings made now, once. Only when the
//     database cannot be reached for resolveWindow is a caller told
//     outcome_unknown (503), with the key to ask again with. (database/sql
//     itself sends a statement again on another connection only when
//     lib/pq finds its connection bad before sending it, driver.ErrBadConn;
//     either way a posting sent twice is made once, by its key.)
//
// No head-of-line blocking: postings wait in a queue and go to PostgreSQL in
// batches (at most Settings.TransferBatch postings, Settings.TransferBatch
// Workers batches in flight), one statement and one transaction per batch,
// each posting with its own answer. A batch never waits for a row lock that
// another transaction holds: post_batch locks with SKIP LOCKED and answers
// 'busy' for a posting whose account or request is held, and that posting
// goes back to the queue and is tried again shortly (every few
// milliseconds, within its caller's deadline) while the others go on. A
// batch PostgreSQL refuses as a whole (an entry raised an error, a key
// stored meanwhile by another request) rolled back entirely: its postings
// are sent again one by one, so one bad posting never costs the others
// theirs. A worker that panics answers its batch outcome_unknown (the keys
// tell) and the queue goes on.

// DefaultTransferBatch is the most postings one batch carries when
// Settings.TransferBatch is not set; DefaultTransferBatchWorkers the batches
// in flight at once.
const (
	DefaultTransferBatch        = 32
	DefaultTransferBatchWorkers = 1
)

// The kinds of posting (post_batch's p_kind).
const (
	postTransfer   = "transfer"
	postRequest    = "request"
	postDeposit    = "deposit"
	postWithdrawal = "withdrawal"
	postOpening    = "opening"    // an account's opening balance (customer_funding)
	postAdjustment = "adjustment" // a customer's edit of a balance (customer_funding)
	postExchange   = "exchange"   // between currencies, at a quote's rate (fx.go)
	postInterest   = "interest"   // interest paid from interest_expense (interest.go)
	postReversal   = "reversal"   // a posting undone, every leg the other way (reversals.go)
)

// posting is one movement of money as post_batch takes it.
type posting struct {
	kind        string
	actor       int64  // the user acting; 0: the operator at the command line
	from, to    string // account numbers; "": none
	request     int64  // the money request a "request" posting pays
	amount      money.Amount
	description string
	key         string // never empty: the client's Idempotency-Key or newKey()
	hash        string // what the posting asks for, to tell a replay of key from another request
	dated       any    // ledgerDate: the demo seed's past dates; nil: now
}

// newKey makes the key of a posting whose client sent none: 128 random
// bits, so it never meets a client's key by chance.
func newKey() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on a supported system
	}
	return hex.EncodeToString(b[:])
}

// Posted is a posting as it was answered: Body is the answer's JSON as the
// API sends it, stored under Key. Replayed: the answer was stored by an
// earlier request under the same key and nothing moved now.
type Posted struct {
	Body     json.RawMessage
	Key      string
	Replayed bool
}

// postAnswer is one posting's answer as post_batch gave it; busy: one of
// its rows was held by another transaction, nothing was checked.
type postAnswer struct {
	out  Posted
	err  error
	busy bool
}

// The answers a posting can get that say it did not happen (503, Retry-After).
var (
	// errTimedOut: its deadline passed before it could be made; nothing of
	// it was written.
	errTimedOut = errs.E(errs.Unavailable, "timeout", "The request took too long and was cancelled; nothing was changed. Please try again")
)

// unknownOutcome is the cause of an outcome_unknown answer: the key to ask
// again with.
type unknownOutcome struct {
	key   string
	cause error
}

func (u *unknownOutcome) Error() string {
	return fmt.Sprintf("outcome of key %s unknown: %v", u.key, u.cause)
}
func (u *unknownOutcome) Unwrap() error { return u.cause }

// errOutcomeUnknown is the answer for a write that may or may not have
// committed: the server could not learn which. key is what to send the
// request again with ("" for a write without one).
func errOutcomeUnknown(key string, cause error) error {
	msg := "We could not confirm whether this was done. Please check before trying again"
	if key != "" {
		msg = "We could not confirm whether this was done. Send it again with the same Idempotency-Key (" + key + ") to find out; it will never be done twice"
	}
	return &errs.Error{Kind: errs.Unavailable, Code: "outcome_unknown", Message: msg, Cause: &unknownOutcome{key: key, cause: cause}}
}

// OutcomeKey returns the Idempotency-Key of a posting answered
// outcome_unknown, to send it again with ("" for any other error).
func OutcomeKey(err error) string {
	var u *unknownOutcome
	if errors.As(err, &u) {
		return u.key
	}
	return ""
}

// refusals are the answers post_batch refuses with, by their code.
var refusals = map[string]error{
	"account_not_found":       errs.ErrAccountNotFound,
	"same_account":            errSameAccount,
	"account_closed":          errRecipientClosed,
	"payer_closed":            errs.E(errs.Unprocessable, "account_closed", "The paying account is closed"),
	"this_account_closed":     errAccountClosed,
	"recipient_inactive":      errRecipientInactive,
	"currency_mismatch":       errCurrencyMismatch,
	"insufficient_funds":      errInsufficientFunds,
	"daily_limit_exceeded":    errDailyLimit,
	"idempotency_key_reused":  errKeyReused,
	"request_not_found":       errRequestNotFound,
	"request_not_pending":     errRequestNotPending,
	"holder_not_customer":     errHolderNotCustomer,
	"quote_not_found":         errQuoteNotFound,
	"quote_expired":           errQuoteExpired,
	"quote_used":              errQuoteUsed,
	"transaction_not_found":   errTransactionNotFound,
	"already_reversed":        errAlreadyReversed,
	"reversal_not_reversible": errReversalNotReversible,
	"user_deactivated":        errs.E(errs.Unauthorized, "user_deactivated", "This user is deactivated"),
}

// postRow is post_batch's answer to one posting, as it came.
type postRow struct {
	ord           int
	replayed      bool
	body, refused sql.NullString
}

// answer reads a postRow for the posting keyed key.
func (r postRow) answer(key string) postAnswer {
	if r.refused.Valid {
		if r.refused.String == "busy" {
			return postAnswer{busy: true}
		}
		if e, ok := refusals[r.refused.String]; ok {
			return postAnswer{err: e}
		}
		return postAnswer{err: errs.Wrap(errors.New(r.refused.String), "posting refused")}
	}
	return postAnswer{out: Posted{Body: json.RawMessage(r.body.String), Key: key, Replayed: r.replayed}}
}

// errPostingBusy: a row of a posting made inside a caller's transaction
// is held by another transaction (post_batch waits for none).
var errPostingBusy = errors.New("a row of the posting is held by another transaction")

// postInTx makes one posting inside the caller's transaction tx, so it
// commits with the caller's other writes (a scheduled run's row, an
// account's creation). err is the statement's own failure (PostgreSQL
// raised, and tx is aborted); otherwise the answer tells: made, refused
// (answer.err) or busy (one of its rows held by another transaction).
func (s *Service) postInTx(ctx context.Context, tx *sqlx.Tx, p posting) (postAnswer, error) {
	answers, err := post(ctx, tx, []posting{p}, postOptions{dailyLimit: s.settings.DailyTransferLimit})
	if err != nil {
		return postAnswer{}, err
	}
	return answers[0], nil
}

// madeInTx is what postInTx's answer means for its caller: the posting, or
// the error to return (errPostingBusy for a held row).
func madeInTx(a postAnswer, err error) (Posted, error) {
	switch {
	case err != nil:
		return Posted{}, backstop(err)
	case a.busy:
		return Posted{}, errPostingBusy
	}
	return a.out, a.err
}

// postOptions are how post_batch runs a batch.
type postOptions struct {
	wait       bool          // wait for row locks (resolving); else skip them ('busy')
	lockWait   time.Duration // lock_timeout for the batch; 0: the connection's own
	dailyLimit money.Amount  // the configured default daily limit
}

// post sends postings as one post_batch statement on q (the pool, or the
// scheduler's transaction) and returns each one's answer, in order. An
// error means the statement failed: a *pq.Error (PostgreSQL rolled it back:
// nothing of it committed) or another (the outcome is unknown).
func post(ctx context.Context, q sqlx.QueryerContext, ps []posting, o postOptions) ([]postAnswer, error) {
	n := len(ps)
	kinds, from, to, amounts, descriptions, keys, hashes := make([]string, n), make([]sql.NullString, n), make([]sql.NullString, n),
		make([]sql.NullString, n), make([]string, n), make([]string, n), make([]string, n)
	actors, requests, dated := make([]sql.NullInt64, n), make([]sql.NullInt64, n), make([]sql.NullString, n)
	for i, p := range ps {
		kinds[i], descriptions[i], keys[i], hashes[i] = p.kind, p.description, p.key, p.hash
		actors[i] = sql.NullInt64{Int64: p.actor, Valid: p.actor != 0}
		from[i] = sql.NullString{String: p.from, Valid: p.from != ""}
		to[i] = sql.NullString{String: p.to, Valid: p.to != ""}
		requests[i] = sql.NullInt64{Int64: p.request, Valid: p.request != 0}
		amounts[i] = sql.NullString{String: p.amount.String(), Valid: p.kind != postRequest}
		if d, ok := p.dated.(time.Time); ok {
			dated[i] = sql.NullString{String: d.Format(time.RFC3339Nano), Valid: true}
		}
	}
	var lockWait sql.NullInt64
	if o.lockWait > 0 {
		lockWait = sql.NullInt64{Int64: max(o.lockWait.Milliseconds(), 1), Valid: true}
	}
	rows, err := q.QueryContext(ctx, `SELECT ord, replayed, body, refused FROM post_batch(
		$1::text[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::numeric[], $7::text[], $8::text[], $9::text[], $10::timestamptz[],
		$11, $12, $13, $14)`,
		pq.Array(kinds), pq.Array(actors), pq.Array(from), pq.Array(to), pq.Array(requests), pq.Array(amounts), pq.Array(descriptions),
		pq.Array(keys), pq.Array(hashes), pq.Array(dated), IdempotencyWindow.String(), o.dailyLimit, lockWait, o.wait)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	answers := make([]postAnswer, n)
	seen := 0
	for rows.Next() {
		var r postRow
		if err := rows.Scan(&r.ord, &r.replayed, &r.body, &r.refused); err != nil {
			return nil, err
		}
		if r.ord < 1 || r.ord > n {
			return nil, errOrdinal
		}
		answers[r.ord-1] = r.answer(ps[r.ord-1].key)
		seen++
	}
	// The statement's commit (and any error raised inside it) is known
	// only once every row has been read.
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if seen != n {
		return nil, errOrdinal
	}
	return answers, nil
}

var errOrdinal = errors.New("post_batch answered out of order")

// refusedByDatabase reports whether err is PostgreSQL's own answer that the
// statement failed (it rolled back), as opposed to a broken connection or
// an answer that could not be read (the outcome is unknown).
func refusedByDatabase(err error) bool {
	var pe *pq.Error
	return errors.As(err, &pe)
}

// databaseDown reports PostgreSQL's answer that it cannot serve now: a
// connection exception (class 08), or it is shutting down or starting up
// (57P01, 57P02, 57P03). The statement did not run; the database may be
// back in a moment.
func databaseDown(err error) bool {
	var pe *pq.Error
	if !errors.As(err, &pe) {
		return false
	}
	return pe.Code.Class() == "08" || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
}

// timedOutInDatabase reports PostgreSQL's lock_timeout (55P03) or
// statement_timeout (57014): the statement rolled back for want of time.
func timedOutInDatabase(err error) bool {
	var pe *pq.Error
	return errors.As(err, &pe) && (pe.Code == "55P03" || pe.Code == "57014")
}

// PostingStats counts what the posting queue did in this process.
type PostingStats struct {
	Batches   int64 // statements sent (a batch of one included)
	Postings  int64 // postings they carried (a posting sent again counts again)
	Largest   int64 // the most postings one batch carried
	Fallbacks int64 // batches sent again one by one after failing whole
	Busy      int64 // postings sent again because a row of theirs was held
	Resolved  int64 // batches sent again after a broken connection
	Unknown   int64 // postings answered outcome_unknown
	Panics    int64 // batches whose worker panicked
}

// postQueue batches the Service's postings.
type postQueue struct {
	db      *sqlx.DB
	max     int    // postings per batch (1: each alone)
	workers int    // batches in flight
	after   func() // after a commit (the sealer's poke)
	log     *slog.Logger
	limit   func() money.Amount // the configured default daily limit

	mu      sync.Mutex
	queue   []*queuedPosting
	running int
	wake    chan struct{} // something was queued: a sleeping worker looks again

	// hook, when set (tests), runs before each batch is sent.
	hook func(batch []*queuedPosting)

	batches, postings, largest, fallbacks, busy, resolved, unknown, panics atomic.Int64
}

// queuedPosting is one caller's posting and where its answer goes.
type queuedPosting struct {
	ctx   context.Context // the caller's: its deadline bounds the lock waits
	p     posting
	done  chan postAnswer
	state postState // under postQueue.mu
	// alone: sent in a batch of its own (its batch failed whole before);
	// notBefore: not sent again before this (it was busy); backoff: the
	// next wait when busy again.
	alone     bool
	notBefore time.Time
	backoff   time.Duration
}

type postState int

const (
	stateQueued   postState = iota // in postQueue.queue
	stateSending                   // taken by a worker: it answers
	stateAnswered                  // done holds the answer
)

// Busy postings are tried again after busyBackoff, doubling up to
// busyBackoffMax, until their caller's deadline.
const (
	busyBackoff    = time.Millisecond
	busyBackoffMax = 32 * time.Millisecond
)

// resolveWindow is how long a batch whose connection broke is sent again
// (the database may be restarting, or failing over) before its callers are
// answered outcome_unknown.
var resolveWindow = 15 * time.Second

// batchTimeout bounds one batch's wait for its answer from here. A batch is
// never cancelled for one caller's deadline; statement_timeout bounds it in
// the database, and past this the connection is given up as broken (the
// batch is then resolved like one whose connection broke).
const batchTimeout = time.Minute

func newPostQueue(db *sqlx.DB, max, workers int, limit func() money.Amount, after func(), log *slog.Logger) *postQueue {
	if max <= 0 {
		max = DefaultTransferBatch
	}
	if workers <= 0 {
		workers = DefaultTransferBatchWorkers
	}
	return &postQueue{db: db, max: max, workers: workers, limit: limit, after: after, log: log, wake: make(chan struct{}, 1)}
}

// do queues p and waits for its answer. A caller whose context ends while
// its posting waits in the queue is answered at once (nothing of it was
// written); once a batch has taken it, the caller waits for the batch,
// however long its deadline is past, and learns what happened to its money.
func (q *postQueue) do(ctx context.Context, p posting) (Posted, error) {
	t := &queuedPosting{ctx: ctx, p: p, done: make(chan postAnswer, 1)}
	q.push(t)
	select {
	case a := <-t.done:
		return a.out, a.err
	case <-ctx.Done():
	}
	q.mu.Lock()
	if t.state == stateQueued {
		q.removeLocked(t)
		t.state = stateAnswered
		q.mu.Unlock()
		return Posted{}, errTimedOut
	}
	q.mu.Unlock()
	a := <-t.done
	return a.out, a.err
}

// push queues t and makes sure a worker will take it.
func (q *postQueue) push(t *queuedPosting) {
	q.mu.Lock()
	q.enqueueLocked(t)
}

// enqueueLocked queues t, unlocks q.mu and makes sure a worker will take
// t: it starts one when fewer than workers run, else wakes a sleeping one.
func (q *postQueue) enqueueLocked(t *queuedPosting) {
	t.state = stateQueued
	q.queue = append(q.queue, t)
	start := q.running < q.workers
	if start {
		q.running++
	}
	q.mu.Unlock()
	if start {
		go q.work()
		return
	}
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *postQueue) removeLocked(t *queuedPosting) {
	for i, x := range q.queue {
		if x == t {
			q.queue = append(q.queue[:i], q.queue[i+1:]...)
			return
		}
	}
}

// answer gives t its answer (once).
func (q *postQueue) answer(t *queuedPosting, a postAnswer) {
	q.mu.Lock()
	if t.state == stateAnswered {
		q.mu.Unlock()
		return
	}
	t.state = stateAnswered
	q.mu.Unlock()
	t.done <- a
}

// requeue puts t back to be sent again: after a backoff when it was busy,
// alone when its batch failed whole. A caller out of time is answered
// instead: nothing of its posting was written.
func (q *postQueue) requeue(t *queuedPosting, busy bool) {
	q.mu.Lock()
	if t.state != stateSending {
		q.mu.Unlock()
		return
	}
	if t.ctx.Err() != nil {
		t.state = stateAnswered
		q.mu.Unlock()
		t.done <- postAnswer{err: errTimedOut}
		return
	}
	if busy {
		if t.backoff == 0 {
			t.backoff = busyBackoff
		}
		t.notBefore = time.Now().Add(t.backoff)
		t.backoff = min(2*t.backoff, busyBackoffMax)
	} else {
		t.alone = true
	}
	q.enqueueLocked(t)
}

// work runs batches until the queue is empty.
func (q *postQueue) work() {
	for {
		batch, wait := q.take()
		switch {
		case batch != nil:
			q.runSafely(batch)
		case wait < 0:
			return
		default:
			// Only postings waiting out a backoff: sleep until the first is
			// due, or something new is queued.
			timer := time.NewTimer(wait)
			select {
			case <-timer.C:
			case <-q.wake:
				timer.Stop()
			}
		}
	}
}

// take removes the next batch from the queue: up to max postings that are
// due, in arrival order, without two under one actor's key (the second
// waits for the next batch, where it finds the first's answer), or one
// posting marked alone. It answers the postings whose caller gave up while
// they were queued. With no batch it returns how long until one is due,
// or -1 when the queue is empty (and this worker stops).
func (q *postQueue) take() ([]*queuedPosting, time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := time.Now()
	var batch []*queuedPosting
	var keys map[idemKey]bool
	var wait time.Duration = -1
	rest := q.queue[:0]
	for _, t := range q.queue {
		if err := t.ctx.Err(); err != nil {
			t.state = stateAnswered
			t.done <- postAnswer{err: errTimedOut}
			continue
		}
		if len(batch) == q.max || (len(batch) > 0 && (t.alone || batch[0].alone)) {
			rest = append(rest, t)
			continue
		}
		if t.notBefore.After(now) {
			if d := t.notBefore.Sub(now); wait < 0 || d < wait {
				wait = d
			}
			rest = append(rest, t)
			continue
		}
		id := idemKey{t.p.actor, t.p.key}
		if keys[id] {
			rest = append(rest, t)
			continue
		}
		if keys == nil {
			keys = map[idemKey]bool{}
		}
		keys[id] = true
		t.state = stateSending
		batch = append(batch, t)
	}
	clear(q.queue[len(rest):])
	q.queue = rest
	if len(batch) > 0 {
		return batch, 0
	}
	if len(q.queue) == 0 {
		q.running--
		return nil, -1
	}
	if wait < 0 {
		wait = busyBackoff // only postings held back behind a key: look again soon
	}
	return nil, wait
}

type idemKey struct {
	user int64
	key  string
}

// runSafely runs one batch; a panic answers the batch's callers
// outcome_unknown (the batch may have committed: their keys tell) and the
// worker goes on with the queue.
func (q *postQueue) runSafely(batch []*queuedPosting) {
	defer func() {
		if r := recover(); r != nil {
			q.panics.Add(1)
			q.log.Error("posting worker panicked; its batch is answered outcome_unknown", "panic", r, "stack", string(debug.Stack()))
			for _, t := range batch {
				q.unknown.Add(1)
				q.answer(t, postAnswer{err: errOutcomeUnknown(t.p.key, fmt.Errorf("panic: %v", r))})
			}
		}
	}()
	q.run(batch)
}

// run sends one batch and answers each of its callers, or puts them back.
func (q *postQueue) run(batch []*queuedPosting) {
	if q.hook != nil {
		q.hook(batch)
	}
	q.batches.Add(1)
	q.postings.Add(int64(len(batch)))
	for n := int64(len(batch)); ; {
		l := q.largest.Load()
		if n <= l || q.largest.CompareAndSwap(l, n) {
			break
		}
	}
	ps := make([]posting, len(batch))
	for i, t := range batch {
		ps[i] = t.p
	}
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	defer cancel()
	answers, err := post(ctx, q.db, ps, postOptions{lockWait: lockWait(batch), dailyLimit: q.limit()})
	switch {
	case err == nil:
		q.deliver(batch, answers)
	case databaseDown(err):
		// The database cannot serve now (restarting, failing over): the
		// statement did not run. The postings wait in the queue, within
		// their deadlines, for it to come back.
		for _, t := range batch {
			q.requeue(t, true)
		}
	case refusedByDatabase(err) && len(batch) > 1:
		// PostgreSQL refused the statement: nothing of the batch
		// happened. Each posting goes again alone, so one bad posting
		// never costs the others theirs.
		q.fallbacks.Add(1)
		for _, t := range batch {
			q.requeue(t, false)
		}
	case refusedByDatabase(err):
		t := batch[0]
		switch {
		case retryable(err):
			q.requeue(t, true) // a key stored meanwhile, a deadlock: again, shortly
		case timedOutInDatabase(err):
			// A lock (a daily count, a key being stored) held past the
			// caller's deadline or the connection's lock_timeout, or the
			// statement past statement_timeout: it rolled back.
			q.answer(t, postAnswer{err: errTimedOut})
		default:
			q.answer(t, postAnswer{err: backstop(err)})
		}
	case neverSent(err):
		// No connection could be made: nothing of the batch reached the
		// database. Its postings wait in the queue, within their
		// deadlines, for the database to come back.
		for _, t := range batch {
			q.requeue(t, true)
		}
	default:
		// The connection broke, or the answer could not be read: the batch
		// may have committed. Its callers wait while it is resolved.
		q.resolved.Add(1)
		go q.resolve(batch, err)
	}
}

// neverSent reports an error from connecting (dialing) to the database:
// the statement never left this process.
func neverSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// deliver answers the postings of a batch that committed, and puts back
// the busy ones.
func (q *postQueue) deliver(batch []*queuedPosting, answers []postAnswer) {
	committed := false
	for _, a := range answers {
		committed = committed || (!a.busy && a.err == nil && !a.out.Replayed)
	}
	if committed {
		q.after()
	}
	for i, t := range batch {
		if answers[i].busy {
			q.busy.Add(1)
			q.requeue(t, true)
			continue
		}
		q.answer(t, answers[i])
	}
}

// resolve finds out what became of a batch whose connection broke (cause)
// by sending it again, waiting for the locks the first attempt may still
// hold: the keys make each posting answer what committed, or be made now,
// once. It goes on while the database cannot be reached, for
// resolveWindow; the callers still unanswered then get outcome_unknown.
func (q *postQueue) resolve(batch []*queuedPosting, cause error) {
	defer func() {
		if r := recover(); r != nil {
			q.panics.Add(1)
			q.log.Error("resolving a posting batch panicked", "panic", r, "stack", string(debug.Stack()))
			q.giveUp(batch, fmt.Errorf("panic: %v", r))
		}
	}()
	q.log.Warn("a posting batch's connection broke before its answer; sending it again to learn its outcome", "postings", len(batch), "err", cause)
	deadline := time.Now().Add(resolveWindow)
	pending := batch
	for delay := 50 * time.Millisecond; len(pending) > 0 && time.Now().Before(deadline); delay = min(2*delay, time.Second) {
		ps := make([]posting, len(pending))
		for i, t := range pending {
			ps[i] = t.p
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Until(deadline)+5*time.Second)
		answers, err := post(ctx, q.db, ps, postOptions{wait: true, lockWait: time.Until(deadline), dailyLimit: q.limit()})
		cancel()
		switch {
		case err == nil:
			// A stored answer found now is, but for a client's own retry
			// racing this one, the first attempt's: the posting this caller
			// asked for, made once. It is answered as made, not replayed.
			for i := range answers {
				answers[i].out.Replayed = false
			}
			q.after()
			q.deliver(pending, answers)
			return
		case refusedByDatabase(err) && len(pending) > 1:
			// Refused whole: the postings one by one.
			for _, t := range pending {
				q.resolve([]*queuedPosting{t}, cause)
			}
			return
		case refusedByDatabase(err) && !retryable(err) && !databaseDown(err):
			// A lock the first attempt may hold was not let go in time, or
			// the posting itself fails: what the first attempt did stays
			// unknown.
			q.giveUp(pending, err)
			return
		}
		cause = err
		time.Sleep(delay)
	}
	q.giveUp(pending, cause)
}

// giveUp answers outcome_unknown to the postings of batch not answered yet.
func (q *postQueue) giveUp(batch []*queuedPosting, cause error) {
	for _, t := range batch {
		q.mu.Lock()
		done := t.state == stateAnswered
		q.mu.Unlock()
		if !done {
			q.unknown.Add(1)
			q.log.Error("the outcome of a posting is unknown", "key", t.p.key, "kind", t.p.kind, "err", cause)
			q.answer(t, postAnswer{err: errOutcomeUnknown(t.p.key, cause)})
		}
	}
}

// lockWait is how long the batch may wait for a lock: what is left of the
// earliest deadline among its callers (0 when none has one: the
// connection's lock_timeout applies). No caller then waits past its
// deadline behind a lock: the batch fails whole, and each goes again alone.
func lockWait(batch []*queuedPosting) time.Duration {
	var earliest time.Time
	for _, t := range batch {
		if d, ok := t.ctx.Deadline(); ok && (earliest.IsZero() || d.Before(earliest)) {
			earliest = d
		}
	}
	if earliest.IsZero() {
		return 0
	}
	return max(time.Until(earliest), time.Millisecond)
}

// Stats reports what the queue did so far.
func (q *postQueue) Stats() PostingStats {
	return PostingStats{Batches: q.batches.Load(), Postings: q.postings.Load(), Largest: q.largest.Load(), Fallbacks: q.fallbacks.Load(),
		Busy: q.busy.Load(), Resolved: q.resolved.Load(), Unknown: q.unknown.Load(), Panics: q.panics.Load()}
}
