package bank

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/errs"
)

// Payee is an account a customer saved to pay again: its current number and
// its holder's name, under the customer's nickname for it.
type Payee struct {
	ID            int64     `json:"id" db:"id"`
	Nickname      string    `json:"nickname" db:"nickname"`
	AccountNumber string    `json:"account_number" db:"account_number"`
	HolderName    string    `json:"holder_name" db:"holder_name"`
	CreatedAt     time.Time `json:"created_at" db:"created_at"`
}

// PayeeInput is the body of a new payee. AccountNumber is the account to
// save; Nickname what the customer calls it (1 to 100 characters).
type PayeeInput struct {
	Nickname      string `json:"nickname"`
	AccountNumber string `json:"account_number"`
	UserID        *int64 `json:"user_id"`
}

// selectPayee reads Payee from payees p with its account and holder; callers
// add WHERE and ORDER BY.
const selectPayee = `SELECT p.id, p.nickname, a.account_number, u.full_name AS holder_name, p.created_at
	FROM payees p JOIN accounts a ON a.id = p.account_id JOIN users u ON u.id = a.user_id`

var (
	errPayeeNotFound   = errs.E(errs.NotFound, "payee_not_found", "Payee not found")
	errPayeeExists     = errs.E(errs.Conflict, "payee_exists", "This account is already saved as a payee")
	errPayeeOwnAccount = errs.E(errs.Unprocessable, "own_account", "You cannot save your own account as a payee")
)

// ListPayees returns the actor's payees, newest first.
//
// Returns customer_only (403).
func (s *Service) ListPayees(ctx context.Context, a Actor) ([]Payee, error) {
	if err := requireCustomer(a); err != nil {
		return nil, err
	}
	out := []Payee{}
	err := s.reader(ctx).SelectContext(ctx, &out, selectPayee+` WHERE p.user_id = $1 ORDER BY p.id DESC`, a.UserID)
	return out, errs.Wrap(err, "list payees")
}

// CreatePayee saves another customer's open account as one of the actor's
// payees, audited in the same transaction. A payee shows its holder's name,
// so saving one counts against the same per-user limit as an account
// lookup (against enumeration).
//
// Returns customer_only (403), forbidden (403, a user_id not the caller's),
// invalid_input (400: a nickname that is empty, over 100 characters or not
// one line of text; an account number that breaks the input rules),
// too_many_lookups (429), account_not_found (404: no such open account),
// payee_exists (409: already saved) or own_account (422: the actor's own
// account).
func (s *Service) CreatePayee(ctx context.Context, a Actor, in PayeeInput) (Payee, error) {
	if err := requireCustomer(a); err != nil {
		return Payee{}, err
	}
	if err := checkUserID(a, in.UserID); err != nil {
		return Payee{}, err
	}
	var err error
	if in.Nickname, err = clean("nickname", in.Nickname, MaxNameLen, true); err != nil {
		return Payee{}, err
	}
	if in.AccountNumber, err = cleanAccountRef("account_number", in.AccountNumber, true); err != nil {
		return Payee{}, err
	}
	if err := s.allowLookup(a); err != nil {
		return Payee{}, err
	}
	var out Payee
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		var acc struct {
			ID     int64 `db:"id"`
			UserID int64 `db:"user_id"`
		}
		err := tx.GetContext(ctx, &acc, `SELECT id, user_id FROM accounts WHERE account_number = $1 AND class = 'customer' AND closed_at IS NULL`, in.AccountNumber)
		if notFound(err) {
			return errs.ErrAccountNotFound
		}
		if err != nil {
			return errs.Wrap(err, "payee account")
		}
		if acc.UserID == a.UserID {
			return errPayeeOwnAccount
		}
		var id int64
		err = tx.GetContext(ctx, &id, `INSERT INTO payees (user_id, account_id, nickname, created_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (user_id, account_id) DO NOTHING RETURNING id`, a.UserID, acc.ID, in.Nickname, s.now())
		if notFound(err) {
			return errPayeeExists
		}
		if err != nil {
			return errs.Wrap(err, "insert payee")
		}
		if err := audit(ctx, tx, a, AuditEntry{Action: "PAYEE_CREATE", Table: "payees", AccountNumber: in.AccountNumber,
			Description: fmt.Sprintf("Saved account %s as payee %q (payee %d)", in.AccountNumber, in.Nickname, id)}); err != nil {
			return err
		}
		return errs.Wrap(tx.GetContext(ctx, &out, selectPayee+` WHERE p.id = $1`, id), "read payee")
	})
	return out, err
}

// DeletePayee removes one of the actor's payees, audited in the same
// transaction. Anyone else's payee answers 404, exactly as a missing one.
//
// Returns customer_only (403) or payee_not_found (404).
func (s *Service) DeletePayee(ctx context.Context, a Actor, id int64) error {
	if err := requireCustomer(a); err != nil {
		return err
	}
	if id <= 0 {
		return errPayeeNotFound
	}
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		var p Payee
		err := tx.GetContext(ctx, &p, `WITH gone AS (DELETE FROM payees WHERE id = $1 AND user_id = $2 RETURNING id, nickname, account_id, created_at)
			SELECT g.id, g.nickname, a.account_number, u.full_name AS holder_name, g.created_at
			FROM gone g JOIN accounts a ON a.id = g.account_id JOIN users u ON u.id = a.user_id`, id, a.UserID)
		if notFound(err) {
			return errPayeeNotFound
		}
		if err != nil {
			return errs.Wrap(err, "delete payee")
		}
		return audit(ctx, tx, a, AuditEntry{Action: "PAYEE_DELETE", Table: "payees", AccountNumber: p.AccountNumber,
			Description: fmt.Sprintf("Removed payee %q, account %s (payee %d)", p.Nickname, p.AccountNumber, p.ID)})
	})
}
