package db_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"meridian/pkg/db"
	"meridian/pkg/testdb"
)

// wantDenied fails unless err is PostgreSQL's "permission denied" (42501)
// from the privilege system, not from a trigger.
func wantDenied(t *testing.T, what string, err error) {
	t.Helper()
	var pe *pq.Error
	if !errors.As(err, &pe) || pe.Code != "42501" {
		t.Fatalf("%s as the runtime role: %v, want permission denied (42501)", what, err)
	}
	if strings.Contains(pe.Message, "append-only") {
		t.Fatalf("%s was stopped by a trigger (%s), not by the role's privileges", what, pe.Message)
	}
}

// seedLedger writes a user, an account, a ledger row and an audit row as
// the runtime role: it may insert them.
func seedLedger(t *testing.T, app *sqlx.DB) {
	t.Helper()
	for _, q := range []string{
		`INSERT INTO users (full_name, email, phone_number) VALUES ('Ann Append', 'ann@example.test', '+1 555 0000')`,
		`INSERT INTO accounts (user_id, account_number, account_type_id, currency, balance)
			SELECT id, 'AO1234567', 1, 'USD', 10 FROM users`,
		`INSERT INTO transactions (account_id, user_id, transaction_type, kind, amount, from_account_id, to_account_id)
			SELECT id, user_id, 'CREDIT', 'opening', 10, id, id FROM accounts`,
		`INSERT INTO audit_log (action_type, table_name, description) VALUES ('TEST', 'users', 'a row')`,
	} {
		if _, err := app.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// TestRuntimeRoleCannotChangeLedgerOrAudit: with the audit log's triggers
// switched off (so only privileges stand in the way), the runtime role
// still cannot UPDATE, DELETE or TRUNCATE a ledger or audit row, while the
// superuser can run the very same statements.
func TestRuntimeRoleCannotChangeLedgerOrAudit(t *testing.T) {
	t.Parallel()
	app, superURL := testdb.NewAsApp(t)
	super, err := db.Open(context.Background(), superURL)
	if err != nil {
		t.Fatal(err)
	}
	defer super.Close()
	seedLedger(t, app)
	if _, err := super.Exec(`ALTER TABLE audit_log DISABLE TRIGGER USER`); err != nil {
		t.Fatal(err)
	}
	changes := []string{
		`UPDATE transactions SET amount = 1000000`,
		`DELETE FROM transactions`,
		`TRUNCATE transactions CASCADE`,
		`UPDATE audit_log SET description = 'rewritten'`,
		`DELETE FROM audit_log`,
		`TRUNCATE audit_log`,
	}
	for _, q := range changes {
		_, err := app.Exec(q)
		wantDenied(t, q, err)
	}
	var n int
	if err := super.Get(&n, `SELECT (SELECT count(*) FROM transactions WHERE amount = 10) + (SELECT count(*) FROM audit_log WHERE description = 'a row')`); err != nil || n != 2 {
		t.Fatalf("rows changed: %d %v", n, err)
	}
	// The statements themselves are valid: the owner's side may run them.
	tx := super.MustBegin()
	defer tx.Rollback()
	for _, q := range changes[:2] {
		if _, err := tx.Exec(q); err != nil {
			t.Fatalf("%s as the superuser: %v", q, err)
		}
	}
	// Ordinary tables stay writable.
	if _, err := app.Exec(`UPDATE accounts SET balance = balance`); err != nil {
		t.Fatalf("runtime role cannot update accounts: %v", err)
	}
}

// TestRuntimeRoleCannotSwitchTriggersOff: neither ALTER TABLE ... DISABLE
// TRIGGER nor session_replication_role is open to the runtime role.
func TestRuntimeRoleCannotSwitchTriggersOff(t *testing.T) {
	t.Parallel()
	app, _ := testdb.NewAsApp(t)
	for _, q := range []string{
		`ALTER TABLE audit_log DISABLE TRIGGER USER`,
		`ALTER TABLE transactions DISABLE TRIGGER ALL`,
		`SET session_replication_role = replica`,
		`SET LOCAL session_replication_role = replica`,
		`SELECT set_config('session_replication_role', 'replica', false)`,
	} {
		_, err := app.Exec(q)
		wantDenied(t, q, err)
	}
	var super bool
	if err := app.Get(&super, `SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user`); err != nil || super {
		t.Fatalf("runtime role is privileged (%v)", err)
	}
}

// TestGrantsCoverEveryTable: the grants are generic; every table of the
// schema, including those later migrations add, gets read and write to the
// runtime role, except AppendOnlyTables, which get read and insert only,
// and ReadOnlyTables, which get read only.
func TestGrantsCoverEveryTable(t *testing.T) {
	t.Parallel()
	conn := testdb.New(t)
	var rows []struct {
		Table  string `db:"table_name"`
		Select bool   `db:"sel"`
		Insert bool   `db:"ins"`
		Update bool   `db:"upd"`
		Delete bool   `db:"del"`
		Trunc  bool   `db:"trunc"`
	}
	if err := conn.Select(&rows, `SELECT table_name,
			has_table_privilege($1, quote_ident(table_name), 'SELECT') AS sel,
			has_table_privilege($1, quote_ident(table_name), 'INSERT') AS ins,
			has_table_privilege($1, quote_ident(table_name), 'UPDATE') AS upd,
			has_table_privilege($1, quote_ident(table_name), 'DELETE') AS del,
			has_table_privilege($1, quote_ident(table_name), 'TRUNCATE') AS trunc
		FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`, testdb.AppRole); err != nil {
		t.Fatal(err)
	}
	seen, readOnly, kept := 0, 0, 0
	for _, r := range rows {
		appendOnly := slices.Contains(db.AppendOnlyTables, r.Table)
		if appendOnly {
			seen++
		}
		if slices.Contains(db.ReadOnlyTables, r.Table) {
			readOnly++
			if !r.Select || r.Insert || r.Update || r.Delete || r.Trunc {
				t.Errorf("%s: %+v, want read only", r.Table, r)
			}
			continue
		}
		if slices.Contains(db.KeptTables, r.Table) {
			kept++
			if !r.Select || !r.Insert || !r.Update || r.Delete || r.Trunc {
				t.Errorf("%s: %+v, want no delete", r.Table, r)
			}
			continue
		}
		if !r.Select || !r.Insert || r.Trunc || r.Update == appendOnly || r.Delete == appendOnly {
			t.Errorf("%s (append-only %v): %+v", r.Table, appendOnly, r)
		}
	}
	if seen != len(db.AppendOnlyTables) || readOnly != len(db.ReadOnlyTables) || kept != len(db.KeptTables) {
		t.Fatalf("found %d of %d append-only and %d of %d read-only tables", seen, len(db.AppendOnlyTables), readOnly, len(db.ReadOnlyTables))
	}
}

func TestGrantRuntimeRefusesBadRoles(t *testing.T) {
	t.Parallel()
	conn := testdb.New(t)
	ctx := context.Background()
	if err := db.GrantRuntime(ctx, conn, "no_such_role_here"); !errors.Is(err, db.ErrNoRole) {
		t.Fatalf("missing role: %v", err)
	}
	var me string
	conn.Get(&me, `SELECT current_user`)
	if err := db.GrantRuntime(ctx, conn, me); err == nil || !strings.Contains(err.Error(), "superuser") {
		t.Fatalf("superuser as runtime role: %v", err)
	}
	app, _ := testdb.NewAsApp(t)
	if err := db.GrantRuntime(ctx, app, testdb.AppRole); !errors.Is(err, db.ErrNotOwner) {
		t.Fatalf("grant by the runtime role itself: %v", err)
	}
}

// TestNoCodeSwitchesTriggersOff: no Go source or migration of the project
// sets session_replication_role (only this file names it, to look for it).
func TestNoCodeSwitchesTriggersOff(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..", "..")
	needle := "session_replication" + "_role"
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || d.Name() == "dist") {
			return filepath.SkipDir
		}
		if d.IsDir() || path == self || !(strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".sql") || strings.HasSuffix(path, ".sh")) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		if strings.Contains(strings.ToLower(string(b)), needle) {
			t.Errorf("%s mentions %s", path, needle)
		}
		return nil
	})
	if err != nil || checked < 20 {
		t.Fatalf("walked %d files: %v", checked, err)
	}
}

// Commands starting together each grant after migrating: the grants are
// serialized (concurrent GRANTs on one object fail in PostgreSQL).
func TestConcurrentGrantRuntime(t *testing.T) {
	t.Parallel()
	conn := testdb.New(t)
	errs := make(chan error, 6)
	for i := 0; i < 6; i++ {
		go func() { errs <- db.GrantRuntime(context.Background(), conn, testdb.AppRole) }()
	}
	for i := 0; i < 6; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestRuntimePrivilegeProblems: the runtime role as GrantRuntime leaves it
// has no problem; one more privilege on the ledger, or one less it needs,
// is named.
func TestRuntimePrivilegeProblems(t *testing.T) {
	ctx := context.Background()
	super := testdb.URL(t)
	admin, err := db.Open(ctx, super)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	app, err := db.Open(ctx, testdb.AppURL(super))
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	problems, err := db.RuntimePrivilegeProblems(ctx, app)
	if err != nil || len(problems) != 0 {
		t.Fatalf("as granted: %v %v", problems, err)
	}
	if _, err := admin.Exec(`GRANT UPDATE ON transactions TO ` + testdb.AppRole + `; REVOKE INSERT ON audit_log FROM ` + testdb.AppRole); err != nil {
		t.Fatal(err)
	}
	problems, err = db.RuntimePrivilegeProblems(ctx, app)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{testdb.AppRole + " may UPDATE transactions", testdb.AppRole + " may not INSERT audit_log: run meridian migrate up as the owner (it grants the runtime privileges)"}
	if !slices.Equal(problems, want) {
		t.Fatalf("problems %q, want %q", problems, want)
	}
	if problems, err := db.RuntimePrivilegeProblems(ctx, admin); err != nil || len(problems) == 0 || !strings.Contains(problems[0], "superuser") {
		t.Fatalf("as the superuser: %v %v", problems, err)
	}
}
