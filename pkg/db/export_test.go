package db

import (
	"context"
	"database/sql"

	"github.com/jmoiron/sqlx"
)

// ApplyForTest applies one migration as Up applies each: under the
// migration lock, then recorded.
func ApplyForTest(ctx context.Context, db *sqlx.DB, m Migration) error {
	return locked(ctx, db, func(tx *sql.Tx) error { return step(ctx, db, tx, m, true) })
}
