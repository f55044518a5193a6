package db_test

import (
	"context"
	"errors"
	"testing"

	"meridian/pkg/db"
	"meridian/pkg/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func tables(t *testing.T, conn interface {
	Get(dest any, query string, args ...any) error
}) int {
	t.Helper()
	var n int
	if err := conn.Get(&n, `SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'schema_migrations'`); err != nil {
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
	st, err := db.Status(ctx, conn)
	if err != nil || len(st) != len(all) || !st[0].Applied || st[0].AppliedAt == nil {
		t.Fatalf("status %+v %v", st, err)
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
