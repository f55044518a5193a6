package bank

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// Money request statuses.
const (
	RequestPending  = "PENDING"
	RequestAccepted = "ACCEPTED"
	RequestRejected = "REJECTED"
	RequestExpired  = "EXPIRED"
)

// MoneyRequest asks the holder of RecipientID to pay Amount into
// RequesterID (both account numbers). Direction is "incoming" when the
// caller is the one asked to pay, "outgoing" when the caller asked; it is
// empty in the admin's list. A PENDING request past ExpiresAt shows as
// EXPIRED even before the expiry job has swept it.
type MoneyRequest struct {
	ID          int64        `json:"ID" db:"id"`
	Amount      money.Amount `json:"Amount" db:"amount"`
	RequesterID string       `json:"requester_id" db:"requester_id"`
	RecipientID string       `json:"recipient_id" db:"recipient_id"`
	Status      string       `json:"Status" db:"status"`
	RequesteAt  time.Time    `json:"RequesteAt" db:"created_at"`
	ExpiresAt   time.Time    `json:"ExpiresAt" db:"expires_at"`
	Description string       `json:"description" db:"description"`
	Direction   string       `json:"direction,omitempty" db:"direction"`
}

// MoneyRequestInput is the body of a money request: the requester (the
// caller) asks to be paid into RequesterID from RecipientID.
type MoneyRequestInput struct {
	RequesterID string       `json:"requester_id"`
	RecipientID string       `json:"recipient_id"`
	Amount      money.Amount `json:"amount"`
	Description string       `json:"description"`
	UserID      *int64       `json:"user_id"`
}

// selectRequest reads MoneyRequest from money_requests r; $1 is the
// caller's user id (0 for no direction) and $2 the time now.
const selectRequest = `SELECT r.id, r.amount, qa.account_number AS requester_id, pa.account_number AS recipient_id,
	CASE WHEN r.status = 'PENDING' AND r.expires_at <= $2 THEN 'EXPIRED' ELSE r.status END AS status,
	r.created_at, r.expires_at, r.description,
	CASE WHEN $1::bigint = 0 THEN '' WHEN r.recipient_user_id = $1 THEN 'incoming' ELSE 'outgoing' END AS direction
	FROM money_requests r JOIN accounts qa ON qa.id = r.requester_account_id JOIN accounts pa ON pa.id = r.recipient_account_id`

var (
	errRequestNotFound   = errs.E(errs.NotFound, "request_not_found", "Money request not found")
	errRequestNotPending = errs.E(errs.Conflict, "request_not_pending", "This request is no longer pending")
	errRequestOwnAccount = errs.E(errs.Unprocessable, "own_account", "You cannot request money from your own account")
)

func (s *Service) getRequest(ctx context.Context, q sqlx.QueryerContext, viewer, id int64) (MoneyRequest, error) {
	var r MoneyRequest
	err := sqlx.GetContext(ctx, q, &r, selectRequest+` WHERE r.id = $3`, viewer, s.now(), id)
	return r, errs.Wrap(err, "read request")
}

// CreateMoneyRequest asks the holder of in.RecipientID to pay into one of
// the actor's open accounts. The recipient is notified; it expires after
// the configured requests TTL.
//
// Returns customer_only (403), forbidden (403, a user_id not the caller's),
// invalid_input (an account number, amount or description that breaks the
// input rules), account_not_found (404: either account missing or closed,
// or the requester's not the caller's), same_account, own_account,
// recipient_inactive or currency_mismatch (422).
func (s *Service) CreateMoneyRequest(ctx context.Context, a Actor, in MoneyRequestInput) (MoneyRequest, error) {
	if err := requireCustomer(a); err != nil {
		return MoneyRequest{}, err
	}
	if err := checkUserID(a, in.UserID); err != nil {
		return MoneyRequest{}, err
	}
	var err error
	if in.RequesterID, err = cleanAccountRef("requester_id", in.RequesterID, true); err != nil {
		return MoneyRequest{}, err
	}
	if in.RecipientID, err = cleanAccountRef("recipient_id", in.RecipientID, true); err != nil {
		return MoneyRequest{}, err
	}
	if err := s.checkAmount(ctx, a, "amount", in.Amount, in.RequesterID); err != nil {
		return MoneyRequest{}, err
	}
	if in.Description, err = cleanDescription(in.Description); err != nil {
		return MoneyRequest{}, err
	}
	var out MoneyRequest
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		// FOR SHARE: an account being closed (CloseAccount locks it FOR
		// UPDATE and counts its pending requests) cannot get a new request.
		rows, err := lockAccountsByNumber(ctx, tx, forShare, in.RequesterID, in.RecipientID)
		if err != nil {
			return err
		}
		mine, ok := pick(rows, func(r lockedAccount) bool { return r.AccountNumber == in.RequesterID })
		if !ok || mine.UserID != a.UserID || mine.Closed {
			return errs.ErrAccountNotFound
		}
		if in.RequesterID == in.RecipientID {
			return errSameAccount
		}
		payer, ok := pick(rows, func(r lockedAccount) bool { return r.AccountNumber == in.RecipientID })
		if !ok || payer.Closed {
			return errs.ErrAccountNotFound
		}
		if payer.UserID == a.UserID {
			return errRequestOwnAccount
		}
		if !payer.HolderActive {
			return errRecipientInactive
		}
		if mine.Currency != payer.Currency {
			return errCurrencyMismatch
		}
		now := s.now()
		var id int64
		if err := tx.GetContext(ctx, &id, `
			INSERT INTO money_requests (requester_account_id, recipient_account_id, requester_user_id, recipient_user_id, amount, description, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
			mine.ID, payer.ID, mine.UserID, payer.UserID, in.Amount, in.Description, now, now.Add(s.settings.RequestsTTL)); err != nil {
			return errs.Wrap(err, "insert request")
		}
		if err := notify(ctx, tx, payer.UserID, fmt.Sprintf("%s requested %s from your account %s", mine.HolderName, money.Format(in.Amount, mine.Currency), payer.AccountNumber)); err != nil {
			return err
		}
		if err := audit(ctx, tx, a, AuditEntry{Action: "REQUEST_CREATE", Table: "money_requests", AccountNumber: mine.AccountNumber,
			Description: fmt.Sprintf("Requested %s from account %s into %s (request %d)", money.Format(in.Amount, mine.Currency), payer.AccountNumber, mine.AccountNumber, id)}); err != nil {
			return err
		}
		out, err = s.getRequest(ctx, tx, a.UserID, id)
		return err
	})
	return out, err
}

// ListMoneyRequests returns the actor's requests in both directions, newest first.
//
// Returns customer_only (403), invalid_input (400, a user_id that is not a
// positive whole number) or forbidden (403, a user_id not the caller's).
func (s *Service) ListMoneyRequests(ctx context.Context, a Actor, userID *int64) ([]MoneyRequest, error) {
	if err := requireCustomer(a); err != nil {
		return nil, err
	}
	if err := checkUserID(a, userID); err != nil {
		return nil, err
	}
	out := []MoneyRequest{}
	err := s.reader(ctx).SelectContext(ctx, &out, selectRequest+`
		WHERE r.requester_user_id = $1 OR r.recipient_user_id = $1 ORDER BY r.id DESC`, a.UserID, s.now())
	return out, errs.Wrap(err, "list requests")
}

// AdminMoneyRequests returns every customer's requests, newest first (the
// newest 1000).
//
// Returns admin_only (403) for a non-admin.
func (s *Service) AdminMoneyRequests(ctx context.Context, a Actor) ([]MoneyRequest, error) {
	if err := requireAdmin(a); err != nil {
		return nil, err
	}
	out := []MoneyRequest{}
	err := s.reader(ctx).SelectContext(ctx, &out, selectRequest+` ORDER BY r.id DESC LIMIT $3`, 0, s.now(), maxLimit)
	return out, errs.Wrap(err, "all requests")
}

// pendingRequest is a money request row locked for an answer.
type pendingRequest struct {
	ID                 int64        `db:"id"`
	RequesterAccountID int64        `db:"requester_account_id"`
	RecipientAccountID int64        `db:"recipient_account_id"`
	RequesterUserID    int64        `db:"requester_user_id"`
	RecipientUserID    int64        `db:"recipient_user_id"`
	Amount             money.Amount `db:"amount"`
	Description        string       `db:"description"`
	Status             string       `db:"status"`
	ExpiresAt          time.Time    `db:"expires_at"`
}

// lockPending locks request id for its recipient (the actor). Anyone else's
// request answers 404, exactly as a missing one; a request that is not
// PENDING, or has passed its expiry time, answers 409.
func (s *Service) lockPending(ctx context.Context, tx *sqlx.Tx, a Actor, id int64) (pendingRequest, error) {
	var r pendingRequest
	if id <= 0 {
		return r, errRequestNotFound
	}
	err := tx.GetContext(ctx, &r, `SELECT id, requester_account_id, recipient_account_id, requester_user_id, recipient_user_id,
		amount, description, status, expires_at FROM money_requests WHERE id = $1 FOR UPDATE`, id)
	if notFound(err) || (err == nil && r.RecipientUserID != a.UserID) {
		return r, errRequestNotFound
	}
	if err != nil {
		return r, errs.Wrap(err, "lock request")
	}
	if r.Status != RequestPending || !r.ExpiresAt.After(s.now()) {
		return r, errRequestNotPending
	}
	return r, nil
}

// AcceptResult is an accepted money request: Body is the answer's JSON,
// {"message": "Money request accepted", "data": ...}, stored under Key, and
// Request the request it holds. Replayed: an earlier acceptance under the
// same key answered again; nothing moved now.
type AcceptResult struct {
	Posted
	Request MoneyRequest
}

// AcceptMoneyRequest pays a PENDING request addressed to the actor, as one
// posting (postings.go, post_batch): the payment (kind "request": DEBIT on
// the payer's account, CREDIT on the requester's), its count against the
// payer's daily limit, the status change, the requester's notification and
// the audit row commit together; on a refusal nothing moves and the request
// stays PENDING. The answer is stored under idempotencyKey (made when
// empty), as a transfer's is.
//
// Returns customer_only (403), invalid_input (a bad Idempotency-Key),
// request_not_found (404: missing or not addressed to the caller),
// request_not_pending (409: answered or expired), account_closed (422, the
// paying or the receiving account), recipient_inactive, currency_mismatch,
// insufficient_funds or daily_limit_exceeded (422: paying would pass the
// caller's daily limit in that currency, limits.go), user_deactivated (401:
// the payer was deactivated meanwhile), idempotency_key_reused (409),
// timeout or outcome_unknown (503, as Transfer).
func (s *Service) AcceptMoneyRequest(ctx context.Context, a Actor, id int64, idempotencyKey string) (AcceptResult, error) {
	if err := requireCustomer(a); err != nil {
		return AcceptResult{}, err
	}
	key, err := checkKey(idempotencyKey)
	if err != nil {
		return AcceptResult{}, err
	}
	if id <= 0 {
		return AcceptResult{}, errRequestNotFound
	}
	out, err := s.postings.do(ctx, posting{kind: postRequest, actor: a.UserID, request: id, key: key,
		hash: postingHash(postRequest, strconv.FormatInt(id, 10)), dated: ledgerDate(ctx)})
	if err != nil {
		return AcceptResult{}, err
	}
	var reply struct {
		Data MoneyRequest `json:"data"`
	}
	if err := json.Unmarshal(out.Body, &reply); err != nil {
		return AcceptResult{}, errs.Wrap(err, "accept reply")
	}
	return AcceptResult{Posted: out, Request: reply.Data}, nil
}

// DeclineMoneyRequest refuses a PENDING request addressed to the actor.
//
// Returns customer_only (403), request_not_found (404: missing or not
// addressed to the caller) or request_not_pending (409: answered or expired).
func (s *Service) DeclineMoneyRequest(ctx context.Context, a Actor, id int64) (MoneyRequest, error) {
	if err := requireCustomer(a); err != nil {
		return MoneyRequest{}, err
	}
	var out MoneyRequest
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		r, err := s.lockPending(ctx, tx, a, id)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE money_requests SET status = 'REJECTED', resolved_at = $2 WHERE id = $1`, r.ID, s.now()); err != nil {
			return errs.Wrap(err, "decline request")
		}
		var payer struct {
			Number   string `db:"account_number"`
			Currency string `db:"currency"`
		}
		if err := tx.GetContext(ctx, &payer, `SELECT account_number, currency FROM accounts WHERE id = $1`, r.RecipientAccountID); err != nil {
			return errs.Wrap(err, "payer account")
		}
		amount := money.Format(r.Amount, payer.Currency)
		if err := notify(ctx, tx, r.RequesterUserID, fmt.Sprintf("Your request for %s from account %s was declined", amount, payer.Number)); err != nil {
			return err
		}
		if err := audit(ctx, tx, a, AuditEntry{Action: "REQUEST_DECLINE", Table: "money_requests", AccountNumber: payer.Number,
			Description: fmt.Sprintf("Declined request %d for %s", r.ID, amount)}); err != nil {
			return err
		}
		out, err = s.getRequest(ctx, tx, a.UserID, r.ID)
		return err
	})
	return out, err
}
