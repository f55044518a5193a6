package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"meridian/pkg/db"
	"meridian/pkg/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func tables(t *testing.T, conn interface {
	Get(dest any, query string, args ...any) error
}) int {
	t.Helper()
	var n int
	if err := conn.Get(&n, `SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public' AND table_name NOT IN ('schema_migrations', 'schema_functions')`); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestUpDownUp applies every migration, rolls all of them back, and applies them again.
func TestUpDownUp(t *testing.T) {
	ctx := context.Background()
	conn := testdb.New(t) // already migrated up
	all, err := db.Migrations()
	if err != nil || len(all) == 0 {
		t.Fatalf("migrations: %v", err)
	}
	if ok, err := db.Current(ctx, conn); err != nil || !ok {
		t.Fatalf("current: %v %v", ok, err)
	}
	full := tables(t, conn)
	if full < 10 {
		t.Fatalf("only %d tables after up", full)
	}
	down, err := db.DownDestroyingData(ctx, conn, len(all)+5)
	if err != nil || len(down) != len(all) {
		t.Fatalf("down: %v %v", down, err)
	}
	if n := tables(t, conn); n != 0 {
		t.Fatalf("%d tables left after down to zero", n)
	}
	var left int
	if err := conn.Get(&left, `SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'`); err != nil || left != 0 {
		t.Fatalf("%d functions left after down to zero (%v)", left, err)
	}
	if ok, _ := db.Current(ctx, conn); ok {
		t.Fatal("current after down")
	}
	up, err := db.Up(ctx, conn, 0)
	if err != nil || len(up) != len(all) {
		t.Fatalf("up again: %v %v", up, err)
	}
	if n := tables(t, conn); n != full {
		t.Fatalf("%d tables after up again, want %d", n, full)
	}
	again, err := db.Up(ctx, conn, 0)
	if err != nil || len(again) != 0 {
		t.Fatalf("second up applied %v %v", again, err)
	}
	fns, err := db.Functions()
	if err != nil || len(fns) == 0 {
		t.Fatalf("function files: %v", err)
	}
	st, err := db.Status(ctx, conn)
	if err != nil || len(st) != len(all)+len(fns) || !st[0].Applied || st[0].AppliedAt == nil {
		t.Fatalf("status %+v %v", st, err)
	}
	for _, s := range st[len(all):] {
		if !s.Function || !s.Applied {
			t.Fatalf("function file %+v not applied", s)
		}
	}
	// Seed data of the migrations is back: account types and roles.
	var types int
	conn.Get(&types, `SELECT count(*) FROM account_types`)
	if types < 3 {
		t.Fatal("account types not seeded")
	}
}

// TestConcurrentUp: several instances starting at once apply each step once.
func TestConcurrentUp(t *testing.T) {
	ctx := context.Background()
	conn := testdb.New(t)
	all, _ := db.Migrations()
	if _, err := db.DownDestroyingData(ctx, conn, len(all)); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for i := 0; i < 4; i++ {
		go func() { _, err := db.Up(ctx, conn, 0); errs <- err }()
	}
	for i := 0; i < 4; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if ok, _ := db.Current(ctx, conn); !ok {
		t.Fatal("not current")
	}
}

// TestDownKeepsTheAuditLog: rolling back the migration that creates the
// audit log is refused, and nothing is rolled back, unless data may be
// destroyed; newer migrations roll back as before.
func TestDownKeepsTheAuditLog(t *testing.T) {
	ctx := context.Background()
	conn := testdb.New(t)
	all, _ := db.Migrations()
	if _, err := conn.Exec(`INSERT INTO audit_log (action_type, table_name, description) VALUES ('TEST', 'users', 'kept')`); err != nil {
		t.Fatal(err)
	}
	done, err := db.Down(ctx, conn, len(all))
	if !errors.Is(err, db.ErrDestroysData) || len(done) != 0 {
		t.Fatalf("down past 0001: %v %v", done, err)
	}
	if ok, _ := db.Current(ctx, conn); !ok {
		t.Fatal("a refused roll-back rolled something back")
	}
	done, err = db.Down(ctx, conn, len(all)-1)
	if err != nil || len(done) != len(all)-1 {
		t.Fatalf("down to 0001: %v %v", done, err)
	}
	var n int
	if err := conn.Get(&n, `SELECT count(*) FROM audit_log`); err != nil || n != 1 {
		t.Fatalf("audit log after down to 0001: %d %v", n, err)
	}
	if _, err := db.Down(ctx, conn, 1); !errors.Is(err, db.ErrDestroysData) {
		t.Fatalf("down of 0001: %v", err)
	}
	if done, err := db.DownDestroyingData(ctx, conn, 1); err != nil || len(done) != 1 || done[0] != db.AuditLogMigration {
		t.Fatalf("down of 0001 destroying data: %v %v", done, err)
	}
}

// A function file is applied again when its text differs from what the
// database last applied (a new release changed the rule), and only then; a
// file is applied in the same transaction as its record.
func TestFunctionFilesApplyWhenChanged(t *testing.T) {
	ctx := context.Background()
	conn := testdb.New(t)
	fns, err := db.Functions()
	if err != nil {
		t.Fatal(err)
	}
	var post db.Function
	for _, f := range fns {
		if f.Name == "post_batch" {
			post = f
		}
	}
	if post.Body == "" {
		t.Fatal("no post_batch.sql")
	}
	// The database holds an older text of money_text, recorded under
	// another checksum.
	conn.MustExec(`CREATE OR REPLACE FUNCTION money_text(amount numeric, currency text) RETURNS text LANGUAGE sql AS $$ SELECT 'old' $$`)
	conn.MustExec(`UPDATE schema_functions SET checksum = 'old' WHERE name = 'money_text'`)
	st, err := db.Status(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	pending := 0
	for _, s := range st {
		if s.Function && !s.Applied {
			pending++
			if s.Name != "money_text" {
				t.Fatalf("%s shown pending", s.Name)
			}
		}
	}
	if pending != 1 {
		t.Fatalf("%d function files pending, want money_text", pending)
	}
	if _, err := db.Up(ctx, conn, 0); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := conn.Get(&got, `SELECT money_text(12.5, 'USD')`); err != nil || got != "$12.50" {
		t.Fatalf("money_text after up: %q %v", got, err)
	}
	// Unchanged files are not applied again: their applied_at stays.
	var before, after time.Time
	conn.Get(&before, `SELECT applied_at FROM schema_functions WHERE name = 'post_batch'`)
	if _, err := db.Up(ctx, conn, 0); err != nil {
		t.Fatal(err)
	}
	conn.Get(&after, `SELECT applied_at FROM schema_functions WHERE name = 'post_batch'`)
	if !after.Equal(before) {
		t.Fatal("an unchanged function file was applied again")
	}

	// A newer release migrated the database (a version past this binary's
	// last) and changed money_text: this binary, restarted during the
	// rolling upgrade, leaves the newer body alone.
	conn.MustExec(`CREATE OR REPLACE FUNCTION money_text(amount numeric, currency text) RETURNS text LANGUAGE sql AS $$ SELECT 'newer' $$`)
	conn.MustExec(`UPDATE schema_functions SET checksum = 'newer' WHERE name = 'money_text'`)
	conn.MustExec(`INSERT INTO schema_migrations (version, name) VALUES (99999, 'a newer release')`)
	if _, err := db.Up(ctx, conn, 0); err != nil {
		t.Fatal(err)
	}
	if err := conn.Get(&got, `SELECT money_text(12.5, 'USD')`); err != nil || got != "newer" {
		t.Fatalf("the release before wrote its money_text over the newer one: %q %v", got, err)
	}
}
