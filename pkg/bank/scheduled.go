package bank

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// Scheduled and recurring transfers (contract §6). A customer asks for a
// transfer to run once, or every day, week or month, from run_at until an
// optional end. serve's scheduler (RunScheduler) runs every due occurrence
// exactly once, whatever the number of instances and restarts:
//
//   - Each occurrence is one transaction: it claims the series' row with
//     FOR UPDATE SKIP LOCKED (another instance takes another row), makes the
//     transfer as a posting (post_batch, postings.go) inside that same
//     transaction (after the same checks as Service.Transfer, under the key
//     scheduled:<id>:<occurrence>), writes the run row (unique per series and
//     occurrence), advances next_run_at and notifies the owner. Either all
//     of it commits or none of it: a crash anywhere leaves the occurrence
//     due, and the next claim runs it as if for the first time. Nothing
//     hangs on the key (purged after 24 h, and treated as new past that
//     window by post_batch), so a series left unattended for days cannot
//     pay twice. The run row, kept for ever, is what makes it once.
//   - An occurrence whose account another transaction holds is not waited
//     for: the pass goes on with the others and tries it again at its end,
//     for a moment (schedulerBusyWait), then at the next pass.
//   - A refused run (insufficient funds, the daily limit, a closed or
//     deactivated account...) is recorded as failed with the refusal's
//     sentence, the owner is told, and the series goes on.
//   - Missed occurrences (every instance down for several periods) all run,
//     oldest first, each once, as soon as an instance is back: the contract
//     asks for every due occurrence.
//   - Customers take turns: a pass runs in rounds, one occurrence of each
//     customer with one due per round (the customer whose oldest occurrence
//     waited longest first), and looks again for due customers after every
//     round. So an occurrence that comes due waits for at most one
//     occurrence of each other customer with one due, never for another
//     customer's whole backlog (up to scheduled_max_active series, each
//     with its missed occurrences): the 3,000 due at once of issue 20 no
//     longer delay another customer's occurrence past scheduler_interval.

// Frequencies of a scheduled transfer.
const (
	FrequencyOnce    = "once"
	FrequencyDaily   = "daily"
	FrequencyWeekly  = "weekly"
	FrequencyMonthly = "monthly"
)

// Statuses of a scheduled transfer and of one of its runs.
const (
	ScheduleActive    = "active"
	ScheduleCompleted = "completed"
	ScheduleCancelled = "cancelled"
	RunSucceeded      = "succeeded"
	RunFailed         = "failed"
)

// runRepaired: the claimed occurrence was recorded already; only
// next_run_at moved.
const runRepaired = "repaired"

// scheduleGrace is how far in the past run_at may be (a client's clock, the
// time the request took); such a first occurrence runs at the next tick.
const scheduleGrace = time.Minute

// scheduleHorizon is how far ahead run_at and until may be.
const scheduleHorizon = 10 * 366 * 24 * time.Hour

// DefaultSchedulerInterval is scheduler_interval's default.
const DefaultSchedulerInterval = 5 * time.Second

// DefaultScheduledMaxActive is scheduled_max_active's default: the most
// active scheduled transfers one customer may have.
const DefaultScheduledMaxActive = 100

// scheduledLockClass is the first key of the advisory lock that makes one
// customer's new series wait for each other (0x5354, "ST"), so that two at
// once cannot both pass the count of active series; the second key is a
// hash of the customer's id.
const scheduledLockClass = 0x5354

// ScheduledTransferInput is the body of POST /api/user/scheduled-transfers.
// AccountID and ToAccountID are account numbers; RunAt and Until are RFC
// 3339 times.
type ScheduledTransferInput struct {
	AccountID   string       `json:"account_id"`
	ToAccountID string       `json:"to_account_id"`
	Amount      money.Amount `json:"amount"`
	Description string       `json:"description"`
	RunAt       string       `json:"run_at"`
	Frequency   string       `json:"frequency"`
	Until       *string      `json:"until"`
	UserID      *int64       `json:"user_id"`
}

// ScheduledTransfer is a scheduled or recurring transfer as the API shows
// it. NextRunAt is null once the series is completed or cancelled.
// Currency is the sending account's (to write the amount with its symbol).
type ScheduledTransfer struct {
	ID          int64        `json:"id" db:"id"`
	AccountID   string       `json:"account_id" db:"account_id"`
	ToAccountID string       `json:"to_account_id" db:"to_account_id"`
	Amount      money.Amount `json:"amount" db:"amount"`
	Currency    string       `json:"currency" db:"currency"`
	Description string       `json:"description" db:"description"`
	Frequency   string       `json:"frequency" db:"frequency"`
	NextRunAt   *time.Time   `json:"next_run_at" db:"next_run_at"`
	Until       *time.Time   `json:"until" db:"until"`
	Status      string       `json:"status" db:"status"`
	CreatedAt   time.Time    `json:"created_at" db:"created_at"`
}

// ScheduledRun is one occurrence that ran: succeeded with its DEBIT ledger
// row, or failed with the refusal's sentence.
type ScheduledRun struct {
	RunAt         time.Time `json:"run_at" db:"run_at"`
	Status        string    `json:"status" db:"status"`
	Reason        *string   `json:"reason" db:"reason"`
	TransactionID *int64    `json:"transaction_id" db:"transaction_id"`
}

var (
	errScheduledNotFound  = errs.E(errs.NotFound, "scheduled_transfer_not_found", "Scheduled transfer not found")
	errScheduledCompleted = errs.E(errs.Conflict, "scheduled_transfer_completed", "This scheduled transfer has already completed")
)

// errTooManyScheduled: the customer has scheduled_max_active active series.
func errTooManyScheduled(max int) error {
	return errs.E(errs.Unprocessable, "too_many_scheduled_transfers",
		fmt.Sprintf("You already have %d active scheduled transfers, the most allowed; cancel one before scheduling another", max))
}

// selectScheduled reads ScheduledTransfer from st with its accounts'
// current numbers; callers add WHERE and ORDER BY.
const selectScheduled = `SELECT st.id, fa.account_number AS account_id, ta.account_number AS to_account_id,
	st.amount, fa.currency, st.description, st.frequency, st.next_run_at, st.until, st.status, st.created_at
	FROM scheduled_transfers st JOIN accounts fa ON fa.id = st.from_account_id JOIN accounts ta ON ta.id = st.to_account_id`

// parseScheduleTime reads an RFC 3339 time of the input, in UTC, to the
// second.
func parseScheduleTime(field, v string) (time.Time, error) {
	if err := checkText(field, v, 64, false); err != nil {
		return time.Time{}, err
	}
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(v))
	if err != nil {
		return time.Time{}, errs.Field(field, field+" must be a date and time in RFC 3339, like 2026-12-01T09:00:00Z")
	}
	return t.UTC().Truncate(time.Second), nil
}

// CreateScheduledTransfer schedules a transfer from one of the caller's open
// accounts: once at run_at, or every day, week or month from run_at (a
// monthly series keeps run_at's day: the 31st runs on the last day of
// shorter months), until the optional until (inclusive). The accounts are
// checked now as a transfer checks them; funds and the daily limit are
// checked at each run. It writes the series and its audit row in one
// transaction.
//
// A customer may have at most scheduled_max_active active series (completed
// and cancelled ones do not count): one more is refused. A customer's
// creations wait for each other (an advisory lock), so two at once cannot
// both take the last place.
//
// Returns customer_only (403), forbidden (403, a user_id not the caller's),
// invalid_input (400: an account number, amount, description, frequency,
// run_at in the past or more than ten years ahead, or until not after
// run_at), account_not_found (404, the sending account is not the caller's
// open account, or the receiving one does not exist), same_account,
// account_closed, recipient_inactive, currency_mismatch or
// too_many_scheduled_transfers (422).
func (s *Service) CreateScheduledTransfer(ctx context.Context, a Actor, in ScheduledTransferInput) (ScheduledTransfer, error) {
	call, err := s.checkTransfer(ctx, a, TransferInput{AccountID: in.AccountID, ToAccountID: in.ToAccountID, Amount: in.Amount,
		Description: in.Description, UserID: in.UserID}, "")
	if err != nil {
		return ScheduledTransfer{}, err
	}
	in.AccountID, in.ToAccountID, in.Description = call.from, call.to, call.description
	freq := strings.ToLower(strings.TrimSpace(in.Frequency))
	switch freq {
	case FrequencyOnce, FrequencyDaily, FrequencyWeekly, FrequencyMonthly:
	default:
		return ScheduledTransfer{}, errs.Field("frequency", "frequency must be once, daily, weekly or monthly")
	}
	if strings.TrimSpace(in.RunAt) == "" {
		return ScheduledTransfer{}, errs.Field("run_at", "run_at is required")
	}
	runAt, err := parseScheduleTime("run_at", in.RunAt)
	if err != nil {
		return ScheduledTransfer{}, err
	}
	now := s.now()
	if runAt.Before(now.Add(-scheduleGrace)) {
		return ScheduledTransfer{}, errs.Field("run_at", "run_at must not be in the past")
	}
	if runAt.After(now.Add(scheduleHorizon)) {
		return ScheduledTransfer{}, errs.Field("run_at", "run_at must be within ten years")
	}
	var until *time.Time
	if in.Until != nil && strings.TrimSpace(*in.Until) != "" {
		u, err := parseScheduleTime("until", *in.Until)
		if err != nil {
			return ScheduledTransfer{}, err
		}
		if !u.After(runAt) {
			return ScheduledTransfer{}, errs.Field("until", "until must be after run_at")
		}
		if u.After(now.Add(scheduleHorizon)) {
			return ScheduledTransfer{}, errs.Field("until", "until must be within ten years")
		}
		until = &u
	}

	var out ScheduledTransfer
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		var src struct {
			ID       int64  `db:"id"`
			Currency string `db:"currency"`
		}
		err := tx.GetContext(ctx, &src, `SELECT id, currency FROM accounts
			WHERE account_number = $1 AND user_id = $2 AND closed_at IS NULL`, in.AccountID, a.UserID)
		if notFound(err) {
			return errs.ErrAccountNotFound
		}
		if err != nil {
			return errs.Wrap(err, "scheduled transfer: sending account")
		}
		var dst struct {
			ID       int64  `db:"id"`
			Currency string `db:"currency"`
			Closed   bool   `db:"closed"`
			Active   bool   `db:"is_active"`
		}
		err = tx.GetContext(ctx, &dst, `SELECT a.id, a.currency, a.closed_at IS NOT NULL AS closed, u.is_active
			FROM accounts a JOIN users u ON u.id = a.user_id WHERE a.account_number = $1`, in.ToAccountID)
		switch {
		case notFound(err):
			return errs.ErrAccountNotFound
		case err != nil:
			return errs.Wrap(err, "scheduled transfer: receiving account")
		case dst.ID == src.ID:
			return errSameAccount
		case dst.Closed:
			return errRecipientClosed
		case !dst.Active:
			return errRecipientInactive
		case dst.Currency != src.Currency:
			return errCurrencyMismatch
		}
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1, hashint8($2))`, scheduledLockClass, a.UserID); err != nil {
			return errs.Wrap(err, "lock the customer's scheduled transfers")
		}
		var active int
		if err := tx.GetContext(ctx, &active, `SELECT count(*) FROM scheduled_transfers WHERE user_id = $1 AND status = 'active'`, a.UserID); err != nil {
			return errs.Wrap(err, "count scheduled transfers")
		}
		if max := s.settings.ScheduledMaxActive; active >= max {
			return errTooManyScheduled(max)
		}
		var id int64
		if err := tx.GetContext(ctx, &id, `
			INSERT INTO scheduled_transfers (user_id, from_account_id, to_account_id, amount, description, frequency, anchor_day, next_run_at, until)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
			a.UserID, src.ID, dst.ID, in.Amount, in.Description, freq, runAt.Day(), runAt, until); err != nil {
			return errs.Wrap(err, "insert scheduled transfer")
		}
		desc := fmt.Sprintf("Scheduled %s transfer %d of %s from %s to %s, first run %s", freq, id,
			money.Format(in.Amount, src.Currency), in.AccountID, in.ToAccountID, runAt.Format(time.RFC3339))
		if until != nil {
			desc += ", until " + until.Format(time.RFC3339)
		}
		if err := audit(ctx, tx, a, AuditEntry{Action: "SCHEDULE_CREATE", Table: "scheduled_transfers", AccountNumber: in.AccountID, Description: desc}); err != nil {
			return err
		}
		return errs.Wrap(tx.GetContext(ctx, &out, selectScheduled+` WHERE st.id = $1`, id), "read scheduled transfer")
	})
	if err != nil {
		return ScheduledTransfer{}, err
	}
	return out, nil
}

// ListScheduledTransfers returns the caller's scheduled transfers, every
// status, newest first; limit 0 means 100, at most 1000.
//
// Returns customer_only (403) or invalid_input (a limit out of range).
func (s *Service) ListScheduledTransfers(ctx context.Context, a Actor, limit int) ([]ScheduledTransfer, error) {
	if err := requireCustomer(a); err != nil {
		return nil, err
	}
	limit, err := checkLimit(limit)
	if err != nil {
		return nil, err
	}
	out := []ScheduledTransfer{}
	err = s.reader(ctx).SelectContext(ctx, &out, selectScheduled+` WHERE st.user_id = $1 ORDER BY st.id DESC LIMIT $2`, a.UserID, limit)
	return out, errs.Wrap(err, "list scheduled transfers")
}

// CancelScheduledTransfer cancels one of the caller's scheduled transfers:
// no occurrence runs after it returns (an occurrence running at this very
// moment finishes first: the cancel waits for its row). Cancelling a
// cancelled series again succeeds and changes nothing (a retried DELETE);
// a completed series cannot be cancelled (409). Audited.
//
// Returns customer_only (403), scheduled_transfer_not_found (404, missing
// or another customer's) or scheduled_transfer_completed (409).
func (s *Service) CancelScheduledTransfer(ctx context.Context, a Actor, id int64) error {
	if err := requireCustomer(a); err != nil {
		return err
	}
	if id <= 0 {
		return errScheduledNotFound
	}
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		var st struct {
			Status string `db:"status"`
			From   string `db:"account_number"`
		}
		err := tx.GetContext(ctx, &st, `SELECT st.status, fa.account_number FROM scheduled_transfers st
			JOIN accounts fa ON fa.id = st.from_account_id
			WHERE st.id = $1 AND st.user_id = $2 FOR UPDATE OF st`, id, a.UserID)
		switch {
		case notFound(err):
			return errScheduledNotFound
		case err != nil:
			return errs.Wrap(err, "cancel scheduled transfer")
		case st.Status == ScheduleCancelled:
			return nil
		case st.Status == ScheduleCompleted:
			return errScheduledCompleted
		}
		if _, err := tx.ExecContext(ctx, `UPDATE scheduled_transfers SET status = 'cancelled', next_run_at = NULL WHERE id = $1`, id); err != nil {
			return errs.Wrap(err, "cancel scheduled transfer")
		}
		return audit(ctx, tx, a, AuditEntry{Action: "SCHEDULE_CANCEL", Table: "scheduled_transfers", AccountNumber: st.From,
			Description: fmt.Sprintf("Cancelled scheduled transfer %d", id)})
	})
}

// ScheduledTransferRuns returns the runs of one of the caller's scheduled
// transfers, newest first; limit 0 means 100, at most 1000.
//
// Returns customer_only (403), scheduled_transfer_not_found (404, missing
// or another customer's) or invalid_input (a limit out of range).
func (s *Service) ScheduledTransferRuns(ctx context.Context, a Actor, id int64, limit int) ([]ScheduledRun, error) {
	if err := requireCustomer(a); err != nil {
		return nil, err
	}
	limit, err := checkLimit(limit)
	if err != nil {
		return nil, err
	}
	if id <= 0 {
		return nil, errScheduledNotFound
	}
	// One read: the series (the caller's, else 404) left joined to its
	// newest runs; a series without runs gives one row of NULLs.
	var rows []struct {
		RunAt         *time.Time `db:"run_at"`
		Status        *string    `db:"status"`
		Reason        *string    `db:"reason"`
		TransactionID *int64     `db:"transaction_id"`
	}
	err = s.reader(ctx).SelectContext(ctx, &rows, `SELECT r.run_at, r.status, r.reason, r.transaction_id
		FROM scheduled_transfers st
		LEFT JOIN LATERAL (SELECT run_at, status, reason, transaction_id FROM scheduled_transfer_runs
			WHERE scheduled_id = st.id ORDER BY run_at DESC LIMIT $3) r ON true
		WHERE st.id = $1 AND st.user_id = $2
		ORDER BY r.run_at DESC`, id, a.UserID, limit)
	if err != nil {
		return nil, errs.Wrap(err, "scheduled transfer runs")
	}
	if len(rows) == 0 {
		return nil, errScheduledNotFound
	}
	out := []ScheduledRun{}
	for _, r := range rows {
		if r.RunAt == nil {
			continue // the series has no runs yet
		}
		out = append(out, ScheduledRun{RunAt: *r.RunAt, Status: *r.Status, Reason: r.Reason, TransactionID: r.TransactionID})
	}
	return out, nil
}

// nextOccurrence is the occurrence after at of a series of the given
// frequency. Daily and weekly add 24 hours and 7 days (UTC has no daylight
// saving). Monthly goes to the next month, on anchorDay or, when the month
// is shorter, on its last day, at the same time of day: a series started on
// January 31 runs on February 28 (29), March 31, April 30. Once has no next
// occurrence (zero time).
func nextOccurrence(frequency string, anchorDay int, at time.Time) time.Time {
	at = at.UTC()
	switch frequency {
	case FrequencyDaily:
		return at.AddDate(0, 0, 1)
	case FrequencyWeekly:
		return at.AddDate(0, 0, 7)
	case FrequencyMonthly:
		y, m, _ := at.Date()
		first := time.Date(y, m+1, 1, at.Hour(), at.Minute(), at.Second(), at.Nanosecond(), time.UTC)
		last := first.AddDate(0, 1, -1).Day()
		day := anchorDay
		if day > last {
			day = last
		}
		return first.AddDate(0, 0, day-1)
	}
	return time.Time{}
}

// scheduledKeyPrefix starts every scheduledKey; Transfer refuses it from
// customers.
const scheduledKeyPrefix = "scheduled:"

// scheduledKey is the Idempotency-Key of one occurrence of a series.
func scheduledKey(id int64, at time.Time) string {
	return fmt.Sprintf("%s%d:%s", scheduledKeyPrefix, id, at.UTC().Format(time.RFC3339))
}

// SchedulerStats are the scheduler's figures in this process, for /metrics.
type SchedulerStats struct {
	RunsSucceeded uint64        // occurrences that moved money
	RunsFailed    uint64        // occurrences refused (recorded as failed)
	Ticks         uint64        // passes over the due series
	LastTick      time.Duration // how long the last pass took
}

// schedulerCounters are SchedulerStats, updated as the scheduler runs.
type schedulerCounters struct {
	succeeded, failed, ticks atomic.Uint64
	lastTick                 atomic.Int64 // nanoseconds
}

// SchedulerStats returns the scheduler's figures in this process.
func (s *Service) SchedulerStats() SchedulerStats {
	c := &s.scheduler
	return SchedulerStats{RunsSucceeded: c.succeeded.Load(), RunsFailed: c.failed.Load(), Ticks: c.ticks.Load(),
		LastTick: time.Duration(c.lastTick.Load())}
}

// SchedulerTick tells what one pass of the scheduler did.
type SchedulerTick struct {
	Succeeded int
	Failed    int
}

// schedulerBusyWait bounds how long a pass waits, in doubling steps from
// busyBackoff, for accounts other transactions held when their series came
// due; a series whose account stays held runs at a later pass.
const schedulerBusyWait = 256 * time.Millisecond

// schedulerMaxPerTick bounds one pass (which stops between occurrences when
// its context ends); what a huge backlog leaves runs at the next tick.
const schedulerMaxPerTick = 10_000

// RunDueScheduledTransfers runs every occurrence due now (the service's
// clock), each in its own transaction (see the top of this file), in
// rounds: each round runs the oldest due occurrence of every customer with
// one due, the customer whose oldest occurrence waited longest first, and
// the next round looks again for the customers with one due (so a
// customer whose occurrence came due meanwhile takes its turn then). It
// returns how many succeeded and failed. Any number of instances may run
// it at once: each claims other series' rows.
//
// Returns only internal errors (the database failed), with the counts so
// far; a series whose run failed that way is left due for the next pass.
func (s *Service) RunDueScheduledTransfers(ctx context.Context) (SchedulerTick, error) {
	start := time.Now()
	defer func() {
		s.scheduler.ticks.Add(1)
		s.scheduler.lastTick.Store(int64(time.Since(start)))
	}()
	var tick SchedulerTick
	skip := []int64{} // series whose run hit an internal error or a held account this pass (never nil: NULL would match nothing)
	var busy []int64  // of those, the ones whose account another transaction held
	var firstErr error
	backoff := busyBackoff
	for tick.Succeeded+tick.Failed < schedulerMaxPerTick && ctx.Err() == nil {
		customers, err := s.dueCustomers(ctx)
		if err != nil {
			return tick, err
		}
		claimed := false
		for _, customer := range customers {
			if tick.Succeeded+tick.Failed >= schedulerMaxPerTick || ctx.Err() != nil {
				break
			}
			id, status, err := s.runNextDue(ctx, customer, skip)
			if err != nil {
				if id == 0 {
					return tick, err
				}
				// An account of the series held by another transaction is no
				// failure: the others go first, then it is tried again.
				if errors.Is(err, errPostingBusy) {
					busy = append(busy, id)
				} else if firstErr == nil {
					firstErr = err
				}
				skip = append(skip, id)
				claimed = true
				continue
			}
			switch status {
			case RunSucceeded:
				tick.Succeeded++
				s.scheduler.succeeded.Add(1)
			case RunFailed:
				tick.Failed++
				s.scheduler.failed.Add(1)
			}
			claimed = claimed || status != ""
		}
		if claimed {
			continue
		}
		// Nothing left that this pass may claim.
		if len(busy) == 0 || backoff > schedulerBusyWait {
			return tick, firstErr // what stays busy runs at the next pass
		}
		select {
		case <-ctx.Done():
			return tick, firstErr
		case <-time.After(backoff):
		}
		backoff *= 2
		skip = slices.DeleteFunc(skip, func(id int64) bool { return slices.Contains(busy, id) })
		busy = busy[:0]
	}
	return tick, firstErr
}

// dueCustomers returns the customers with an occurrence due now, the one
// whose oldest due occurrence waited longest first: one round's turns. It
// walks the index of active series by customer (migration 0060), one
// probe per customer, however many series each has due.
func (s *Service) dueCustomers(ctx context.Context) ([]int64, error) {
	var out []int64
	err := s.db.SelectContext(ctx, &out, `
		WITH RECURSIVE due (user_id) AS (
			(SELECT user_id FROM scheduled_transfers
				WHERE status = 'active' AND next_run_at <= $1 ORDER BY user_id, next_run_at LIMIT 1)
			UNION ALL
			SELECT (SELECT st.user_id FROM scheduled_transfers st
				WHERE st.status = 'active' AND st.next_run_at <= $1 AND st.user_id > due.user_id ORDER BY st.user_id, st.next_run_at LIMIT 1)
			FROM due WHERE due.user_id IS NOT NULL)
		SELECT due.user_id FROM due
		CROSS JOIN LATERAL (SELECT st.next_run_at FROM scheduled_transfers st
			WHERE st.status = 'active' AND st.user_id = due.user_id ORDER BY st.next_run_at LIMIT 1) oldest
		WHERE due.user_id IS NOT NULL
		ORDER BY oldest.next_run_at, due.user_id`, s.now())
	return out, errs.Wrap(err, "customers with scheduled transfers due")
}

// dueSchedule is a claimed series with what its run needs.
type dueSchedule struct {
	ID          int64        `db:"id"`
	UserID      int64        `db:"user_id"`
	Role        string       `db:"role"`
	FullName    string       `db:"full_name"`
	From        string       `db:"from_number"`
	To          string       `db:"to_number"`
	Currency    string       `db:"currency"`
	Amount      money.Amount `db:"amount"`
	Description string       `db:"description"`
	Frequency   string       `db:"frequency"`
	AnchorDay   int          `db:"anchor_day"`
	RunAt       time.Time    `db:"next_run_at"`
	Until       *time.Time   `db:"until"`
}

// runNextDue claims the customer's oldest due series that no other
// transaction holds and is not in skip, and runs its due occurrence, all
// in one transaction. It returns the series' id and the run's status (""
// when nothing of the customer's is due). On an internal error the
// transaction rolls back: the occurrence stays due.
func (s *Service) runNextDue(ctx context.Context, customer int64, skip []int64) (int64, string, error) {
	var id int64
	var status string
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		id, status = 0, ""
		var d dueSchedule
		err := tx.GetContext(ctx, &d, `
			SELECT st.id, st.user_id, r.name AS role, u.full_name, fa.account_number AS from_number,
				ta.account_number AS to_number, fa.currency, st.amount, st.description, st.frequency,
				st.anchor_day, st.next_run_at, st.until
			FROM scheduled_transfers st
			JOIN accounts fa ON fa.id = st.from_account_id
			JOIN accounts ta ON ta.id = st.to_account_id
			JOIN users u ON u.id = st.user_id JOIN roles r ON r.id = u.role_id
			WHERE st.user_id = $3 AND st.status = 'active' AND st.next_run_at <= $1 AND st.id <> ALL($2::bigint[])
			ORDER BY st.next_run_at, st.id LIMIT 1
			FOR UPDATE OF st SKIP LOCKED`, s.now(), pq.Array(skip), customer)
		if notFound(err) {
			return nil
		}
		if err != nil {
			return errs.Wrap(err, "claim scheduled transfer")
		}
		id = d.ID
		status, err = s.runOccurrence(ctx, tx, d)
		return err
	})
	return id, status, err
}

// scheduledRunHook, when set (tests only), is called between a run's
// transfer and its run row; an error stands for a crash at that point.
var scheduledRunHook func(scheduledID int64) error

// runOccurrence runs the claimed series' occurrence d.RunAt inside tx: the
// transfer, the run row, the next occurrence (or the series' end) and the
// owner's notification.
func (s *Service) runOccurrence(ctx context.Context, tx *sqlx.Tx, d dueSchedule) (string, error) {
	var done bool
	if err := tx.GetContext(ctx, &done, `SELECT EXISTS (SELECT 1 FROM scheduled_transfer_runs WHERE scheduled_id = $1 AND run_at = $2)`,
		d.ID, d.RunAt); err != nil {
		return "", errs.Wrap(err, "scheduled run recorded")
	}
	status := RunSucceeded
	var reason, txID any
	if done {
		// Recorded already (it commits with next_run_at, so this is a
		// repair, never a second payment): only move on.
		status = runRepaired
	} else {
		owner := Actor{UserID: d.UserID, Role: d.Role, FullName: d.FullName}
		in := TransferInput{AccountID: d.From, ToAccountID: d.To, Amount: d.Amount, Description: d.Description}
		res, err := s.scheduledTransfer(ctx, tx, owner, in, scheduledKey(d.ID, d.RunAt))
		if err != nil {
			e := errs.As(err)
			if e.Kind == errs.Internal || e.Kind == errs.Unavailable || retryable(err) {
				return "", err // not a refusal: roll back, the occurrence stays due
			}
			status, reason = RunFailed, e.Message
		} else {
			txID = res.Transaction.ID
		}
		if scheduledRunHook != nil {
			if err := scheduledRunHook(d.ID); err != nil {
				return "", err
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO scheduled_transfer_runs (scheduled_id, run_at, status, reason, transaction_id)
			VALUES ($1, $2, $3, $4, $5)`, d.ID, d.RunAt, status, reason, txID); err != nil {
			return "", errs.Wrap(err, "record scheduled run")
		}
	}

	next := nextOccurrence(d.Frequency, d.AnchorDay, d.RunAt)
	if next.IsZero() || (d.Until != nil && next.After(*d.Until)) {
		if _, err := tx.ExecContext(ctx, `UPDATE scheduled_transfers SET status = 'completed', next_run_at = NULL WHERE id = $1`, d.ID); err != nil {
			return "", errs.Wrap(err, "complete scheduled transfer")
		}
	} else if _, err := tx.ExecContext(ctx, `UPDATE scheduled_transfers SET next_run_at = $2 WHERE id = $1`, d.ID, next); err != nil {
		return "", errs.Wrap(err, "advance scheduled transfer")
	}
	if status == runRepaired {
		return status, nil
	}

	what := fmt.Sprintf("Scheduled transfer of %s to account %s", money.Format(d.Amount, d.Currency), d.To)
	if status == RunSucceeded {
		return status, notify(ctx, tx, d.UserID, what+" succeeded")
	}
	if err := notify(ctx, tx, d.UserID, fmt.Sprintf("%s failed: %s", what, reason)); err != nil {
		return "", err
	}
	return status, audit(ctx, tx, Actor{}, AuditEntry{Action: "SCHEDULED_TRANSFER_FAILED", Table: "scheduled_transfer_runs", AccountNumber: d.From,
		Description: fmt.Sprintf("Scheduled transfer %d of %s from %s to %s due %s failed: %s", d.ID, money.Format(d.Amount, d.Currency),
			d.From, d.To, d.RunAt.UTC().Format(time.RFC3339), reason)})
}

// scheduledTransfer is one run's transfer: the checks of Service.Transfer,
// then its posting (post_batch) inside the scheduler's transaction, behind
// a savepoint so that a statement that raises (the balance CHECK behind the
// funds test) leaves the transaction usable for the failed run's row.
// Returns errPostingBusy when an account of it is held by another
// transaction (post_batch waits for no lock held elsewhere).
func (s *Service) scheduledTransfer(ctx context.Context, tx *sqlx.Tx, owner Actor, in TransferInput, key string) (TransferResult, error) {
	p, err := s.checkTransfer(ctx, owner, in, key)
	if err != nil {
		return TransferResult{}, err
	}
	if _, err := tx.ExecContext(ctx, `SAVEPOINT scheduled_run`); err != nil {
		return TransferResult{}, errs.Wrap(err, "savepoint")
	}
	a, err := s.postInTx(ctx, tx, p)
	if err != nil {
		if _, rerr := tx.ExecContext(ctx, `ROLLBACK TO SAVEPOINT scheduled_run`); rerr != nil {
			return TransferResult{}, errors.Join(err, errs.Wrap(rerr, "rollback to savepoint"))
		}
		return TransferResult{}, backstop(err)
	}
	if _, err := tx.ExecContext(ctx, `RELEASE SAVEPOINT scheduled_run`); err != nil {
		return TransferResult{}, errs.Wrap(err, "release savepoint")
	}
	out, err := madeInTx(a, nil)
	if err != nil {
		return TransferResult{}, err
	}
	return transferResult(out, true)
}

// RunScheduler runs RunDueScheduledTransfers now and then every interval
// until ctx is done (serve starts it with the other background jobs and
// stops it before closing the database). A pass that ends with failures
// is logged; the next tick tries again.
func (s *Service) RunScheduler(ctx context.Context, interval time.Duration, log *slog.Logger) {
	if interval <= 0 {
		interval = DefaultSchedulerInterval
	}
	if log == nil {
		log = slog.Default()
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		tick, err := s.RunDueScheduledTransfers(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Error("running scheduled transfers", "err", err, "succeeded", tick.Succeeded, "failed", tick.Failed)
		case tick.Succeeded+tick.Failed > 0:
			log.Info("ran scheduled transfers", "succeeded", tick.Succeeded, "failed", tick.Failed)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
