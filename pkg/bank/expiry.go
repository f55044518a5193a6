package bank

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// expiryBatch is how many requests one transaction of the expiry job takes.
const expiryBatch = 200

// ExpireMoneyRequests marks PENDING requests past their expiry time as
// EXPIRED, tells each requester and audits each one (actor: the system), in
// one transaction per batch. Rows are taken FOR UPDATE SKIP LOCKED, so any
// number of serve instances can run it at once, and a request being
// answered right now is left to its answer. It also forgets Idempotency-Keys
// older than 24 hours and sign-in attempts older than the throttle's window.
// It returns how many requests expired.
//
// Returns only internal errors (the database failed), with the count so far.
func (s *Service) ExpireMoneyRequests(ctx context.Context) (int, error) {
	total := 0
	for {
		n, err := s.expireBatch(ctx)
		total += n
		if err != nil {
			return total, err
		}
		if n < expiryBatch {
			break
		}
	}
	if _, err := s.purgeIdempotencyKeys(ctx); err != nil {
		return total, err
	}
	if err := s.purgeSignInAttempts(ctx); err != nil {
		return total, err
	}
	if err := s.purgeChallenges(ctx); err != nil {
		return total, err
	}
	if err := s.purgeDailyOutgoing(ctx); err != nil {
		return total, err
	}
	return total, nil
}

func (s *Service) expireBatch(ctx context.Context) (int, error) {
	var n int
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		now := s.now()
		var rows []struct {
			ID              int64        `db:"id"`
			RequesterUserID int64        `db:"requester_user_id"`
			Amount          money.Amount `db:"amount"`
			PayerNumber     string       `db:"account_number"`
			Currency        string       `db:"currency"`
		}
		if err := tx.SelectContext(ctx, &rows, `
			SELECT r.id, r.requester_user_id, r.amount, pa.account_number, pa.currency
			FROM money_requests r JOIN accounts pa ON pa.id = r.recipient_account_id
			WHERE r.status = 'PENDING' AND r.expires_at <= $1
			ORDER BY r.expires_at, r.id LIMIT $2
			FOR UPDATE OF r SKIP LOCKED`, now, expiryBatch); err != nil {
			return errs.Wrap(err, "select expired requests")
		}
		n = len(rows)
		for _, r := range rows {
			if _, err := tx.ExecContext(ctx, `UPDATE money_requests SET status = 'EXPIRED', resolved_at = $2 WHERE id = $1`, r.ID, now); err != nil {
				return errs.Wrap(err, "expire request")
			}
			if err := notify(ctx, tx, r.RequesterUserID, fmt.Sprintf("Your request for %s from account %s has expired", money.Format(r.Amount, r.Currency), r.PayerNumber)); err != nil {
				return err
			}
			if err := audit(ctx, tx, Actor{}, AuditEntry{Action: "REQUEST_EXPIRE", Table: "money_requests", AccountNumber: r.PayerNumber,
				Description: fmt.Sprintf("Request %d for %s expired unanswered", r.ID, money.Format(r.Amount, r.Currency))}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// RunExpiry runs ExpireMoneyRequests now and then every interval until ctx
// is done. Failures are logged and retried at the next tick.
func (s *Service) RunExpiry(ctx context.Context, interval time.Duration, log *slog.Logger) {
	if interval <= 0 {
		interval = 30 * time.Second
	}
	if log == nil {
		log = slog.Default()
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		n, err := s.ExpireMoneyRequests(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Error("expiring money requests", "err", err)
		case n > 0:
			log.Info("expired money requests", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
