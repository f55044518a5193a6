package db

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// RuntimePrivilegeProblems checks, from a connection of the runtime role
// (database_url's), that the role has what GrantRuntime gives and no more
// of what it withholds: no superuser or row-security bypass, no part in
// owning the schema, and on AppendOnlyTables no UPDATE, DELETE or TRUNCATE,
// on ReadOnlyTables no writing at all, on KeptTables no DELETE or TRUNCATE,
// on no table TRIGGER or REFERENCES; while it may read and write what the
// bank needs. Each problem is one sentence; none: all is as it should be.
func RuntimePrivilegeProblems(ctx context.Context, q sqlx.QueryerContext) ([]string, error) {
	var role struct {
		Name   string `db:"name"`
		Super  bool   `db:"super"`
		Bypass bool   `db:"bypass"`
		Owns   bool   `db:"owns"`
	}
	err := sqlx.GetContext(ctx, q, &role, `
		SELECT current_user AS name, r.rolsuper AS super, r.rolbypassrls AS bypass,
			COALESCE(pg_has_role(current_user, c.relowner, 'USAGE'), false) AS owns
		FROM pg_roles r LEFT JOIN pg_class c ON c.oid = to_regclass('schema_migrations')
		WHERE r.rolname = current_user`)
	if err != nil {
		return nil, fmt.Errorf("checking the runtime role: %w", err)
	}
	var out []string
	if role.Super || role.Bypass {
		out = append(out, fmt.Sprintf("%s is a superuser or bypasses row security: nothing keeps it from changing the ledger", role.Name))
	}
	if role.Owns {
		out = append(out, fmt.Sprintf("%s owns the schema (or is a member of its owner): it may change or drop the ledger and the audit log", role.Name))
	}
	forbid := func(tables []string, privileges ...string) error {
		for _, t := range tables {
			for _, p := range privileges {
				var has *bool
				err := sqlx.GetContext(ctx, q, &has, `SELECT CASE WHEN to_regclass($1) IS NULL THEN NULL ELSE has_table_privilege($1, $2) END`,
					"public."+pq.QuoteIdentifier(t), p)
				if err != nil {
					return err
				}
				if has != nil && *has {
					out = append(out, fmt.Sprintf("%s may %s %s", role.Name, p, t))
				}
			}
		}
		return nil
	}
	var all []string
	if err := sqlx.SelectContext(ctx, q, &all, `SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`); err != nil {
		return nil, err
	}
	for _, check := range []struct {
		tables     []string
		privileges []string
	}{
		{AppendOnlyTables, []string{"UPDATE", "DELETE", "TRUNCATE"}},
		{ReadOnlyTables, []string{"INSERT", "UPDATE", "DELETE", "TRUNCATE"}},
		{KeptTables, []string{"DELETE", "TRUNCATE"}},
		{all, []string{"TRIGGER", "REFERENCES"}},
	} {
		if err := forbid(check.tables, check.privileges...); err != nil {
			return nil, fmt.Errorf("checking the runtime role's privileges: %w", err)
		}
	}
	// What it must be able to do.
	for _, need := range []struct{ table, privilege string }{{"transactions", "INSERT"}, {"transactions", "SELECT"}, {"accounts", "UPDATE"}, {"audit_log", "INSERT"}} {
		var has *bool
		if err := sqlx.GetContext(ctx, q, &has, `SELECT CASE WHEN to_regclass($1) IS NULL THEN NULL ELSE has_table_privilege($1, $2) END`,
			"public."+need.table, need.privilege); err != nil {
			return nil, err
		}
		if has != nil && !*has {
			out = append(out, fmt.Sprintf("%s may not %s %s: run meridian migrate up as the owner (it grants the runtime privileges)", role.Name, need.privilege, need.table))
		}
	}
	return out, nil
}
