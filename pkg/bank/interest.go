package bank

import (
	"context"
	"database/sql"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/errs"
)

// Interest (contract §8). An account type carries an annual rate (percent,
// up to 4 decimals); an account of such a type accrues every UTC day its
// end-of-day balance x rate / 100 / 365, exact to the 1/10000 of a cent and
// carried from day to day, and on the 1st of each month the whole cents
// accrued in the month before are paid as a posting from the bank's
// interest_expense account (kind interest). The arithmetic and the
// exactly-once bookkeeping are the SQL functions of
// migrations/functions/interest.sql (interest_accrue, one account per
// transaction, locked, SKIP LOCKED between instances); this file picks the
// accounts and runs them: serve every InterestEvery through the last day
// that ended, and meridian interest run --through by hand.

// InterestEvery is how often serve runs interest.
const InterestEvery = time.Hour

// interestSettle is how long after midnight UTC serve waits before it
// accrues the day that ended: a posting dated just before midnight may
// commit just after it.
const interestSettle = 5 * time.Minute

// maxInterestAhead bounds how far past today an interest run goes (a
// mistyped year would otherwise accrue for centuries).
const maxInterestAhead = 366 * 24 * time.Hour

// InterestRun is what a run of interest did.
type InterestRun struct {
	Through  string `json:"through"`  // the last day accrued, YYYY-MM-DD
	Accounts int    `json:"accounts"` // accounts worked on
	Days     int    `json:"days"`     // account-days accrued
	Payments int    `json:"payments"` // monthly payments made (a payment under a cent carries on, no posting)
	Skipped  int    `json:"skipped"`  // accounts another run was working on
}

// RunInterest accrues every account of a type with a rate (or that accrued
// before) day by day through the date through (UTC; a future one too, up
// to a year ahead), paying each month on its 1st, catching up on every day
// missed, in order. Idempotent: a day accrues and a month is paid once per
// account, whatever runs at the same time. An account whose run fails is
// left for the next run; the first such error is returned after the rest
// ran.
//
// Returns admin_only (403) or invalid_input (400: a date over a year ahead).
func (s *Service) RunInterest(ctx context.Context, a Actor, through time.Time) (InterestRun, error) {
	if err := requireAdmin(a); err != nil {
		return InterestRun{}, err
	}
	day := through.UTC().Format(time.DateOnly)
	if through.After(s.now().Add(maxInterestAhead)) {
		return InterestRun{}, errs.Field("through", "through must be at most a year ahead")
	}
	run := InterestRun{Through: day}
	var ids []int64
	err := s.db.SelectContext(ctx, &ids, `
		SELECT a.id FROM accounts a JOIN account_types t ON t.id = a.account_type_id
		LEFT JOIN interest_cursors c ON c.account_id = a.id
		WHERE a.class = 'customer' AND (c.account_id IS NOT NULL OR t.interest_rate > 0)
			AND coalesce(c.accrued_through, (a.created_at AT TIME ZONE 'UTC')::date - 1) < $1::date
			AND (a.closed_at IS NULL OR coalesce(c.accrued_through, '-infinity'::date) < (a.closed_at AT TIME ZONE 'UTC')::date)
		ORDER BY a.id`, day)
	if err != nil {
		return run, errs.Wrap(err, "interest accounts")
	}
	var first error
	for _, id := range ids {
		if ctx.Err() != nil {
			return run, errs.Wrap(ctx.Err(), "interest")
		}
		r, err := s.accrue(ctx, id, day, false)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		run.Accounts++
		run.Days += r.Days
		run.Payments += r.Payments
		if r.Skipped {
			run.Skipped++
		}
	}
	return run, first
}

// accrued is interest_accrue's answer for one account.
type accrued struct {
	Days     int  `db:"days"`
	Payments int  `db:"payments"`
	Skipped  bool `db:"skipped"`
}

// accrue runs interest_accrue for one account through day, in a
// transaction of its own; settle pays at once what it accrued since its
// last payment.
func (s *Service) accrue(ctx context.Context, id int64, day string, settle bool) (accrued, error) {
	var r accrued
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &r, `SELECT days, payments, skipped FROM interest_accrue($1, $2::date, $3::interval, $4)`,
			id, day, IdempotencyWindow.String(), settle)
	})
	return r, errs.Wrap(err, "accrue interest")
}

// RunInterestEvery runs interest every interval through the last UTC day
// that ended (interestSettle ago), until ctx ends: serve's loop. Every
// instance may run it; each account is worked on by one at a time.
func (s *Service) RunInterestEvery(ctx context.Context, interval time.Duration, log *slog.Logger) {
	if log == nil {
		log = slog.Default()
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		through := s.now().Add(-interestSettle).UTC().AddDate(0, 0, -1)
		if r, err := s.RunInterest(ctx, CLIActor, through); err != nil && ctx.Err() == nil {
			log.Error("interest run failed for some accounts; they are run again at the next interval", "through", r.Through, "err", err)
		} else if r.Days > 0 || r.Payments > 0 {
			log.Info("interest run", "through", r.Through, "accounts", r.Accounts, "days", r.Days, "payments", r.Payments)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// settleInterest pays an account being closed what it accrued through
// yesterday, now: after it closes it is paid no more.
func (s *Service) settleInterest(ctx context.Context, id int64) error {
	var accrues bool
	err := s.db.GetContext(ctx, &accrues, `SELECT EXISTS (SELECT 1 FROM interest_cursors WHERE account_id = $1)
		OR EXISTS (SELECT 1 FROM accounts a JOIN account_types t ON t.id = a.account_type_id WHERE a.id = $1 AND t.interest_rate > 0)`, id)
	if err != nil || !accrues {
		return errs.Wrap(err, "interest")
	}
	yesterday := s.now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)
	for {
		r, err := s.accrue(ctx, id, yesterday, true)
		if err != nil || !r.Skipped {
			return err
		}
		// Another run works on the account: it finishes soon.
		select {
		case <-ctx.Done():
			return errTimedOut
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// AccountInterest is an account's interest: its type's rate (percent a
// year), what it accrued and was not paid yet (to the 1/10000 of a cent),
// and when interest was last paid into it.
type AccountInterest struct {
	Rate         Rate       `json:"rate" db:"rate"`
	Accrued      Rate       `json:"accrued" db:"accrued"`
	LastPostedAt *time.Time `json:"last_posted_at" db:"last_posted_at"`
}

// AccountInterest returns the interest of one of the actor's accounts.
//
// Returns customer_only (403) or account_not_found (404: not theirs).
func (s *Service) AccountInterest(ctx context.Context, a Actor, id int64) (AccountInterest, error) {
	if err := requireCustomer(a); err != nil {
		return AccountInterest{}, err
	}
	var out AccountInterest
	err := s.reader(ctx).GetContext(ctx, &out, `
		SELECT trim_scale(t.interest_rate)::text AS rate,
			trim_scale(round(coalesce(lp.carried, 0) + coalesce((SELECT sum(x.accrued) FROM interest_accruals x
				WHERE x.account_id = a.id AND x.day > coalesce(lp.through, '-infinity'::date)), 0), 6))::text AS accrued,
			(SELECT max(p.paid_at) FROM interest_payments p WHERE p.account_id = a.id AND p.posting_id IS NOT NULL) AS last_posted_at
		FROM accounts a JOIN account_types t ON t.id = a.account_type_id
		LEFT JOIN LATERAL (SELECT p.through, p.carried FROM interest_payments p WHERE p.account_id = a.id ORDER BY p.through DESC LIMIT 1) lp ON true
		WHERE a.id = $1 AND a.user_id = $2 AND a.class = 'customer'`, id, a.UserID)
	if notFound(err) || id <= 0 {
		return AccountInterest{}, errs.ErrAccountNotFound
	}
	return out, errs.Wrap(err, "interest")
}

// AccountTypeRate is an account type with its interest rate.
type AccountTypeRate struct {
	ID           int16  `json:"id" db:"id"`
	TypeName     string `json:"type_name" db:"type_name"`
	Currency     string `json:"currency" db:"currency"`
	InterestRate Rate   `json:"interest_rate" db:"interest_rate"`
}

// AccountTypeRates lists the account types with their rates, for
// administrators.
//
// Returns admin_only (403).
func (s *Service) AccountTypeRates(ctx context.Context, a Actor) ([]AccountTypeRate, error) {
	if err := requireAdmin(a); err != nil {
		return nil, err
	}
	out := []AccountTypeRate{}
	err := s.db.SelectContext(ctx, &out, `SELECT id, type_name, currency, trim_scale(interest_rate)::text AS interest_rate FROM account_types ORDER BY id`)
	return out, errs.Wrap(err, "account types")
}

// InterestRateInput is the body of PUT /api/admin/account-types/{id}.
type InterestRateInput struct {
	InterestRate Rate `json:"interest_rate"`
}

var (
	interestRatePattern    = regexp.MustCompile(`^[0-9]{1,3}(\.[0-9]{1,4})?$`)
	errAccountTypeNotFound = errs.E(errs.NotFound, "account_type_not_found", "Account type not found")
	errInterestRate        = errs.Field("interest_rate", "interest_rate must be a percentage from 0 to 100 with at most 4 decimals, like 2.25")
)

// SetInterestRate sets an account type's annual interest rate (percent, 0
// to 100, at most 4 decimals), as an administrator or the CLI; audited
// (INTEREST_RATE). Accounts of the type accrue at it from the next day an
// interest run accrues; those that accrued none before start today.
//
// Returns admin_only (403), account_type_not_found (404) or invalid_input
// (400).
func (s *Service) SetInterestRate(ctx context.Context, a Actor, typeID int64, in InterestRateInput) (AccountTypeRate, error) {
	if err := requireAdmin(a); err != nil {
		return AccountTypeRate{}, err
	}
	rate := strings.TrimSpace(string(in.InterestRate))
	if !interestRatePattern.MatchString(rate) {
		return AccountTypeRate{}, errInterestRate
	}
	if typeID <= 0 || typeID > 32767 {
		return AccountTypeRate{}, errAccountTypeNotFound
	}
	var out struct {
		Refused sql.NullString `db:"refused"`
		AccountTypeRate
	}
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &out, `SELECT refused, id, coalesce(type_name, '') AS type_name, coalesce(currency, '') AS currency,
			coalesce(trim_scale(interest_rate)::text, '') AS interest_rate FROM set_interest_rate($1, $2::smallint, $3::numeric)`,
			nullID(a.auditUserID()), typeID, rate)
	})
	switch {
	case err != nil:
		return AccountTypeRate{}, errs.Wrap(err, "set interest rate")
	case out.Refused.String == "account_type_not_found":
		return AccountTypeRate{}, errAccountTypeNotFound
	case out.Refused.Valid:
		return AccountTypeRate{}, errInterestRate
	}
	return out.AccountTypeRate, nil
}
