package bank

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// The daily limit. A customer may send others at most a limit per currency
// per day: their own, set by an administrator (SetDailyLimit), else the
// configured default (Settings.DailyTransferLimit, config
// daily_transfer_limit). A day is a calendar day in UTC: the count starts
// again at 00:00 UTC. What counts: transfers to another customer's account
// (scheduled runs are transfers) and accepted money requests, by the one who
// pays. What does not: transfers between one's own accounts, and an
// administrator's deposits and withdrawals. The day is the database's
// (now() in UTC, or the date of a backdated posting), the clock that dates
// the ledger rows too.
//
// The rule is the SQL function spend_daily_limit
// (migrations/functions/spend_daily_limit.sql), called by post_batch inside
// the payment's own transaction, after the accounts are locked. It
// counts up one row per (customer, currency, day) with INSERT ... ON
// CONFLICT DO UPDATE, which locks the row and counts in one statement, so
// concurrent payments of one customer in one currency queue on that row and
// never both take room that only one fits in.

// DefaultDailyTransferLimit is daily_transfer_limit's default: 10,000.00.
const DefaultDailyTransferLimit money.Amount = 10_000_00

// DailyLimit is a customer's limit in one currency and what they sent today.
type DailyLimit struct {
	DailyTransferLimit money.Amount `json:"daily_transfer_limit" db:"daily_transfer_limit"`
	UsedToday          money.Amount `json:"used_today" db:"used_today"`
	Currency           string       `json:"currency" db:"currency"`
}

// DailyLimits returns the actor's daily limit and what they sent today (UTC,
// by the database's clock, as every payment counts it),
// one row per currency of their open accounts, by currency.
//
// Returns customer_only (403).
func (s *Service) DailyLimits(ctx context.Context, a Actor) ([]DailyLimit, error) {
	if err := requireCustomer(a); err != nil {
		return nil, err
	}
	out := []DailyLimit{}
	err := s.reader(ctx).SelectContext(ctx, &out, `
		SELECT c.currency, coalesce(u.daily_transfer_limit, $2) AS daily_transfer_limit, coalesce(d.total, 0) AS used_today
		FROM users u
		JOIN (SELECT DISTINCT currency FROM accounts WHERE user_id = $1 AND closed_at IS NULL) c ON true
		LEFT JOIN daily_outgoing d ON d.user_id = u.id AND d.currency = c.currency AND d.day = (now() AT TIME ZONE 'UTC')::date
		WHERE u.id = $1 ORDER BY c.currency`, a.UserID, s.settings.DailyTransferLimit)
	return out, errs.Wrap(err, "daily limits")
}

// UserLimit is a user's daily limit as an administrator sets it: the same
// amount in each currency. Default tells it is the configured one.
type UserLimit struct {
	UserID             int64        `json:"user_id"`
	DailyTransferLimit money.Amount `json:"daily_transfer_limit"`
	Default            bool         `json:"default"`
	// Approval, instead of the rest: a raise waits for a second
	// administrator.
	Approval *Approval `json:"-"`
}

// LimitInput is the body of an administrator's PUT .../limits:
// daily_transfer_limit is an amount (0 or more), or null to go back to the
// configured default.
type LimitInput struct {
	DailyTransferLimit json.RawMessage `json:"daily_transfer_limit"`
}

// Limit reads the limit the body asks for: nil for null (the default).
//
// Returns invalid_input (400): missing, or not an amount of 0 or more with
// at most two decimals.
func (in LimitInput) Limit() (*money.Amount, error) {
	const field = "daily_transfer_limit"
	raw := bytes.TrimSpace(in.DailyTransferLimit)
	if len(raw) == 0 {
		return nil, errs.Field(field, "daily_transfer_limit is required (an amount, or null for the default)")
	}
	if string(raw) == "null" {
		return nil, nil
	}
	var v money.Amount
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, errs.Field(field, "daily_transfer_limit must be an amount of 0 or more with at most two decimals, or null for the default")
	}
	return &v, nil
}

// SetDailyLimit sets a user's own daily limit (the same amount in each
// currency), or with nil gives them the configured default again; audited
// in the same transaction. It applies from the user's next payment, to what
// they already sent today too. A raise (a limit above the one the user has
// now) does not run: it answers the approval it made for a second
// administrator (approvals.go).
//
// Returns admin_only (403) or user_not_found (404).
func (s *Service) SetDailyLimit(ctx context.Context, a Actor, userID int64, limit *money.Amount) (UserLimit, error) {
	if err := requireAdmin(a); err != nil {
		return UserLimit{}, err
	}
	if userID <= 0 {
		return UserLimit{}, errUserNotFound
	}
	var cur struct {
		Email string       `db:"email"`
		Limit money.Amount `db:"daily_transfer_limit"`
	}
	err := s.db.GetContext(ctx, &cur, `SELECT email, coalesce(daily_transfer_limit, $2) AS daily_transfer_limit FROM users WHERE id = $1`,
		userID, s.settings.DailyTransferLimit)
	if notFound(err) {
		return UserLimit{}, errUserNotFound
	}
	if err != nil {
		return UserLimit{}, errs.Wrap(err, "daily limit")
	}
	next := s.settings.DailyTransferLimit
	if limit != nil {
		next = *limit
	}
	if next > cur.Limit {
		ap, err := s.requestApproval(ctx, a, approvalLimitRaise,
			fmt.Sprintf("Raise the daily transfer limit of %s (id %d) from %s to %s in each currency", cur.Email, userID, cur.Limit, next),
			approvalPayload{UserID: userID, Limit: limit}, newKey())
		if err != nil {
			return UserLimit{}, err
		}
		return UserLimit{UserID: userID, DailyTransferLimit: next, Default: limit == nil, Approval: &ap}, nil
	}
	var out UserLimit
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		out, err = s.setDailyLimitTx(ctx, tx, a, userID, limit)
		return err
	})
	if err != nil {
		return UserLimit{}, err
	}
	return out, nil
}

// setDailyLimitTx sets the limit in tx, with its audit row.
func (s *Service) setDailyLimitTx(ctx context.Context, tx *sqlx.Tx, a Actor, userID int64, limit *money.Amount) (UserLimit, error) {
	out := UserLimit{UserID: userID, DailyTransferLimit: s.settings.DailyTransferLimit, Default: limit == nil}
	if limit != nil {
		out.DailyTransferLimit = *limit
	}
	var email string
	err := tx.GetContext(ctx, &email, `UPDATE users SET daily_transfer_limit = $2 WHERE id = $1 RETURNING email`, userID, limit)
	if notFound(err) {
		return UserLimit{}, errUserNotFound
	}
	if err != nil {
		return UserLimit{}, errs.Wrap(err, "set daily limit")
	}
	desc := fmt.Sprintf("Set the daily transfer limit of user %s (id %d) to %s in each currency", email, userID, out.DailyTransferLimit)
	if limit == nil {
		desc = fmt.Sprintf("Set the daily transfer limit of user %s (id %d) to the default, %s in each currency", email, userID, out.DailyTransferLimit)
	}
	return out, audit(ctx, tx, a, AuditEntry{Action: "USER_LIMIT", Table: "users", Description: desc})
}

// purgeDailyOutgoing forgets the daily counts of days before yesterday (UTC,
// by the database's clock, which counts them): no payment counts against
// them any more.
func (s *Service) purgeDailyOutgoing(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM daily_outgoing WHERE day < (now() AT TIME ZONE 'UTC')::date - 1`)
	return errs.Wrap(err, "purge daily counts")
}
