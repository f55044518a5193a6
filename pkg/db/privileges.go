package db

import (
	"context"
	"fmt"
	"slices"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// RuntimePrivilegeProblems checks, from a connection of the runtime role
// (database_url's), that the role has exactly what GrantRuntime gives
// (RuntimeGrants, table by table and column by column): no superuser or
// row-security bypass, no part in owning the schema, no INSERT, UPDATE or
// DELETE beyond its grants, no TRUNCATE, TRIGGER or REFERENCES anywhere;
// and that it may read every table and write what the bank needs. Each
// problem is one sentence; none: all is as it should be.
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
	// Per table and privilege: whether the role holds it on the table, and
	// on which columns.
	var rows []struct {
		Table     string         `db:"tablename"`
		Privilege string         `db:"privilege"`
		Whole     bool           `db:"whole"`
		Columns   pq.StringArray `db:"columns"`
	}
	err = sqlx.SelectContext(ctx, q, &rows, `
		SELECT t.tablename, p.privilege, has_table_privilege(c.oid, p.privilege) AS whole,
			coalesce(array_agg(a.attname::text ORDER BY a.attnum) FILTER (WHERE p.privilege IN ('INSERT', 'UPDATE', 'REFERENCES', 'SELECT')
				AND has_column_privilege(c.oid, a.attnum, p.privilege)), '{}') AS columns
		FROM pg_tables t
		JOIN pg_class c ON c.oid = ('public.' || quote_ident(t.tablename))::regclass
		CROSS JOIN unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'TRIGGER', 'REFERENCES']) AS p(privilege)
		LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
		WHERE t.schemaname = 'public'
		GROUP BY t.tablename, c.oid, p.privilege
		ORDER BY t.tablename, array_position(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'TRIGGER', 'REFERENCES'], p.privilege)`)
	if err != nil {
		return nil, fmt.Errorf("checking the runtime role's privileges: %w", err)
	}
	fix := ": run meridian migrate up as the owner (it grants the runtime privileges)"
	for _, r := range rows {
		g := RuntimeGrants[r.Table]
		var want []string // columns; AllColumns: the whole table
		switch r.Privilege {
		case "SELECT":
			want = AllColumns
		case "INSERT":
			want = g.Insert
		case "UPDATE":
			want = g.Update
		case "DELETE":
			if g.Delete {
				want = AllColumns
			}
		}
		switch {
		case len(want) == 1 && want[0] == "*":
			if !r.Whole {
				out = append(out, fmt.Sprintf("%s may not %s %s%s", role.Name, r.Privilege, r.Table, fix))
			}
		case r.Whole:
			out = append(out, fmt.Sprintf("%s may %s %s", role.Name, r.Privilege, r.Table))
		default:
			for _, c := range r.Columns {
				if !slices.Contains(want, c) {
					out = append(out, fmt.Sprintf("%s may %s %s.%s", role.Name, r.Privilege, r.Table, c))
				}
			}
			for _, c := range want {
				if !slices.Contains(r.Columns, c) {
					out = append(out, fmt.Sprintf("%s may not %s %s.%s%s", role.Name, r.Privilege, r.Table, c, fix))
				}
			}
		}
	}
	return out, nil
}
