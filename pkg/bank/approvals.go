package bank

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// Four eyes (contract §8). An administrator's deposit, withdrawal or
// reversal at or over the approval threshold (config approval_threshold,
// in the account's currency), and any raise of a customer's daily limit,
// does not run: it becomes an approval, pending for ApprovalTTL, that a
// second administrator approves (the action then runs, in the same
// transaction as the decision) or rejects. The approval's row is locked
// while it is decided, so two administrators deciding at the same moment
// decide it once: the second finds it decided (409). The one who asked never
// decides (403 same_admin), and neither does the command line on the
// server, which has no administrator's identity to tell apart: a second
// administrator decides in the app or with meridian --server.

// DefaultApprovalThreshold is approval_threshold's default: 10,000.00.
const DefaultApprovalThreshold money.Amount = 10_000_00

// ApprovalTTL is how long an approval waits for its decision.
const ApprovalTTL = 24 * time.Hour

// The kinds of approval.
const (
	approvalDeposit    = "deposit"
	approvalWithdrawal = "withdrawal"
	approvalReversal   = "reversal"
	approvalLimitRaise = "limit_raise"
)

// Approval is an action waiting for (or decided by) a second administrator.
// RequestedBy and DecidedBy are the administrators' emails (RequestedBy
// nil: asked at the server's command line).
type Approval struct {
	ID            int64      `json:"id" db:"id"`
	Kind          string     `json:"kind" db:"kind"`
	Summary       string     `json:"summary" db:"summary"`
	RequestedBy   *string    `json:"requested_by" db:"requested_by"`
	RequestedByID *int64     `json:"requested_by_id" db:"requested_by_id"`
	RequestedAt   time.Time  `json:"requested_at" db:"requested_at"`
	ExpiresAt     time.Time  `json:"expires_at" db:"expires_at"`
	Status        string     `json:"status" db:"status"`
	DecidedBy     *string    `json:"decided_by" db:"decided_by"`
	DecidedByID   *int64     `json:"decided_by_id" db:"decided_by_id"`
	DecidedAt     *time.Time `json:"decided_at" db:"decided_at"`
	Reason        *string    `json:"reason" db:"reason"`
}

// ApprovalDecision is an approval as decided, and what its action answered
// (approved only: the posting's answer, or the new limit).
type ApprovalDecision struct {
	Approval Approval        `json:"approval"`
	Result   json.RawMessage `json:"result,omitempty"`
}

// approvalPayload is what an approval runs once approved.
type approvalPayload struct {
	Account     string        `json:"account_number,omitempty"` // deposit, withdrawal
	Amount      money.Amount  `json:"amount,omitempty"`
	Description string        `json:"description,omitempty"`
	Transaction int64         `json:"transaction_id,omitempty"` // reversal
	Reason      string        `json:"reason,omitempty"`
	UserID      int64         `json:"user_id,omitempty"` // limit_raise
	Limit       *money.Amount `json:"daily_transfer_limit,omitempty"`
}

var (
	errApprovalNotFound = errs.E(errs.NotFound, "approval_not_found", "Approval not found")
	errApprovalDecided  = errs.E(errs.Conflict, "approval_decided", "This approval was decided already")
	errApprovalExpired  = errs.E(errs.Conflict, "approval_expired", "This approval expired after 24 hours without a decision; ask again")
	errSameAdmin        = errs.E(errs.Forbidden, "same_admin", "You asked for this; another administrator must decide it")
	errDecideSignedIn   = errs.E(errs.Forbidden, "approver_signed_in",
		"A second administrator decides approvals signed in: in the app, or with meridian --server after meridian login")
)

// needsApproval tells whether an amount of an administrator's deposit,
// withdrawal or reversal waits for a second administrator.
func (s *Service) needsApproval(amount money.Amount) bool {
	return amount >= s.settings.ApprovalThreshold
}

// selectApproval reads Approval from approvals p with the administrators'
// emails; callers add WHERE and ORDER BY. A pending approval past its
// expiry reads as expired.
const selectApproval = `SELECT p.id, p.kind, p.summary, ru.email AS requested_by, p.requested_by AS requested_by_id,
	p.requested_at, p.expires_at,
	CASE WHEN p.status = 'pending' AND p.expires_at <= now() THEN 'expired' ELSE p.status END AS status,
	du.email AS decided_by, p.decided_by AS decided_by_id, p.decided_at, p.reason
	FROM approvals p LEFT JOIN users ru ON ru.id = p.requested_by LEFT JOIN users du ON du.id = p.decided_by`

// requestApproval records an action for a second administrator, under the
// asker's key: the same key and action again answer the same approval (a
// retry), another action under it is idempotency_key_reused. Audited
// (APPROVAL_REQUEST).
func (s *Service) requestApproval(ctx context.Context, a Actor, kind, summary string, p approvalPayload, key string) (Approval, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return Approval{}, errs.Wrap(err, "approval payload")
	}
	var out Approval
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		var id int64
		var same, made bool
		// Twice at most: a request under the same key that committed while
		// this one waited for it is seen by the next statement only.
		var err error
		for try := 0; try < 2 && (try == 0 || notFound(err)); try++ {
			err = tx.QueryRowxContext(ctx, `
			WITH made AS (
				INSERT INTO approvals (kind, payload, summary, requested_by, expires_at, request_key)
				VALUES ($1, $2, $3, $4, now() + $5::interval, $6)
				ON CONFLICT ((coalesce(requested_by, 0)), request_key) DO NOTHING
				RETURNING id)
			SELECT id, true AS same, true AS made FROM made
			UNION ALL
			SELECT p.id, p.kind = $1 AND p.payload = $2::jsonb, false FROM approvals p
			WHERE coalesce(p.requested_by, 0) = coalesce($4, 0) AND p.request_key = $6 AND NOT EXISTS (SELECT 1 FROM made)`,
				kind, string(body), summary, nullID(a.auditUserID()), ApprovalTTL.String(), key).Scan(&id, &same, &made)
		}
		if err != nil {
			return errs.Wrap(err, "request approval")
		}
		if !same {
			return errKeyReused
		}
		if err := tx.GetContext(ctx, &out, selectApproval+` WHERE p.id = $1`, id); err != nil {
			return errs.Wrap(err, "read approval")
		}
		if !made {
			return nil // a retry: asked and audited before
		}
		return audit(ctx, tx, a, AuditEntry{Action: "APPROVAL_REQUEST", Table: "approvals",
			AccountNumber: p.Account, Description: fmt.Sprintf("Asked for approval %d: %s", id, summary)})
	})
	return out, err
}

// Approvals lists the approvals, newest first; status ("pending",
// "approved", "rejected", "expired") or "" for all.
//
// Returns admin_only (403) or invalid_input (400: another status).
func (s *Service) Approvals(ctx context.Context, a Actor, status string) ([]Approval, error) {
	if err := requireAdmin(a); err != nil {
		return nil, err
	}
	switch status {
	case "", "pending", "approved", "rejected", "expired":
	default:
		return nil, errs.Field("status", "status must be pending, approved, rejected or expired")
	}
	out := []Approval{}
	err := s.db.SelectContext(ctx, &out, `SELECT * FROM (`+selectApproval+`) x WHERE $1 = '' OR x.status = $1 ORDER BY x.id DESC LIMIT 500`, status)
	return out, errs.Wrap(err, "approvals")
}

// PendingApprovals counts the approvals waiting for a decision.
func (s *Service) PendingApprovals(ctx context.Context) (int, error) {
	var n int
	err := s.db.GetContext(ctx, &n, `SELECT count(*) FROM approvals WHERE status = 'pending' AND expires_at > now()`)
	return n, errs.Wrap(err, "pending approvals")
}

// RejectInput is the body of POST /api/admin/approvals/{id}/reject.
type RejectInput struct {
	Reason string `json:"reason"`
}

// ApproveApproval approves a pending approval and runs its action, exactly
// once, in the same transaction: the deposit, withdrawal or reversal as a
// posting (by the approver, keyed approval:<id>), or the new daily limit.
// When the action is refused (the customer no longer holds the amount, the
// account was closed meanwhile), nothing is decided: the approval stays
// pending and the refusal is the answer.
//
// Returns admin_only or same_admin or approver_signed_in (403),
// approval_not_found (404), approval_decided or approval_expired (409), the
// action's refusals (422, 404), timeout (503).
func (s *Service) ApproveApproval(ctx context.Context, a Actor, id int64) (ApprovalDecision, error) {
	return s.decide(ctx, a, id, true, "")
}

// RejectApproval rejects a pending approval with a reason; nothing runs.
//
// Returns as ApproveApproval, and invalid_input (400: no reason).
func (s *Service) RejectApproval(ctx context.Context, a Actor, id int64, in RejectInput) (ApprovalDecision, error) {
	reason, err := cleanDescription(in.Reason)
	if err == nil && reason == "" {
		err = errs.Field("reason", "reason is required: a sentence saying why")
	}
	if err != nil {
		return ApprovalDecision{}, errs.Field("reason", strings.Replace(errs.As(err).Message, "description", "reason", 1))
	}
	return s.decide(ctx, a, id, false, reason)
}

// decide decides approval id: approve runs its action; otherwise it is
// rejected for reason. A row of the action's posting that another
// transaction holds makes it try again shortly, until ctx ends.
func (s *Service) decide(ctx context.Context, a Actor, id int64, approve bool, reason string) (ApprovalDecision, error) {
	if err := requireAdmin(a); err != nil {
		return ApprovalDecision{}, err
	}
	if a.UserID == 0 {
		return ApprovalDecision{}, errDecideSignedIn
	}
	if id <= 0 {
		return ApprovalDecision{}, errApprovalNotFound
	}
	backoff := time.Millisecond
	for {
		out, err := s.decideOnce(ctx, a, id, approve, reason)
		if !errors.Is(err, errPostingBusy) {
			return out, err
		}
		select {
		case <-ctx.Done():
			return ApprovalDecision{}, errTimedOut
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 32*time.Millisecond)
	}
}

func (s *Service) decideOnce(ctx context.Context, a Actor, id int64, approve bool, reason string) (ApprovalDecision, error) {
	var out ApprovalDecision
	var expired bool
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var row struct {
			Kind        string        `db:"kind"`
			Payload     []byte        `db:"payload"`
			Summary     string        `db:"summary"`
			RequestedBy sql.NullInt64 `db:"requested_by"`
			Status      string        `db:"status"`
			Expired     bool          `db:"expired"`
		}
		// Locked: a second decision at the same moment waits here, then
		// finds it decided.
		err := tx.GetContext(ctx, &row, `SELECT kind, payload, summary, requested_by, status, expires_at <= now() AS expired
			FROM approvals WHERE id = $1 FOR UPDATE`, id)
		if notFound(err) {
			return errApprovalNotFound
		}
		if err != nil {
			return errs.Wrap(err, "lock approval")
		}
		switch {
		case row.Status != "pending":
			return errApprovalDecided
		case row.Expired:
			expired = true
			_, err := tx.ExecContext(ctx, `UPDATE approvals SET status = 'expired' WHERE id = $1`, id)
			return errs.Wrap(err, "expire approval")
		case row.RequestedBy.Valid && row.RequestedBy.Int64 == a.UserID:
			return errSameAdmin
		}
		status, action := "rejected", "APPROVAL_REJECT"
		var result json.RawMessage
		if approve {
			status, action = "approved", "APPROVAL_APPROVE"
			var p approvalPayload
			if err := json.Unmarshal(row.Payload, &p); err != nil {
				return errs.Wrap(err, "approval payload")
			}
			if result, err = s.runApproved(ctx, tx, a, id, row.Kind, p); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE approvals SET status = $2, decided_by = $3, decided_at = now(), reason = $4, result = $5
			WHERE id = $1`, id, status, a.UserID, nullText(reason), nullJSON(result)); err != nil {
			return errs.Wrap(err, "decide approval")
		}
		desc := fmt.Sprintf("Approved approval %d: %s", id, row.Summary)
		if !approve {
			desc = fmt.Sprintf("Rejected approval %d: %s (%s)", id, row.Summary, reason)
		}
		if err := audit(ctx, tx, a, AuditEntry{Action: action, Table: "approvals", Description: desc}); err != nil {
			return err
		}
		out.Result = result
		return errs.Wrap(tx.GetContext(ctx, &out.Approval, selectApproval+` WHERE p.id = $1`, id), "read approval")
	})
	if expired && err == nil {
		return ApprovalDecision{}, errApprovalExpired
	}
	return out, err
}

// runApproved runs an approved action in tx, as the approver.
func (s *Service) runApproved(ctx context.Context, tx *sqlx.Tx, a Actor, id int64, kind string, p approvalPayload) (json.RawMessage, error) {
	key := fmt.Sprintf("approval:%d", id)
	switch kind {
	case approvalDeposit, approvalWithdrawal:
		ps := fundsPosting(a, p.Account, FundsInput{Amount: p.Amount, Description: p.Description}, key, kind)
		out, err := madeInTx(s.postInTx(ctx, tx, ps))
		return out.Body, err
	case approvalReversal:
		ps := posting{kind: postReversal, actor: a.UserID, request: p.Transaction, description: p.Reason, key: key,
			hash: reversalHash(p.Transaction, p.Reason)}
		out, err := madeInTx(s.postInTx(ctx, tx, ps))
		return out.Body, err
	case approvalLimitRaise:
		limit, err := s.setDailyLimitTx(ctx, tx, a, p.UserID, p.Limit)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(limit)
		return b, errs.Wrap(err, "limit")
	}
	return nil, errs.Wrap(fmt.Errorf("unknown approval kind %q", kind), "approval")
}

// nullText is s for SQL, NULL when empty.
func nullText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nullJSON is b for SQL, NULL when empty.
func nullJSON(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}
