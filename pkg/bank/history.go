package bank

import (
	"context"
	"fmt"
	"github.com/lib/pq"
	"strings"

	"meridian/pkg/errs"
)

// HistoryQuery selects a page of ledger rows. AccountNumber narrows it to
// one account; Type is "", "DEBIT" or "CREDIT" (any case). UserID, when
// sent by a client, must be the caller's own id.
type HistoryQuery struct {
	UserID        *int64
	AccountNumber string
	Type          string
	Page          Page
}

// normalize checks the type and the page; it returns the limit and cursor id.
func (q *HistoryQuery) normalize() (int, int64, error) {
	q.Type = strings.ToUpper(strings.TrimSpace(q.Type))
	if q.Type != "" && q.Type != "DEBIT" && q.Type != "CREDIT" {
		return 0, 0, errs.Field("transaction_type", "transaction_type must be DEBIT or CREDIT")
	}
	var err error
	if q.AccountNumber, err = cleanAccountRef("account_id", q.AccountNumber, false); err != nil {
		return 0, 0, err
	}
	return q.Page.decode()
}

// History returns the caller's ledger rows (all their accounts, or one of
// them), newest first, and the cursor of the next page (nil at the end).
// Another customer's account number answers 404, as a missing one does.
//
// Returns customer_only (403), forbidden (403, a user_id not the caller's),
// invalid_input (a user_id, transaction_type, account number, limit or
// cursor that breaks the input rules) or account_not_found (404).
func (s *Service) History(ctx context.Context, a Actor, q HistoryQuery) ([]Transaction, *string, error) {
	if err := requireCustomer(a); err != nil {
		return nil, nil, err
	}
	if err := checkUserID(a, q.UserID); err != nil {
		return nil, nil, err
	}
	if !a.MaySeeAccount(q.AccountNumber) && q.AccountNumber != "" {
		return nil, nil, errs.ErrAccountNotFound // a connected app sees only the accounts it was given
	}
	return s.history(ctx, a.UserID, a.Accounts, q)
}

// AdminHistory is History over every customer's ledger.
//
// Returns admin_only (403), invalid_input (as History) or account_not_found
// (404).
func (s *Service) AdminHistory(ctx context.Context, a Actor, q HistoryQuery) ([]Transaction, *string, error) {
	if err := requireAdmin(a); err != nil {
		return nil, nil, err
	}
	return s.history(ctx, 0, nil, q)
}

// history pages the ledger of owner (0: everyone). Each filter narrows the
// WHERE clause, so the planner walks transactions_account_idx or
// transactions_user_idx (both (…, id DESC)) from the cursor and stops after
// limit+1 rows, however long the ledger. only, when not nil, narrows it to
// those account numbers (a connected app's).
func (s *Service) history(ctx context.Context, owner int64, only []string, q HistoryQuery) ([]Transaction, *string, error) {
	limit, before, err := q.normalize()
	if err != nil {
		return nil, nil, err
	}
	rd := s.reader(ctx)
	var where []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if q.AccountNumber != "" {
		var acct int64
		err := rd.GetContext(ctx, &acct, `SELECT id FROM accounts WHERE account_number = $1 AND ($2::bigint = 0 OR user_id = $2)`, q.AccountNumber, owner)
		if notFound(err) {
			return nil, nil, errs.ErrAccountNotFound
		}
		if err != nil {
			return nil, nil, errs.Wrap(err, "history account")
		}
		where = append(where, "t.account_id = "+arg(acct))
	} else if only != nil {
		where = append(where, "t.account_id IN (SELECT id FROM accounts WHERE account_number = ANY ("+arg(pq.Array(only))+") AND user_id = "+arg(owner)+")")
	} else if owner != 0 {
		where = append(where, "t.user_id = "+arg(owner))
	} else {
		// Everyone's: the customers' rows. The bank's own accounts' rows
		// (the other side of deposits, interest, exchanges) show when their
		// account is named, and in the trial balance.
		where = append(where, "t.user_id IS NOT NULL")
	}
	if q.Type != "" {
		where = append(where, "t.transaction_type = "+arg(q.Type))
	}
	if before > 0 {
		where = append(where, "t.id < "+arg(before))
	}
	query := selectTransaction
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, " AND ")
	}
	query += ` ORDER BY t.id DESC LIMIT ` + arg(limit+1)
	rows := []Transaction{}
	if err := rd.SelectContext(ctx, &rows, query, args...); err != nil {
		return nil, nil, errs.Wrap(err, "history")
	}
	rows, next := nextPage(rows, limit, func(t Transaction) int64 { return t.ID })
	return rows, next, nil
}
