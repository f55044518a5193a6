package bank

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"meridian/pkg/errs"
)

// Transfers in batches (migrations/0016).
//
// Every Transfer joins a queue. At most Settings.TransferBatchWorkers
// batches are in flight; each takes what is queued when it starts, up to
// Settings.TransferBatch transfers, and sends them in one statement,
// transfer_money_batch, one transaction. Nothing waits to fill a batch: on
// a quiet server a transfer finds a free worker and goes alone (as one
// transfer_money call), and under load the transfers that arrived while the
// previous batch ran go together. Each caller gets its own answer once the
// batch has committed, so a 201 is never sent for a transfer that could
// still roll back.
//
// A batch PostgreSQL refuses as a whole (an entry raised an error, a
// deadlock) rolled back entirely, and is run again entry by entry, each as
// its own transfer with its own retries and answer: one bad transfer never
// costs the others theirs. A batch whose outcome is unknown (the connection
// failed) is not run again: its callers get an error.

// DefaultTransferBatch is the most transfers one batch carries when
// Settings.TransferBatch is not set; DefaultTransferBatchWorkers the batches
// in flight at once.
const (
	DefaultTransferBatch        = 32
	DefaultTransferBatchWorkers = 1
)

// batchTimeout bounds one batch's wait for its answer. A batch runs for
// many callers, so no single request's deadline cancels it (a cancelled
// statement could not tell its callers whether it had committed); serve's
// statement_timeout and lock_timeout (request_timeout) bound it in the
// database, and past this the connection is given up.
const batchTimeout = time.Minute

// TransferBatchStats counts what the batcher did in this process.
type TransferBatchStats struct {
	Batches   int64 // statements sent (a batch of one included)
	Transfers int64 // transfers they carried
	Largest   int64 // the most transfers one batch carried
	Fallbacks int64 // batches run again entry by entry after failing whole
}

// transferQueue batches the Service's transfers.
type transferQueue struct {
	db      *sqlx.DB
	max     int    // transfers per batch (1: each alone)
	workers int    // batches in flight
	after   func() // after a commit (the sealer's poke)
	retry   func(func() error) error

	mu      sync.Mutex
	queue   []*queuedTransfer
	running int

	batches, transfers, largest, fallbacks atomic.Int64
}

// queuedTransfer is one caller's transfer and where its answer goes.
type queuedTransfer struct {
	ctx   context.Context // the caller's: while still queued, a cancelled one is dropped
	call  transferCall
	dated any // ledgerDate of the caller's context
	done  chan transferAnswer
}

type transferAnswer struct {
	out TransferResult
	err error
}

func newTransferQueue(db *sqlx.DB, max, workers int, after func(), retry func(func() error) error) *transferQueue {
	if max <= 0 {
		max = DefaultTransferBatch
	}
	if workers <= 0 {
		workers = DefaultTransferBatchWorkers
	}
	return &transferQueue{db: db, max: max, workers: workers, after: after, retry: retry}
}

// do queues call and waits for its answer. The wait is not cut short by
// ctx once a batch has taken the transfer: the caller learns what happened
// to its money.
func (q *transferQueue) do(ctx context.Context, call transferCall) (TransferResult, error) {
	t := &queuedTransfer{ctx: ctx, call: call, dated: ledgerDate(ctx), done: make(chan transferAnswer, 1)}
	q.mu.Lock()
	q.queue = append(q.queue, t)
	start := q.running < q.workers
	if start {
		q.running++
	}
	q.mu.Unlock()
	if start {
		go q.drain()
	}
	a := <-t.done
	return a.out, a.err
}

// drain runs batches until the queue is empty.
func (q *transferQueue) drain() {
	for {
		batch := q.take()
		if batch == nil {
			return
		}
		q.run(batch)
	}
}

// take removes the next batch from the queue: up to max transfers, in
// arrival order, without two under one caller's Idempotency-Key (the second
// waits for the next batch, where it finds the first's answer). It answers
// the transfers whose caller gave up while they were queued. nil: the queue
// is empty and this worker stops.
func (q *transferQueue) take() []*queuedTransfer {
	q.mu.Lock()
	defer q.mu.Unlock()
	var batch []*queuedTransfer
	var keys map[idemKey]bool
	rest := q.queue[:0]
	for _, t := range q.queue {
		if len(batch) == q.max {
			rest = append(rest, t)
			continue
		}
		if err := t.ctx.Err(); err != nil {
			t.done <- transferAnswer{err: err}
			continue
		}
		if k, ok := t.call.key.(string); ok {
			id := idemKey{t.call.user, k}
			if keys[id] {
				rest = append(rest, t)
				continue
			}
			if keys == nil {
				keys = map[idemKey]bool{}
			}
			keys[id] = true
		}
		batch = append(batch, t)
	}
	clear(q.queue[len(rest):])
	q.queue = rest
	if len(batch) == 0 {
		q.running--
		return nil
	}
	return batch
}

type idemKey struct {
	user int64
	key  string
}

// run sends one batch and answers each of its callers.
func (q *transferQueue) run(batch []*queuedTransfer) {
	bctx, endSpan := batchContext(batch) // tracing.go: the batch's span, linked to its callers'
	defer endSpan()
	ctx, cancel := context.WithTimeout(bctx, batchTimeout)
	defer cancel()
	q.batches.Add(1)
	q.transfers.Add(int64(len(batch)))
	for n := int64(len(batch)); ; {
		l := q.largest.Load()
		if n <= l || q.largest.CompareAndSwap(l, n) {
			break
		}
	}
	if len(batch) == 1 {
		q.runAlone(batch[0])
		return
	}
	answers, err := q.runBatch(ctx, batch)
	var pe *pq.Error
	switch {
	case errors.As(err, &pe):
		// PostgreSQL refused the statement: its transaction rolled back,
		// nothing of the batch happened. Each transfer goes again alone, all
		// at once, as transfers went before batching; the worker goes on
		// with the queue.
		q.fallbacks.Add(1)
		for _, t := range batch {
			go q.runAlone(t)
		}
		return
	case err != nil:
		// The connection failed, or the answer could not be read: the batch
		// may have committed. Running it again could move money twice, so
		// each caller learns that the outcome is unknown (a retry with the
		// same Idempotency-Key tells).
		err = errs.Wrap(err, "transfer batch")
		for _, t := range batch {
			t.done <- transferAnswer{err: err}
		}
		return
	}
	q.after()
	for i, t := range batch {
		t.done <- answers[i]
	}
}

// runAlone runs one transfer as its own transaction, with retries, under
// its caller's context: a request past its deadline is cancelled and rolls
// back, as any request's statement.
func (q *transferQueue) runAlone(t *queuedTransfer) {
	var a transferAnswer
	a.err = q.retry(func() error {
		var err error
		a.out, err = t.call.run(t.ctx, q.db)
		return err
	})
	if a.err == nil && !a.out.Replayed {
		q.after()
	}
	t.done <- a
}

// runBatch sends the batch as one transfer_money_batch statement and reads
// each entry's answer. An error means nothing of the batch committed.
func (q *transferQueue) runBatch(ctx context.Context, batch []*queuedTransfer) ([]transferAnswer, error) {
	n := len(batch)
	users := make([]int64, n)
	from, to, amounts, descriptions, hashes, nows := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	keys, dated := make([]sql.NullString, n), make([]sql.NullString, n)
	for i, t := range batch {
		c := t.call
		users[i], from[i], to[i], amounts[i], descriptions[i], hashes[i] = c.user, c.in.AccountID, c.in.ToAccountID, c.in.Amount.String(), c.in.Description, c.hash
		nows[i] = c.now.Format(time.RFC3339Nano)
		if k, ok := c.key.(string); ok {
			keys[i] = sql.NullString{String: k, Valid: true}
		}
		if d, ok := t.dated.(time.Time); ok {
			dated[i] = sql.NullString{String: d.Format(time.RFC3339Nano), Valid: true}
		}
	}
	rows, err := q.db.QueryContext(ctx, `SELECT ord, replayed, body, refused FROM transfer_money_batch(
		$1::bigint[], $2::text[], $3::text[], $4::numeric[], $5::text[], $6::text[], $7::text[], $8::timestamptz[], $9::timestamptz[], $10, $11, $12)`,
		pq.Array(users), pq.Array(from), pq.Array(to), pq.Array(amounts), pq.Array(descriptions), pq.Array(keys), pq.Array(hashes),
		pq.Array(nows), pq.Array(dated), IdempotencyWindow.String(), batch[0].call.dailyLimit, lockWait(batch))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	answers := make([]transferAnswer, n)
	seen := 0
	for rows.Next() {
		var ord int
		var r transferRow
		if err := rows.Scan(&ord, &r.replayed, &r.body, &r.refused); err != nil {
			return nil, err
		}
		if ord < 1 || ord > n {
			return nil, errs.Wrap(errOrdinal, "transfer batch")
		}
		answers[ord-1].out, answers[ord-1].err = r.answer()
		seen++
	}
	// The statement's commit (and any error raised inside it) is known
	// only once every row has been read.
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if seen != n {
		return nil, errs.Wrap(errOrdinal, "transfer batch")
	}
	return answers, nil
}

// lockWait is how long the batch may wait for a lock, in milliseconds:
// what is left of the earliest deadline among its callers' requests (NULL
// when none has one). No caller then waits past its deadline behind a lock:
// the batch fails whole, and each goes alone under its own.
func lockWait(batch []*queuedTransfer) sql.NullInt64 {
	var earliest time.Time
	for _, t := range batch {
		if d, ok := t.ctx.Deadline(); ok && (earliest.IsZero() || d.Before(earliest)) {
			earliest = d
		}
	}
	if earliest.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: max(time.Until(earliest).Milliseconds(), 1), Valid: true}
}

var errOrdinal = errs.E(errs.Internal, "internal", "a transfer batch answered out of order")

// Stats reports what the queue did so far.
func (q *transferQueue) Stats() TransferBatchStats {
	return TransferBatchStats{Batches: q.batches.Load(), Transfers: q.transfers.Load(), Largest: q.largest.Load(), Fallbacks: q.fallbacks.Load()}
}
