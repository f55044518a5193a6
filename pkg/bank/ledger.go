package bank

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// lockedAccount is an account locked for a change that is not a posting
// (a new money request), with its holder's state. Postings lock their
// accounts inside post_batch (postings.go).
type lockedAccount struct {
	ID            int64        `db:"id"`
	UserID        int64        `db:"user_id"`
	AccountNumber string       `db:"account_number"`
	Currency      string       `db:"currency"`
	Balance       money.Amount `db:"balance"`
	Closed        bool         `db:"closed"`
	HolderName    string       `db:"full_name"`
	HolderActive  bool         `db:"is_active"`
}

// selectLockedAccount reads lockedAccount from accounts a and users u.
const selectLockedAccount = `SELECT a.id, a.user_id, a.account_number, a.currency, a.balance, a.closed_at IS NOT NULL AS closed, u.full_name, u.is_active
	FROM accounts a JOIN users u ON u.id = a.user_id`

// lockMode is how lockAccounts locks the accounts.
type lockMode int

const (
	// forUpdate: this transaction changes them (a payment). The zero value,
	// the strongest lock.
	forUpdate lockMode = iota
	// forShare: they cannot change or close until this transaction ends,
	// and other transactions may share-lock them too.
	forShare
)

func (m lockMode) sql() string {
	if m == forShare {
		return `FOR SHARE OF a`
	}
	return `FOR UPDATE OF a`
}

// lockAccountsByNumber locks the accounts numbered x and y; see lockAccounts.
func lockAccountsByNumber(ctx context.Context, tx *sqlx.Tx, mode lockMode, x, y string) ([]lockedAccount, error) {
	return lockAccounts(ctx, tx, mode, `a.account_number IN ($1, $2)`, x, y)
}

// lockAccounts locks the accounts selected by where, one of the fixed
// conditions of lockAccountsByNumber, in the order of their ids, in one statement, so two
// payments that cross (A to B and B to A) wait for each other instead of
// deadlocking. Missing accounts are simply not among the rows.
func lockAccounts(ctx context.Context, tx *sqlx.Tx, mode lockMode, where string, args ...any) ([]lockedAccount, error) {
	var rows []lockedAccount
	err := tx.SelectContext(ctx, &rows, selectLockedAccount+` WHERE `+where+` ORDER BY a.id `+mode.sql(), args...)
	return rows, errs.Wrap(err, "lock accounts")
}

// pick returns the locked account with the given number or id.
func pick(rows []lockedAccount, match func(lockedAccount) bool) (lockedAccount, bool) {
	for _, r := range rows {
		if match(r) {
			return r, true
		}
	}
	return lockedAccount{}, false
}

// backdateKey carries the date of the ledger rows written under a context:
// only the demo seed sets it (backdated), to spread its history over past
// months. Ledger rows are never updated, so they are dated as written.
type backdateKey struct{}

// ledgerDate is the date backdated put in ctx, or nil: now.
func ledgerDate(ctx context.Context) any {
	if t, ok := ctx.Value(backdateKey{}).(time.Time); ok {
		return t
	}
	return nil
}

// backdated returns ctx whose ledger rows are dated at.
func backdated(ctx context.Context, at time.Time) context.Context {
	return context.WithValue(ctx, backdateKey{}, at)
}

// Account classes: a customer's, or one of the bank's own accounts
// (migrations/0018), one of each per currency.
const (
	ClassCustomer        = "customer"
	ClassVault           = "vault"            // cash in by deposit, out by withdrawal
	ClassInterestExpense = "interest_expense" // interest paid to customers
	ClassFXPosition      = "fx_position"      // the other side of exchanges
	ClassFees            = "fees"             // fees the bank earns
)

// AccountClasses are the classes in the order the trial balance lists them.
var AccountClasses = []string{ClassCustomer, ClassVault, ClassInterestExpense, ClassFXPosition, ClassFees}

// TrialBalanceRow is what the accounts of one class hold in one currency:
// the customers' as they see them (positive), the bank's the other side.
type TrialBalanceRow struct {
	Class    string       `json:"class" db:"class"`
	Currency string       `json:"currency" db:"currency"`
	Balance  money.Amount `json:"balance" db:"balance"`
}

// TrialBalance returns, from one snapshot, the balance of every class of
// account in every currency, by currency then class (every class of every
// currency the bank keeps accounts in, 0 when empty). Double entry holds
// when, per currency, they sum to zero (Unbalanced).
//
// Returns admin_only (403) for a non-admin.
func (s *Service) TrialBalance(ctx context.Context, a Actor) ([]TrialBalanceRow, error) {
	if err := requireAdmin(a); err != nil {
		return nil, err
	}
	out := []TrialBalanceRow{}
	err := s.db.SelectContext(ctx, &out, `
		SELECT k.class, c.currency, coalesce(sum(a.balance), 0) AS balance
		FROM (SELECT DISTINCT currency::text AS currency FROM accounts) c
		CROSS JOIN unnest($1::text[]) WITH ORDINALITY AS k(class, o)
		LEFT JOIN accounts a ON a.class = k.class AND a.currency = c.currency
		GROUP BY k.class, k.o, c.currency
		ORDER BY c.currency, k.o`, pq.Array(AccountClasses))
	return out, errs.Wrap(err, "trial balance")
}

// Unbalanced returns the currencies whose rows do not sum to zero, with
// their sums.
func Unbalanced(rows []TrialBalanceRow) map[string]money.Amount {
	sums := map[string]money.Amount{}
	for _, r := range rows {
		sums[r.Currency] += r.Balance
	}
	for c, v := range sums {
		if v == 0 {
			delete(sums, c)
		}
	}
	return sums
}
