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
// the runtime role, the ledger row through post_batch (the runtime role may
// not write the ledger itself).
func seedLedger(t *testing.T, app *sqlx.DB) {
	t.Helper()
	for _, q := range []string{
		`INSERT INTO users (full_name, email, phone_number) VALUES ('Ann Append', 'ann@example.test', '+1 555 0000')`,
		`INSERT INTO accounts (user_id, account_number, account_type_id, currency) SELECT id, 'AO1234567', 1, 'USD' FROM users`,
		`SELECT * FROM post_batch(ARRAY['opening'], (SELECT array_agg(id) FROM users), ARRAY[NULL], ARRAY['AO1234567'], ARRAY[NULL::bigint],
			ARRAY[10::numeric], ARRAY['Opening balance'], ARRAY['seed-1'], ARRAY['h'], ARRAY[NULL::timestamptz], '24h', 10000, NULL, false)`,
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
	// The opening balance's two legs (the account's and the vault's) and the audit row.
	if err := super.Get(&n, `SELECT (SELECT count(*) FROM transactions WHERE amount = 10) + (SELECT count(*) FROM audit_log WHERE description = 'a row')`); err != nil || n != 3 {
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
	// Ordinary columns stay writable.
	if _, err := app.Exec(`UPDATE accounts SET closed_at = closed_at`); err != nil {
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

// TestRuntimeGrantsAreExact tries, as the runtime role, every verb on every
// table of the schema, and INSERT and UPDATE on every column, each in a
// transaction rolled back, and wants PostgreSQL's permission denied exactly
// where db.RuntimeGrants gives nothing: no more, no less. A table a
// migration adds fails here until RuntimeGrants lists it. (The runtime
// role used to be able to UPDATE accounts.balance with no ledger row and
// insert links of the audit chain, which stopped the sealer: issue 20.)
func TestRuntimeGrantsAreExact(t *testing.T) {
	t.Parallel()
	app, superURL := testdb.NewAsApp(t)
	super, err := db.Open(context.Background(), superURL)
	if err != nil {
		t.Fatal(err)
	}
	defer super.Close()
	var tables []string
	if err := super.Select(&tables, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`); err != nil {
		t.Fatal(err)
	}
	// denied runs q as the runtime role and rolls it back; it reports
	// whether the privilege system refused it. Any other outcome (done, or
	// refused by a constraint or a trigger) means the privilege was there.
	denied := func(q string) bool {
		tx, err := app.Beginx()
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		_, err = tx.Exec(q)
		var pe *pq.Error
		return errors.As(err, &pe) && pe.Code == "42501" && !strings.Contains(pe.Message, "append-only")
	}
	allowed := func(cols []string, c string) bool {
		return len(cols) == 1 && cols[0] == "*" || slices.Contains(cols, c)
	}
	for _, table := range tables {
		g, listed := db.RuntimeGrants[table]
		if !listed {
			t.Errorf("table %s is not in db.RuntimeGrants: decide what the runtime role may do with it", table)
			continue
		}
		tq := pq.QuoteIdentifier(table)
		if denied(`SELECT * FROM ` + tq + ` LIMIT 0`) {
			t.Errorf("%s: the runtime role cannot read it", table)
		}
		var cols []string
		if err := super.Select(&cols, `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1`, table); err != nil {
			t.Fatal(err)
		}
		for _, c := range cols {
			cq := pq.QuoteIdentifier(c)
			if got, want := !denied(`INSERT INTO `+tq+` (`+cq+`) VALUES (DEFAULT)`), allowed(g.Insert, c); got != want {
				t.Errorf("INSERT %s.%s: allowed %v, want %v", table, c, got, want)
			}
			if got, want := !denied(`UPDATE `+tq+` SET `+cq+` = DEFAULT WHERE false`), allowed(g.Update, c); got != want {
				t.Errorf("UPDATE %s.%s: allowed %v, want %v", table, c, got, want)
			}
		}
		if got := !denied(`DELETE FROM ` + tq + ` WHERE false`); got != g.Delete {
			t.Errorf("DELETE %s: allowed %v, want %v", table, got, g.Delete)
		}
		if !denied(`TRUNCATE ` + tq + ` CASCADE`) {
			t.Errorf("TRUNCATE %s: allowed", table)
		}
		var refs, trig bool
		super.QueryRow(`SELECT has_table_privilege($1, $2, 'REFERENCES'), has_table_privilege($1, $2, 'TRIGGER')`, testdb.AppRole, "public."+tq).Scan(&refs, &trig)
		if refs || trig {
			t.Errorf("%s: REFERENCES %v, TRIGGER %v", table, refs, trig)
		}
	}
	for table := range db.RuntimeGrants {
		if !slices.Contains(tables, table) {
			t.Errorf("db.RuntimeGrants lists %s, which no migration creates", table)
		}
	}
}

// The changes issue 20 made as the runtime role, each now refused by the
// privilege system: money and credentials change only through the database
// functions that check them, the chain and the feed only by the sealer.
func TestRuntimeRoleCannotGoAroundTheChecks(t *testing.T) {
	t.Parallel()
	app, superURL := testdb.NewAsApp(t)
	seedLedger(t, app)
	// The bank has an administrator (made as the owner): from then on only
	// an administrator or the owner gives a role.
	super, err := db.Open(context.Background(), superURL)
	if err != nil {
		t.Fatal(err)
	}
	defer super.Close()
	if _, err := super.Exec(`INSERT INTO users (full_name, email, phone_number, role_id) VALUES ('Ada Admin', 'ada@example.test', '+1 555 0002', 2)`); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE accounts SET balance = balance + 1000000`,
		`INSERT INTO accounts (user_id, account_number, account_type_id, currency, balance) SELECT id, 'RICH000001', 1, 'USD', 1000000 FROM users`,
		`UPDATE credentials SET password_hash = '$2a$10$forged'`,
		`INSERT INTO transactions (account_id, user_id, transaction_type, kind, amount, from_account_id, to_account_id)
			SELECT id, user_id, 'CREDIT', 'adjustment', 1000000, id, id FROM accounts`,
		`INSERT INTO audit_chain (seq, audit_id, hash) SELECT 1000, id, sha256('x') FROM audit_log`,
		`INSERT INTO notification_feed (seq, notification_id) VALUES (1000, 1)`,
		`UPDATE event_sealer SET audit_seq = 0`,
		`INSERT INTO idempotency_keys (user_id, key, request_hash, response_status, response_body) VALUES (1, 'k', 'h', 201, '{}')`,
		`UPDATE daily_outgoing SET total = 0`,
		`UPDATE users SET role_id = 2`,
		`INSERT INTO users (full_name, email, phone_number, role_id) VALUES ('Eve Admin', 'eve@example.test', '+1 555 0001', 2)`,
		// The function checks who asks: the runtime role is no owner, and
		// no active administrator stands behind a NULL actor, nor behind a
		// customer's id.
		`SELECT set_user_role(NULL, (SELECT min(id) FROM users), 'Admin')`,
		`SELECT set_user_role((SELECT min(id) FROM users), (SELECT min(id) FROM users), 'Admin')`,
	} {
		_, err := app.Exec(q)
		wantDenied(t, q, err)
	}
}

// Every function that runs as its owner (SECURITY DEFINER) fixes its
// search_path, with pg_temp last: a caller's temporary table or function
// can never stand in for one of the schema's.
func TestSecurityDefinerFunctionsPinTheirSearchPath(t *testing.T) {
	t.Parallel()
	conn := testdb.New(t)
	var rows []struct {
		Name   string         `db:"proname"`
		Config pq.StringArray `db:"proconfig"`
	}
	if err := conn.Select(&rows, `SELECT p.proname, coalesce(p.proconfig, '{}') AS proconfig FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = 'public' AND p.prosecdef ORDER BY p.proname`); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("no SECURITY DEFINER function found")
	}
	for _, r := range rows {
		if !slices.Contains(r.Config, "search_path=pg_catalog, public, pg_temp") {
			t.Errorf("%s: SECURITY DEFINER with %v; want search_path=pg_catalog, public, pg_temp", r.Name, r.Config)
		}
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
	want := []string{testdb.AppRole + " may not INSERT audit_log: run meridian migrate up as the owner (it grants the runtime privileges)", testdb.AppRole + " may UPDATE transactions"}
	if !slices.Equal(problems, want) {
		t.Fatalf("problems %q, want %q", problems, want)
	}
	if problems, err := db.RuntimePrivilegeProblems(ctx, admin); err != nil || len(problems) == 0 || !strings.Contains(problems[0], "superuser") {
		t.Fatalf("as the superuser: %v %v", problems, err)
	}
}
