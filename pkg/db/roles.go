package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Grant is what the runtime role may do with one table besides reading it
// (every table is readable): insert rows (every column, or only the ones
// named: the others take their defaults), update the named columns, delete
// rows. Nothing else: never TRUNCATE, REFERENCES, TRIGGER or ownership, so
// the role can neither change an append-only row nor switch a trigger off.
type Grant struct {
	Insert []string // nil: none; AllColumns: every column
	Update []string // nil: none; AllColumns: every column
	Delete bool
}

// AllColumns grants a privilege on every column of a table.
var AllColumns = []string{"*"}

// RuntimeGrants is the runtime role's privileges, table by table (contract
// §5 "Append-only for real", issue 20): it may change money and privileges
// only through the database functions that check them and write their
// audit rows (SECURITY DEFINER, run as the owner, search_path ending with
// pg_temp). So it reads everything, but:
//   - the ledger (transactions, ledger_totals), the keys and daily counts
//     (idempotency_keys, daily_outgoing; it may purge old ones) and an
//     account's balance are written by post_batch only: every change of a
//     balance is a ledger row and an audit row;
//   - a password hash is changed by change_password only (with its audit
//     row); a new user's credentials may be inserted;
//   - a role is given by set_user_role only (it checks that an active
//     administrator, or a session of the schema's owner, asks, and writes
//     the audit row): a new user is a User, role_id is never updated;
//   - the audit chain, the notification feed and the sealer's state are
//     written by event_seal only; audit rows may only be inserted;
//   - users, accounts and scheduled transfers are never deleted (ledger,
//     notification and audit rows point at them without foreign keys on the
//     money path, migrations/0009), and only the named columns change;
//   - the bookkeeping of migrations is the owner's.
//
// A table missing here is readable only (TestRuntimeGrantsAreExact fails
// until it is listed: a new table gets a deliberate entry).
var RuntimeGrants = map[string]Grant{
	// Read only.
	"account_types":     {},
	"audit_chain":       {},
	"event_sealer":      {},
	"fx_quotes":         {}, // fx_quote() makes them (the converted amount is the bank's)
	"fx_rates":          {}, // set_fx_rate() sets them, audited
	"interest_accruals": {}, // interest_accrue() writes them, exactly once
	"interest_cursors":  {},
	"interest_payments": {},
	"ledger_totals":     {},
	"notification_feed": {},
	"roles":             {},
	"schema_functions":  {},
	"schema_migrations": {},
	"transactions":      {},
	// Read and the rest.
	"account_numbers":         {Insert: AllColumns},
	"accounts":                {Insert: []string{"user_id", "account_number", "account_type_id", "currency"}, Update: []string{"account_number", "account_type_id", "closed_at", "created_at"}},
	"approvals":               {Insert: AllColumns, Update: []string{"status", "decided_by", "decided_at", "reason", "result"}},
	"audit_log":               {Insert: AllColumns},
	"auth_tokens":             {Insert: AllColumns, Update: []string{"revoked_at", "last_seen_at"}},
	"credentials":             {Insert: AllColumns},
	"daily_outgoing":          {Delete: true},
	"devices":                 {Insert: AllColumns, Update: []string{"user_id", "token_jti", "platform", "created_at"}, Delete: true},
	"live_presence":           {Insert: AllColumns, Update: []string{"seen_at"}, Delete: true},
	"idempotency_keys":        {Delete: true},
	"login_failures":          {Insert: AllColumns},
	"money_requests":          {Insert: AllColumns, Update: []string{"status", "resolved_at"}},
	"notifications":           {Insert: AllColumns, Update: []string{"is_new"}},
	"oauth_clients":           {Insert: AllColumns},
	"oauth_codes":             {Insert: AllColumns, Update: []string{"used_at"}, Delete: true},
	"oauth_grants":            {Insert: AllColumns, Update: []string{"revoked_at"}},
	"oauth_refresh_tokens":    {Insert: AllColumns, Update: []string{"used_at"}},
	"oauth_signing_keys":      {Insert: AllColumns},
	"payees":                  {Insert: AllColumns, Delete: true},
	"push_cursor":             {Update: []string{"last_seq"}},
	"scheduled_transfer_runs": {Insert: AllColumns},
	"scheduled_transfers":     {Insert: AllColumns, Update: []string{"status", "next_run_at"}},
	"signin_attempts":         {Insert: AllColumns, Update: AllColumns, Delete: true},
	"two_factor":              {Insert: AllColumns, Update: AllColumns, Delete: true},
	// Webhooks: the events and their feed are written by the triggers and
	// webhook_seal only; an endpoint's delivery state by the dispatcher.
	"webhook_deliveries":   {Insert: AllColumns},
	"webhook_events":       {},
	"webhook_feed":         {},
	"webhook_redeliveries": {Insert: AllColumns, Delete: true},
	"webhook_sealer":       {},
	"webhooks": {Insert: []string{"id", "user_id", "url", "events", "sealed_secret", "cursor"},
		Update: []string{"deleted_at", "status", "cursor", "attempt", "next_attempt_at", "failing_since", "lease_id", "lease_until"}},
	"two_factor_backup_codes": {Insert: AllColumns, Update: AllColumns, Delete: true},
	"two_factor_challenges":   {Insert: AllColumns, Update: AllColumns, Delete: true},
	"users":                   {Insert: []string{"full_name", "email", "phone_number"}, Update: []string{"is_active", "daily_transfer_limit", "created_at", "home_currency"}},
}

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
// SELECT on every table and what RuntimeGrants lists; USAGE and SELECT on
// the sequences; EXECUTE on the functions. It runs as the schema's owner,
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
			`GRANT SELECT ON ALL TABLES IN SCHEMA public TO ` + q,
			`REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM ` + q,
			`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ` + q,
			`GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO ` + q,
		}
		// Column privileges outlive a table-wide REVOKE: take them back too.
		var cols []string
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(array_agg(DISTINCT format('REVOKE ALL (%I) ON public.%I FROM %I', column_name, table_name, grantee)), '{}')
			FROM information_schema.column_privileges WHERE table_schema = 'public' AND grantee = $1`, role).Scan(pq.Array(&cols)); err != nil {
			return err
		}
		stmts = append(stmts, cols...)
		tables := make([]string, 0, len(RuntimeGrants))
		for t := range RuntimeGrants {
			tables = append(tables, t)
		}
		sort.Strings(tables)
		for _, t := range tables {
			var exists bool
			if err := tx.QueryRowContext(ctx, `SELECT to_regclass($1) IS NOT NULL`, "public."+pq.QuoteIdentifier(t)).Scan(&exists); err != nil {
				return err
			}
			if !exists { // a table of a later migration than this database's
				continue
			}
			g, on := RuntimeGrants[t], ` ON public.`+pq.QuoteIdentifier(t)+` TO `+q
			if g.Insert != nil {
				stmts = append(stmts, `GRANT INSERT`+columnList(g.Insert)+on)
			}
			if g.Update != nil {
				stmts = append(stmts, `GRANT UPDATE`+columnList(g.Update)+on)
			}
			if g.Delete {
				stmts = append(stmts, `GRANT DELETE`+on)
			}
		}
		for _, s := range stmts {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return fmt.Errorf("granting the runtime privileges to %s: %w", role, err)
			}
		}
		return nil
	})
}

// columnList is " (a, b)" for named columns, "" for AllColumns.
func columnList(cols []string) string {
	if len(cols) == 1 && cols[0] == "*" {
		return ""
	}
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = pq.QuoteIdentifier(c)
	}
	return " (" + strings.Join(quoted, ", ") + ")"
}
