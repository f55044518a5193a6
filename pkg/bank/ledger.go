package bank

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// lockedAccount is an account locked for a payment, with its holder's state.
type lockedAccount struct {
	ID            int64        `db:"id"`
	UserID        int64        `db:"user_id"`
	AccountNumber string       `db:"account_number"`
	Currency      string       `db:"currency"`
	Balance       money.Amount `db:"balance"`
	Closed        bool         `db:"closed"`
	HolderName    string       `db:"full_name"`
	HolderActive  bool         `db:"is_active"`
	// HolderLimit is the holder's own daily limit (users.daily_transfer_limit),
	// nil for the configured default (limits.go).
	HolderLimit *money.Amount `db:"daily_transfer_limit"`
}

// selectLockedAccount reads lockedAccount from accounts a and users u.
const selectLockedAccount = `SELECT a.id, a.user_id, a.account_number, a.currency, a.balance, a.closed_at IS NOT NULL AS closed, u.full_name, u.is_active,
	u.daily_transfer_limit
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

// lockAccountsByID locks the accounts with ids x and y; see lockAccounts.
func lockAccountsByID(ctx context.Context, tx *sqlx.Tx, mode lockMode, x, y int64) ([]lockedAccount, error) {
	return lockAccounts(ctx, tx, mode, `a.id IN ($1, $2)`, x, y)
}

// lockAccountsByNumber locks the accounts numbered x and y; see lockAccounts.
func lockAccountsByNumber(ctx context.Context, tx *sqlx.Tx, mode lockMode, x, y string) ([]lockedAccount, error) {
	return lockAccounts(ctx, tx, mode, `a.account_number IN ($1, $2)`, x, y)
}

// lockAccountByNumber locks the one account numbered n; see lockAccounts.
func lockAccountByNumber(ctx context.Context, tx *sqlx.Tx, mode lockMode, n string) ([]lockedAccount, error) {
	return lockAccounts(ctx, tx, mode, `a.account_number = $1`, n)
}

// lockAccounts locks the accounts selected by where, one of the fixed
// conditions of lockAccountsByID, lockAccountsByNumber and
// lockAccountByNumber, in the order of their ids, in one statement, so two
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

// pay moves amount from one locked account to another: both balances and
// the DEBIT and CREDIT ledger rows. It returns the DEBIT row's id. A balance
// that would go negative is refused by the code and, as a backstop, by the
// database's CHECK (balance >= 0): both answer 422 Insufficient funds.
func pay(ctx context.Context, tx *sqlx.Tx, from, to lockedAccount, amount money.Amount, kind, desc string) (int64, error) {
	if from.Balance < amount {
		return 0, errInsufficientFunds
	}
	if _, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance - $2 WHERE id = $1`, from.ID, amount); err != nil {
		if code, _ := pgCode(err); code == "23514" {
			return 0, errInsufficientFunds
		}
		return 0, errs.Wrap(err, "debit")
	}
	if _, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance + $2 WHERE id = $1`, to.ID, amount); err != nil {
		return 0, errs.Wrap(err, "credit")
	}
	debit, err := ledger(ctx, tx, from.ID, from.UserID, "DEBIT", kind, amount, from.ID, to.ID, desc)
	if err != nil {
		return 0, err
	}
	if _, err := ledger(ctx, tx, to.ID, to.UserID, "CREDIT", kind, amount, from.ID, to.ID, desc); err != nil {
		return 0, err
	}
	return debit, nil
}

// ledger writes one ledger row for account acct (owned by userID), dated
// now, or at the time backdated put in ctx.
func ledger(ctx context.Context, tx *sqlx.Tx, acct, userID int64, typ, kind string, amount money.Amount, from, to int64, desc string) (int64, error) {
	at := ledgerDate(ctx)
	var id int64
	err := tx.GetContext(ctx, &id, `
		INSERT INTO transactions (account_id, user_id, transaction_type, kind, amount, from_account_id, to_account_id, description, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, COALESCE($9::timestamptz, now())) RETURNING id`, acct, userID, typ, kind, amount, from, to, desc, at)
	return id, errs.Wrap(err, "ledger")
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
