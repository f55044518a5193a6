package loadtest

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"meridian/pkg/bank"
	"meridian/pkg/money"
)

// Mark is where the database stood before a load: the newest user and
// ledger row, and the total of all balances.
type Mark struct {
	MaxUserID        int64        `json:"max_user_id"`
	MaxTransactionID int64        `json:"max_transaction_id"`
	TotalBalance     money.Amount `json:"total_balance"`
}

// TakeMark reads the Mark in one snapshot.
func TakeMark(ctx context.Context, dbx *sqlx.DB) (Mark, error) {
	var m Mark
	err := dbx.QueryRowxContext(ctx, `SELECT
		(SELECT COALESCE(max(id), 0) FROM users),
		(SELECT COALESCE(max(id), 0) FROM transactions),
		(SELECT COALESCE(sum(balance), 0) FROM accounts WHERE class = 'customer')`).Scan(&m.MaxUserID, &m.MaxTransactionID, &m.TotalBalance)
	if err != nil {
		return Mark{}, fmt.Errorf("reading the database's mark: %w", err)
	}
	return m, nil
}

// BulkCustomers returns the active bulk-seeded customers (pkg/bank
// SeedBulk: user<N>@bulk.meridian.test, password bank.BulkPassword) with
// their open accounts. With afterUserID > 0 only users with a greater id
// (those seeded after a Mark); with limit > 0 at most limit of them, picked
// by a hash of their id and seed (so the same seed picks the same users).
func BulkCustomers(ctx context.Context, dbx *sqlx.DB, afterUserID int64, limit int, seed int64) ([]Customer, error) {
	order := `u.id`
	args := []any{afterUserID}
	lim := ``
	if limit > 0 {
		order = `hashint8extended(u.id, $2), u.id`
		lim = ` LIMIT $3`
		args = append(args, seed, limit)
	}
	var users []struct {
		ID    int64  `db:"id"`
		Email string `db:"email"`
	}
	if err := dbx.SelectContext(ctx, &users, `
		SELECT u.id, u.email FROM users u
		WHERE u.id > $1 AND u.email LIKE '%@bulk.meridian.test' AND u.is_active
			AND EXISTS (SELECT 1 FROM accounts a WHERE a.user_id = u.id AND a.closed_at IS NULL)
		ORDER BY `+order+lim, args...); err != nil {
		return nil, fmt.Errorf("reading bulk customers: %w", err)
	}
	if len(users) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(users))
	for i, u := range users {
		ids[i] = u.ID
	}
	var accts []struct {
		UserID int64  `db:"user_id"`
		Number string `db:"account_number"`
	}
	if err := dbx.SelectContext(ctx, &accts, `SELECT user_id, account_number FROM accounts
		WHERE closed_at IS NULL AND user_id = ANY($1) ORDER BY user_id, id`, pq.Array(ids)); err != nil {
		return nil, fmt.Errorf("reading bulk accounts: %w", err)
	}
	byUser := map[int64][]string{}
	for _, a := range accts {
		byUser[a.UserID] = append(byUser[a.UserID], a.Number)
	}
	out := make([]Customer, len(users))
	for i, u := range users {
		out[i] = Customer{UserID: u.ID, Email: u.Email, Password: bank.BulkPassword, Accounts: byUser[u.ID]}
	}
	return out, nil
}
