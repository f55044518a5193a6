package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// AppendOnlyTables are the tables whose rows are never changed or removed
// once written: the ledger, the audit records and the runs of scheduled
// transfers (the last guard of "each occurrence once"). The runtime role
// may read and insert them, nothing else; only the owner (migrations) may
// do more.
// A table listed here that does not exist (yet) is skipped.
var AppendOnlyTables = []string{"transactions", "audit_log", "audit_chain", "notification_feed", "scheduled_transfer_runs"}

// ReadOnlyTables are the owner's bookkeeping, which the runtime role may only
// read: the migrations and function files applied (a role that could write
// them could make the schema look newer or older) and the sealer's horizon (only event_seal(),
// which runs as the owner, moves it; a runtime role that could would make
// rows below it never sealed).
// A table listed here that does not exist (yet) is skipped.
var ReadOnlyTables = []string{"schema_migrations", "schema_functions", "event_sealer"}

// KeptTables hold rows that change but are never removed: a user is
// deactivated, an account closed, a scheduled transfer cancelled, never
// deleted. Ledger, notification and audit rows point at them without
// foreign keys on the money path (migrations/0009), so the runtime role may
// not DELETE them.
var KeptTables = []string{"users", "accounts", "scheduled_transfers"}

// DefaultAppRole is the runtime role of the embedded database, and the
// default of database_app_role.
const DefaultAppRole = "meridian_app"

var (
	// ErrNoRole: the runtime role named to GrantRuntime does not exist.
	ErrNoRole = errors.New("the runtime role does not exist")
	// ErrNotOwner: the connected role does not own the schema, so it cannot
	// grant privileges on it.
	ErrNotOwner = errors.New("the connected role does not own the schema")
)

// GrantRuntime gives role exactly what serve and the CLI need at run time:
// SELECT, INSERT, UPDATE and DELETE on every table of the schema except the
// AppendOnlyTables, where it gets SELECT and INSERT only, the KeptTables,
// where it gets no DELETE, and the ReadOnlyTables, which it may only read; USAGE and SELECT on
// the sequences; EXECUTE on the functions. It never gives TRUNCATE,
// REFERENCES, TRIGGER or ownership, so the role can neither change an
// append-only row nor switch a trigger off. It runs as the schema's owner,
// after migrations, under the migration lock (concurrent GRANTs on one
// object fail in PostgreSQL), in one transaction (sessions of the role never
// see a moment without their privileges).
//
// It returns ErrNoRole when role does not exist and ErrNotOwner when the
// connected role may not grant on the schema.
func GrantRuntime(ctx context.Context, db *sqlx.DB, role string) error {
	var r struct {
		Exists    bool `db:"exists"`
		Super     bool `db:"super"`
		Owns      bool `db:"owns"`
		CanGrant  bool `db:"can_grant"`
		HasSchema bool `db:"has_schema"`
	}
	err := db.GetContext(ctx, &r, `
		SELECT r.rolname IS NOT NULL AS exists,
			COALESCE(r.rolsuper OR r.rolbypassrls, false) AS super,
			COALESCE(pg_has_role(r.oid, c.relowner, 'USAGE'), false) AS owns,
			COALESCE(pg_has_role(current_user, c.relowner, 'USAGE'), false) AS can_grant,
			c.relowner IS NOT NULL AS has_schema
		FROM (SELECT 1) one
		LEFT JOIN pg_roles r ON r.rolname = $1
		LEFT JOIN pg_class c ON c.oid = to_regclass('schema_migrations')`, role)
	if err != nil {
		return fmt.Errorf("checking the runtime role %s: %w", role, err)
	}
	switch {
	case !r.Exists:
		return fmt.Errorf("%w: %s", ErrNoRole, role)
	case !r.HasSchema:
		return errors.New("the schema is not migrated yet")
	case r.Super:
		return fmt.Errorf("the runtime role %s is a superuser or bypasses row security; use a plain role", role)
	case r.Owns:
		return fmt.Errorf("the runtime role %s owns the schema (or is a member of its owner); use a role of its own", role)
	case !r.CanGrant:
		return ErrNotOwner
	}
	q := pq.QuoteIdentifier(role)
	return locked(ctx, db, func(tx *sql.Tx) error {
		var dbName string
		if err := tx.QueryRowContext(ctx, `SELECT current_database()`).Scan(&dbName); err != nil {
			return err
		}
		stmts := []string{
			`GRANT CONNECT, TEMPORARY ON DATABASE ` + pq.QuoteIdentifier(dbName) + ` TO ` + q,
			`GRANT USAGE ON SCHEMA public TO ` + q,
			`REVOKE ALL ON ALL TABLES IN SCHEMA public FROM ` + q,
			`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ` + q,
			`REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM ` + q,
			`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ` + q,
			`GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO ` + q,
		}
		revoke := func(tables []string, privileges string) error {
			for _, t := range tables {
				var exists bool
				if err := tx.QueryRowContext(ctx, `SELECT to_regclass($1) IS NOT NULL`, "public."+pq.QuoteIdentifier(t)).Scan(&exists); err != nil {
					return err
				}
				if exists {
					stmts = append(stmts, `REVOKE `+privileges+` ON public.`+pq.QuoteIdentifier(t)+` FROM `+q)
				}
			}
			return nil
		}
		if err := revoke(ReadOnlyTables, `INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER`); err != nil {
			return err
		}
		if err := revoke(AppendOnlyTables, `UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER`); err != nil {
			return err
		}
		if err := revoke(KeptTables, `DELETE, TRUNCATE, REFERENCES, TRIGGER`); err != nil {
			return err
		}
		for _, s := range stmts {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return fmt.Errorf("granting the runtime privileges to %s: %w", role, err)
			}
		}
		return nil
	})
}
