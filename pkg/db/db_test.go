package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lib/pq"

	"meridian/pkg/db"
	"meridian/pkg/testdb"
)

func pgCode(err error) string {
	var pe *pq.Error
	if errors.As(err, &pe) {
		return string(pe.Code)
	}
	return ""
}

// TestTimeoutsReachPostgreSQL: with db.Timeouts every connection of the pool
// carries statement_timeout and lock_timeout, so PostgreSQL itself ends a
// statement or a lock wait that outlives a request.
func TestTimeoutsReachPostgreSQL(t *testing.T) {
	ctx := context.Background()
	url := testdb.URL(t)
	conn, err := db.Open(ctx, url, db.Timeouts(300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for p, want := range map[string]string{"statement_timeout": "300ms", "lock_timeout": "270ms"} {
		var v string
		if err := conn.Get(&v, `SHOW `+p); err != nil || v != want {
			t.Fatalf("%s = %q (%v), want %s", p, v, err, want)
		}
	}
	if _, err := conn.Exec(`SELECT pg_sleep(2)`); pgCode(err) != "57014" {
		t.Fatalf("a 2 s statement: %v, want query_canceled (57014)", err)
	}

	// A lock held elsewhere: the wait ends at lock_timeout.
	other, err := db.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := other.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`LOCK TABLE account_types IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = conn.Exec(`SELECT count(*) FROM account_types`)
	if pgCode(err) != "55P03" || time.Since(start) > 2*time.Second {
		t.Fatalf("lock wait: %v after %s, want lock_not_available (55P03)", err, time.Since(start))
	}

	// Without the option nothing is capped.
	var v string
	if err := other.Get(&v, `SHOW statement_timeout`); err != nil || v != "0" {
		t.Fatalf("plain pool: statement_timeout = %q (%v)", v, err)
	}
}

// TestMigrationsIgnoreRequestTimeouts: migrations run on serve's pool but
// may take longer than a request; they lift the timeouts for themselves
// and give them back.
func TestMigrationsIgnoreRequestTimeouts(t *testing.T) {
	ctx := context.Background()
	// 20 ms: far less than the migrations take (about a second in all), and
	// enough for the one statement that lifts the timeouts even on a busy
	// machine (1 ms failed that statement itself under load).
	conn, err := db.Open(ctx, testdb.URL(t), db.Timeouts(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetMaxOpenConns(2) // the migrating connection goes back to the pool; a no-transaction file takes a second
	all, _ := db.Migrations()
	if _, err := db.DownDestroyingData(ctx, conn, len(all)); err != nil {
		t.Fatalf("down with a 20 ms statement_timeout: %v", err)
	}
	if _, err := db.Up(ctx, conn, 0); err != nil {
		t.Fatalf("up with a 20 ms statement_timeout: %v", err)
	}
	var v string
	if err := conn.Get(&v, `SHOW statement_timeout`); err != nil || v != "20ms" {
		t.Fatalf("after migrating: statement_timeout = %q (%v), want 20ms back", v, err)
	}
}
