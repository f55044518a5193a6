package bank

import (
	"testing"
	"time"
)

// TestSchedulerLag: nothing due, no lag; an occurrence due 90 s ago that
// has not run, 90 s of lag (the database's clock: the scheduler's own).
func TestSchedulerLag(t *testing.T) {
	t.Parallel()
	f := newSchedFixture(t, "2027-03-01T00:00:00Z", "1000.00")
	st := f.create(t, "1.00", "2027-03-01T06:00:00Z", FrequencyDaily, nil)
	if lag, err := f.s.SchedulerLag(ctx); err != nil || lag != 0 {
		t.Fatalf("nothing due: lag %s, %v", lag, err)
	}
	if _, err := f.s.db.Exec(`UPDATE scheduled_transfers SET next_run_at = now() - interval '90 seconds' WHERE id = $1`, st.ID); err != nil {
		t.Fatal(err)
	}
	lag, err := f.s.SchedulerLag(ctx)
	if err != nil || lag < 89*time.Second || lag > 2*time.Minute {
		t.Fatalf("an occurrence due 90 s ago: lag %s, %v", lag, err)
	}
	if _, err := f.s.db.Exec(`UPDATE scheduled_transfers SET status = 'cancelled', next_run_at = NULL WHERE id = $1`, st.ID); err != nil {
		t.Fatal(err)
	}
	if lag, err := f.s.SchedulerLag(ctx); err != nil || lag != 0 {
		t.Fatalf("a cancelled series is not due: lag %s, %v", lag, err)
	}
}
