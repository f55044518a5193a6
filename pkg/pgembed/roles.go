package pgembed

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"

	"github.com/lib/pq"
)

// plainRole is what OwnerRole and AppRole are kept as: able to sign in,
// nothing more. Run on every Start, so a role someone widened by hand is
// narrowed again.
const plainRole = "LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"

// ensureRoles creates Options.OwnerRole and Options.AppRole, makes the owner
// own the database and every object of its public schema, and makes sure
// the runtime role owns nothing there. The caller holds pgembed.lock.
func (c *Cluster) ensureRoles(ctx context.Context) error {
	maint, err := sql.Open("postgres", c.URLFor(maintenanceDB))
	if err != nil {
		return fmt.Errorf("pgembed: %w", err)
	}
	defer maint.Close()
	for _, r := range []string{c.ownerRole, c.appRole} {
		if r == "" {
			continue
		}
		if r == superuser {
			return fmt.Errorf("pgembed: the role %q is the cluster's superuser; choose another name", r)
		}
		var exists bool
		if err := maint.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, r).Scan(&exists); err != nil {
			return fmt.Errorf("pgembed: %w", err)
		}
		verb := "ALTER"
		if !exists {
			verb = "CREATE"
			c.logger.Info("Creating role", slog.String("role", r))
		}
		if _, err := maint.ExecContext(ctx, verb+" ROLE "+pq.QuoteIdentifier(r)+" "+plainRole); err != nil {
			return fmt.Errorf("pgembed: cannot %s role %s: %w", verb, r, err)
		}
	}
	if c.ownerRole == "" {
		return nil
	}
	if _, err := maint.ExecContext(ctx, `ALTER DATABASE `+pq.QuoteIdentifier(c.database)+` OWNER TO `+pq.QuoteIdentifier(c.ownerRole)); err != nil {
		return fmt.Errorf("pgembed: cannot give database %s to %s: %w", c.database, c.ownerRole, err)
	}
	return c.adoptObjects(ctx)
}

// adoptObjectsSQL lists an ALTER ... OWNER TO $1 for every object of the
// public schema the owner does not own yet (tables, views, sequences not
// owned by a column, functions, types), leaving out members of extensions.
// Clusters made before the owner role existed have them owned by the
// superuser; REASSIGN OWNED cannot move the bootstrap superuser's objects.
const adoptObjectsSQL = `
	WITH o AS (SELECT oid FROM pg_roles WHERE rolname = $1),
	ns AS (SELECT oid FROM pg_namespace WHERE nspname = 'public'),
	ext AS (SELECT objid FROM pg_depend WHERE deptype = 'e')
	SELECT stmt FROM (
		SELECT 1 AS ord, format('ALTER %s %s OWNER TO %I',
			CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE'
				WHEN 'S' THEN 'SEQUENCE' WHEN 'c' THEN 'TYPE' ELSE 'TABLE' END,
			c.oid::regclass, $1) AS stmt
		FROM pg_class c
		WHERE c.relnamespace = (SELECT oid FROM ns) AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S', 'c')
			AND c.relowner <> (SELECT oid FROM o) AND c.oid NOT IN (SELECT objid FROM ext)
			AND NOT (c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d
				WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i')))
		UNION ALL
		SELECT 2, format('ALTER %s %s OWNER TO %I',
			CASE p.prokind WHEN 'p' THEN 'PROCEDURE' WHEN 'a' THEN 'AGGREGATE' ELSE 'FUNCTION' END,
			p.oid::regprocedure, $1)
		FROM pg_proc p
		WHERE p.pronamespace = (SELECT oid FROM ns) AND p.proowner <> (SELECT oid FROM o) AND p.oid NOT IN (SELECT objid FROM ext)
		UNION ALL
		SELECT 3, format('ALTER %s %s OWNER TO %I', CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END, t.oid::regtype, $1)
		FROM pg_type t
		WHERE t.typnamespace = (SELECT oid FROM ns) AND t.typtype IN ('e', 'd', 'r') AND t.typowner <> (SELECT oid FROM o)
			AND t.oid NOT IN (SELECT objid FROM ext)
	) x ORDER BY ord, stmt`

// adoptObjects gives the owner role the database's objects, in one
// transaction, once (later Starts find nothing to do).
func (c *Cluster) adoptObjects(ctx context.Context) error {
	db, err := sql.Open("postgres", c.URLFor(c.database))
	if err != nil {
		return fmt.Errorf("pgembed: %w", err)
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("pgembed: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, adoptObjectsSQL, c.ownerRole)
	if err != nil {
		return fmt.Errorf("pgembed: listing objects to give to %s: %w", c.ownerRole, err)
	}
	var stmts []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return fmt.Errorf("pgembed: %w", err)
		}
		stmts = append(stmts, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("pgembed: %w", err)
	}
	// A schema public made before PostgreSQL 15 belongs to the superuser.
	var schemaOwner string
	if err := tx.QueryRowContext(ctx, `SELECT nspowner::regrole::text FROM pg_namespace WHERE nspname = 'public'`).Scan(&schemaOwner); err == nil &&
		schemaOwner != "pg_database_owner" && schemaOwner != c.ownerRole {
		stmts = append([]string{`ALTER SCHEMA public OWNER TO ` + pq.QuoteIdentifier(c.ownerRole)}, stmts...)
	}
	if len(stmts) == 0 {
		return nil
	}
	c.logger.Info("Giving the database's objects to the owner role", slog.String("role", c.ownerRole), slog.Int("objects", len(stmts)))
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("pgembed: %s: %w", s, err)
		}
	}
	return tx.Commit()
}
