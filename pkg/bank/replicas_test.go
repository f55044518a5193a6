package bank

import (
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/auth"
	"meridian/pkg/db"
	"meridian/pkg/money"
	"meridian/pkg/testdb"
)

// replicatedService is a Service on a primary whose reads go through a
// router to a streaming standby (testdb.Replicated), with replica_wait wait.
func replicatedService(t *testing.T, wait time.Duration) (*Service, *db.Router, *sqlx.DB) {
	t.Helper()
	rp := testdb.Replicated(t)
	primary, err := db.Open(ctx, rp.Primary)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { primary.Close() })
	standby, err := db.Open(ctx, rp.Standby)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { standby.Close() })
	tokens, err := auth.NewTokens([]byte(strings.Repeat("s", 32)), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	s := New(primary, tokens, Settings{RequestsTTL: time.Hour, LookupPerMinute: 1000})
	r := db.NewRouter(primary, []*sqlx.DB{standby}, wait)
	s.SetReadRouter(r)
	return s, r, standby
}

func historyHas(t *testing.T, s *Service, a Actor, pos db.LSN, description string) bool {
	t.Helper()
	rows, _, err := s.History(db.WithPosition(ctx, pos), a, HistoryQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Description == description {
			return true
		}
	}
	return false
}

// TestStandbyReadsYourWrites: on a real streaming standby, a read that
// carries the position of the caller's write sees the write at once, read
// from the standby; with the standby's replay paused it waits replica_wait,
// then reads from the primary (and sees the write), and the fallback is
// counted; without a position the paused standby answers, without the
// write, which is why the position matters.
func TestStandbyReadsYourWrites(t *testing.T) {
	start := time.Now()
	s, r, standby := replicatedService(t, 2*time.Second)
	alice, bob := newCustomer(t, s, "Alice Reader"), newCustomer(t, s, "Bob Reader")
	from, to := openAccount(t, s, alice, "100.00"), openAccount(t, s, bob, "0.00")
	transfer := func(description string) db.LSN {
		t.Helper()
		if _, err := s.Transfer(ctx, alice, TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: money.Amount(1_00), Description: description}, ""); err != nil {
			t.Fatal(err)
		}
		pos, err := r.CommitPosition(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return pos
	}

	for i := 0; i < 5; i++ {
		d := "replicated " + string(rune('a'+i))
		pos := transfer(d)
		if !historyHas(t, s, alice, pos, d) {
			t.Fatalf("history right after transfer %q, at %s, does not show it", d, pos)
		}
	}
	if n := r.Fallbacks(); n != 0 {
		t.Fatalf("%d reads fell back to the primary while the standby kept up", n)
	}
	if r.Waited() == 0 && r.Replicas()[0].Replayed() == 0 {
		t.Fatal("no read checked the standby's replay position")
	}

	// Replay paused: the standby stops where it is.
	if _, err := standby.Exec(`SELECT pg_wal_replay_pause()`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { standby.Exec(`SELECT pg_wal_replay_resume()`) })
	for deadline := time.Now().Add(5 * time.Second); ; {
		var state string
		if err := standby.Get(&state, `SELECT pg_get_wal_replay_pause_state()`); err != nil {
			t.Fatal(err)
		}
		if state == "paused" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replay still %q", state)
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.SetReadRouter(db.NewRouter(s.db, []*sqlx.DB{standby}, 200*time.Millisecond))
	r = s.ReadRouter()
	pos := transfer("while paused")
	began := time.Now()
	if !historyHas(t, s, alice, pos, "while paused") {
		t.Fatal("with replay paused, the read did not fall back to the primary: the write is missing")
	}
	if took := time.Since(began); took < 200*time.Millisecond {
		t.Fatalf("the fallback came after %s, before replica_wait (200ms)", took)
	}
	if n := r.Fallbacks(); n != 1 {
		t.Fatalf("fallbacks = %d, want 1", n)
	}
	if historyHas(t, s, alice, 0, "while paused") {
		t.Fatal("a read without a position saw the write on a paused standby: it did not read the standby")
	}
	if n := r.Fallbacks(); n != 1 {
		t.Fatalf("a read without a position fell back (fallbacks = %d)", n)
	}
	if err := r.Measure(ctx); err != nil {
		t.Fatal(err)
	}
	if rep := r.Replicas()[0]; !rep.Healthy() || rep.LagBytes() <= 0 {
		t.Fatalf("paused standby: healthy %v, lag %d bytes; want healthy and behind", rep.Healthy(), rep.LagBytes())
	}
	t.Logf("primary + standby test took %s", time.Since(start))
}

// TestStandbyThroughPgBouncer: a read URL through PgBouncer in transaction
// mode, opened with serve's timeouts (which PgBouncer refuses as startup
// parameters), still serves reads: the replica's pool connects without
// them, as the primary's does (db.Open), and runs with the role's settings.
func TestStandbyThroughPgBouncer(t *testing.T) {
	rp := testdb.Replicated(t)
	bouncer := testdb.PgBouncer(t, rp.Standby)
	timeouts := db.Timeouts(5 * time.Second)
	primary, err := db.Open(ctx, rp.Primary, timeouts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { primary.Close() })
	readers, err := db.OpenReplicas([]string{bouncer}, timeouts)
	if err != nil {
		t.Fatal(err)
	}
	replica := readers[0]
	t.Cleanup(func() { replica.Close() })
	r := db.NewRouter(primary, readers, 5*time.Second)
	if err := r.Measure(ctx); err != nil {
		t.Fatal(err)
	}
	if !r.Replicas()[0].Healthy() {
		t.Fatal("the standby behind PgBouncer, opened with timeouts, is down after Measure")
	}
	if _, err := primary.Exec(`CREATE TABLE through_bouncer (x int); INSERT INTO through_bouncer VALUES (42)`); err != nil {
		t.Fatal(err)
	}
	pos, err := r.CommitPosition(ctx)
	if err != nil {
		t.Fatal(err)
	}
	read := r.Reader(db.WithPosition(ctx, pos))
	if read != replica || r.Fallbacks() != 0 {
		t.Fatalf("a read at the last write's position went to the primary (fallbacks = %d)", r.Fallbacks())
	}
	var x int
	var recovering bool
	if err := read.QueryRowContext(ctx, `SELECT x, pg_is_in_recovery() FROM through_bouncer`).Scan(&x, &recovering); err != nil || x != 42 || !recovering {
		t.Fatalf("read through PgBouncer from the standby: %d, in recovery %v (%v)", x, recovering, err)
	}
	if got, err := db.StatementTimeout(ctx, replica); err != nil || got != 0 {
		t.Fatalf("statement_timeout through PgBouncer: %s (%v); want the role's (none)", got, err)
	}
}
