package db_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/db"
	"meridian/pkg/testdb"
)

func TestParseLSN(t *testing.T) {
	for s, want := range map[string]db.LSN{"0/0": 0, "16/B374D848": 0x16_B374D848, "FFFFFFFF/FFFFFFFF": math.MaxUint64, "0/1": 1} {
		got, err := db.ParseLSN(s)
		if err != nil || got != want {
			t.Errorf("ParseLSN(%q) = %v, %v; want %v", s, got, err, want)
		}
		if err == nil && got.String() != s {
			t.Errorf("%q reads back as %q", s, got.String())
		}
	}
	for _, bad := range []string{"", "16", "/1", "1/", "x/1", "1/g", "-1/0", "123456789/0", "1/2/3", " 1/2", "1/2\n"} {
		if _, err := db.ParseLSN(bad); err == nil {
			t.Errorf("ParseLSN(%q) accepted", bad)
		}
	}
}

// TestRouterWithoutReplicas: with no read URL every read is the primary's.
func TestRouterWithoutReplicas(t *testing.T) {
	primary := testdb.New(t)
	r := db.NewRouter(primary, nil, time.Second)
	if r.HasReplicas() || r.Reader(db.WithPosition(context.Background(), math.MaxUint64)) != primary {
		t.Fatal("a router without replicas must read from the primary")
	}
	if r.Fallbacks() != 0 {
		t.Fatal("reads without replicas are not fallbacks")
	}
	if err := r.Measure(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestRouterSameDatabase: a read URL that names the primary itself (not in
// recovery) is as far as the primary: a read with the position of the last
// commit goes to it without waiting; a position beyond anything written
// waits replica_wait and falls back to the primary, counted; a replica that
// does not answer is skipped.
func TestRouterSameDatabase(t *testing.T) {
	ctx := context.Background()
	url := testdb.URL(t)
	primary, err := db.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer primary.Close()
	readers, err := db.OpenReplicas([]string{url})
	if err != nil {
		t.Fatal(err)
	}
	replica := readers[0]
	defer replica.Close()
	r := db.NewRouter(primary, []*sqlx.DB{replica}, 150*time.Millisecond)
	if !r.HasReplicas() || r.Replicas()[0].Name != "replica1" {
		t.Fatalf("replicas: %+v", r.Replicas())
	}
	if r.Reader(ctx) != replica {
		t.Fatal("a read without a position goes to the replica")
	}
	if _, err := primary.Exec(`CREATE TABLE written (x int); INSERT INTO written VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	pos, err := r.CommitPosition(ctx)
	if err != nil || pos == 0 {
		t.Fatalf("commit position %v, %v", pos, err)
	}
	if got := r.Reader(db.WithPosition(ctx, pos)); got != replica {
		t.Fatal("a read at the last commit's position went to the primary")
	}
	if r.Fallbacks() != 0 {
		t.Fatalf("fallbacks = %d", r.Fallbacks())
	}
	began := time.Now()
	if got := r.Reader(db.WithPosition(ctx, pos+1<<40)); got != primary {
		t.Fatal("a read at a position the replica has not reached went to the replica")
	}
	if took := time.Since(began); took < 150*time.Millisecond || took > 2*time.Second {
		t.Fatalf("fell back after %s; replica_wait is 150ms", took)
	}
	if r.Fallbacks() != 1 {
		t.Fatalf("fallbacks = %d, want 1", r.Fallbacks())
	}
	// A larger position in the context wins; a smaller one changes nothing.
	c := db.WithPosition(db.WithPosition(ctx, 10), 5)
	if db.PositionFrom(c) != 10 {
		t.Fatalf("position %v, want 10", db.PositionFrom(c))
	}

	// Remembered positions are forgotten once every replica has them.
	r.Remember(7, pos)
	r.Remember(7, pos-1)
	r.Remember(8, pos+1<<40)
	if r.Remembered(7) != pos || r.Remembered(9) != 0 {
		t.Fatalf("remembered %v, %v", r.Remembered(7), r.Remembered(9))
	}
	if err := r.Measure(ctx); err != nil {
		t.Fatal(err)
	}
	if rep := r.Replicas()[0]; !rep.Healthy() || rep.LagBytes() != 0 || rep.LagSeconds() != 0 {
		t.Fatalf("replica on the primary: healthy %v, lag %d bytes %g s", rep.Healthy(), rep.LagBytes(), rep.LagSeconds())
	}
	if r.Remembered(7) != 0 || r.Remembered(8) == 0 {
		t.Fatalf("after measuring: remembered %v (replayed, forget it), %v (not yet, keep it)", r.Remembered(7), r.Remembered(8))
	}

	// A replica that does not answer is marked down and skipped.
	down, err := db.OpenReplicas([]string{"host=/nonexistent port=1 user=nobody dbname=none sslmode=disable"})
	if err != nil {
		t.Fatal(err)
	}
	defer down[0].Close()
	r2 := db.NewRouter(primary, down, 50*time.Millisecond)
	if got := r2.Reader(db.WithPosition(ctx, pos)); got != primary {
		t.Fatal("a read waiting on a replica that does not answer went to it")
	}
	if r2.Replicas()[0].Healthy() {
		t.Fatal("a replica that does not answer is still healthy")
	}
	if got := r2.Reader(ctx); got != primary || r2.Fallbacks() != 2 {
		t.Fatalf("with no healthy replica: primary %v, fallbacks %d (want 2)", got == primary, r2.Fallbacks())
	}
	r2.Measure(ctx)
	if r2.Replicas()[0].Healthy() {
		t.Fatal("Measure found the dead replica healthy")
	}
}

// TestRouterReached: a position the primary has passed is reached, one
// beyond its WAL is not; once a position was seen on the primary, any at
// or before it is answered without asking the primary again.
func TestRouterReached(t *testing.T) {
	ctx := context.Background()
	primary, err := db.Open(ctx, testdb.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	r := db.NewRouter(primary, nil, time.Second)
	var s string
	if err := primary.Get(&s, `SELECT pg_current_wal_insert_lsn()::text`); err != nil {
		t.Fatal(err)
	}
	now, err := db.ParseLSN(s)
	if err != nil {
		t.Fatal(err)
	}
	for pos, want := range map[db.LSN]bool{0: true, now: true, now + 1<<40: false, math.MaxUint64: false} {
		if got, err := r.Reached(ctx, pos); err != nil || got != want {
			t.Errorf("Reached(%v) = %v, %v; want %v (primary at %v)", pos, got, err, want, now)
		}
	}
	primary.Close()
	if got, err := r.Reached(ctx, now); err != nil || !got {
		t.Fatalf("a position already seen asked the primary: %v, %v", got, err)
	}
	if _, err := r.Reached(ctx, now+1<<40); err == nil {
		t.Fatal("a position beyond what was seen must ask the primary (closed here)")
	}
}
