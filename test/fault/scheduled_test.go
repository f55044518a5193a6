package fault

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"

	"meridian/pkg/loadtest"
)

// TestScheduledUnderCrash runs two serve instances on one database with a
// short scheduler_interval over many due occurrences of scheduled
// transfers (series started a month ago, so every instance has a backlog
// to share), kills one with SIGKILL in the middle, starts it again, and
// then checks that every occurrence ran exactly once: one run row per
// series and occurrence, one ledger DEBIT per succeeded run (counted per
// series), and the bank's invariant (money only moved, every balance equals
// its ledger).
func TestScheduledUnderCrash(t *testing.T) {
	bin := binary(t)
	pgctl := findPgCtl(t)
	const (
		series      = 150
		occurrences = 30 // daily, from 30 days ago until yesterday
		users       = 20
	)
	dir, err := os.MkdirTemp("/tmp", "msch")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fast := []string{"--scheduler-interval", "200ms"}
	a := &harness{t: t, bin: bin, pgctl: pgctl, dir: dir, port: freePort(t), serveArgs: fast}
	t.Cleanup(a.cleanup) // registered first, so it runs last: after b has stopped
	b := &harness{t: t, bin: bin, pgctl: pgctl, dir: dir, port: freePort(t), serveArgs: fast, logName: "serveB"}
	t.Cleanup(func() { b.stopServe() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	a.startServe()
	a.waitReady(ctx, "first start of A")
	b.startServe()
	b.waitReady(ctx, "first start of B")

	dbx := a.openDB(ctx)
	customers, mark := a.seedCustomers(ctx, dbx, users, 5)

	// The series are written straight into the table (the API refuses a
	// run_at in the past), all at once, already due. Amounts of a cent or
	// a few: bulk customers can pay every occurrence; some series send
	// more than their account holds, so failed runs are part of the mix.
	start := time.Now().UTC().Truncate(time.Second).AddDate(0, 0, -occurrences)
	tx := dbx.MustBeginTx(ctx, nil)
	for i := range series {
		from, to := customers[i%users], customers[(i+1+i/users)%users]
		if from.UserID == to.UserID {
			to = customers[(i+2)%users]
		}
		amount := "0.01"
		if i%10 == 9 {
			amount = "1000000.00" // always refused: insufficient funds
		}
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO scheduled_transfers (user_id, from_account_id, to_account_id, amount, description, frequency, anchor_day, next_run_at, until)
			SELECT $1, f.id, t.id, $4, $5, 'daily', $6, $7, $8
			FROM accounts f, accounts t WHERE f.account_number = $2 AND t.account_number = $3`,
			from.UserID, from.Accounts[0], to.Accounts[0], amount, fmt.Sprintf("Fault series %d", i), start.Day(),
			start, start.AddDate(0, 0, occurrences-1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	total := series * occurrences

	// Kill A once both instances are well into the backlog.
	runs := func() int {
		var n int
		if err := dbx.GetContext(ctx, &n, `SELECT count(*) FROM scheduled_transfer_runs`); err != nil {
			t.Fatal(err)
		}
		return n
	}
	deadline := time.Now().Add(2 * time.Minute)
	for runs() < total/4 {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d occurrences ran in 2 minutes; logs:\n%s", runs(), total, a.serveLogTail())
		}
		time.Sleep(20 * time.Millisecond)
	}
	ranA, ranB := scheduledRuns(t, a.url()), scheduledRuns(t, b.url())
	a.killServe()
	atKill := runs()
	t.Logf("killed A (SIGKILL) after %d of %d occurrences; A had run %d, B %d", atKill, total, ranA, ranB)
	if ranA == 0 || ranB == 0 {
		t.Errorf("both instances should share the backlog: A ran %d, B ran %d", ranA, ranB)
	}
	if atKill >= total {
		t.Errorf("the backlog was done before the kill (%d runs): make it larger", atKill)
	}
	time.Sleep(time.Second)
	a.startServe()
	a.waitReady(ctx, "restart of A after SIGKILL")

	deadline = time.Now().Add(3 * time.Minute)
	for {
		var active int
		if err := dbx.GetContext(ctx, &active, `SELECT count(*) FROM scheduled_transfers WHERE status = 'active'`); err != nil {
			t.Fatal(err)
		}
		if active == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d series still active after 3 minutes (%d runs); logs:\n%s", active, runs(), a.serveLogTail())
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Every occurrence ran exactly once.
	var perSeries []struct {
		Description string `db:"description"`
		Runs        int    `db:"runs"`
		Distinct    int    `db:"distinct_runs"`
		Succeeded   int    `db:"succeeded"`
		Debits      int    `db:"debits"`
	}
	if err := dbx.SelectContext(ctx, &perSeries, `
		SELECT st.description,
			(SELECT count(*) FROM scheduled_transfer_runs r WHERE r.scheduled_id = st.id) AS runs,
			(SELECT count(DISTINCT r.run_at) FROM scheduled_transfer_runs r WHERE r.scheduled_id = st.id) AS distinct_runs,
			(SELECT count(*) FROM scheduled_transfer_runs r WHERE r.scheduled_id = st.id AND r.status = 'succeeded') AS succeeded,
			(SELECT count(*) FROM transactions t WHERE t.transaction_type = 'DEBIT' AND t.description = st.description
				AND t.from_account_id = st.from_account_id AND t.id > $1) AS debits
		FROM scheduled_transfers st ORDER BY st.id`, mark.MaxTransactionID); err != nil {
		t.Fatal(err)
	}
	if len(perSeries) != series {
		t.Fatalf("%d series", len(perSeries))
	}
	succeeded, failed := 0, 0
	for i, s := range perSeries {
		if s.Runs != occurrences || s.Distinct != occurrences || s.Debits != s.Succeeded {
			t.Errorf("%s: %d run rows (%d distinct occurrences), %d succeeded, %d ledger debits; want %d occurrences once each",
				s.Description, s.Runs, s.Distinct, s.Succeeded, s.Debits, occurrences)
		}
		if i%10 == 9 && s.Succeeded != 0 {
			t.Errorf("%s: %d runs succeeded without the funds", s.Description, s.Succeeded)
		}
		succeeded += s.Succeeded
		failed += s.Runs - s.Succeeded
	}
	var linked int
	if err := dbx.GetContext(ctx, &linked, `SELECT count(DISTINCT r.transaction_id) FROM scheduled_transfer_runs r
		JOIN transactions t ON t.id = r.transaction_id AND t.transaction_type = 'DEBIT'`); err != nil {
		t.Fatal(err)
	}
	if linked != succeeded {
		t.Errorf("%d succeeded runs point at %d distinct ledger debits", succeeded, linked)
	}
	var owners int
	if err := dbx.GetContext(ctx, &owners, `SELECT count(*) FROM notifications WHERE message LIKE 'Scheduled transfer of %'`); err != nil {
		t.Fatal(err)
	}
	if owners != total {
		t.Errorf("%d owner notifications for %d runs", owners, total)
	}
	t.Logf("%d occurrences: %d succeeded, %d failed (insufficient funds), each once", total, succeeded, failed)

	expected := mark.TotalBalance
	inv, err := loadtest.CheckInvariants(ctx, dbx, loadtest.InvariantOptions{ExpectedTotal: &expected})
	if err != nil {
		t.Fatal(err)
	}
	if !inv.OK {
		for _, p := range inv.Problems {
			t.Errorf("invariant: %s", p)
		}
	}
	if !a.serveAlive() || !b.serveAlive() {
		t.Errorf("an instance is not running at the end; logs:\n%s", a.serveLogTail())
	}
}

var scheduledRunsMetric = regexp.MustCompile(`(?m)^meridian_scheduled_runs_total\{status="(?:succeeded|failed)"\} (\d+)$`)

// scheduledRuns reads how many occurrences an instance ran from its /metrics.
func scheduledRuns(t *testing.T, base string) int {
	t.Helper()
	res, err := (&http.Client{Timeout: 5 * time.Second}).Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	n := 0
	for _, m := range scheduledRunsMetric.FindAllStringSubmatch(string(body), -1) {
		v, _ := strconv.Atoi(m[1])
		n += v
	}
	return n
}

// stopServe stops this harness's serve with SIGTERM (the data dir and its
// PostgreSQL are another harness's to clean up).
func (h *harness) stopServe() {
	if !h.serveAlive() {
		return
	}
	h.serve.Process.Signal(os.Interrupt)
	select {
	case <-h.exited:
	case <-time.After(30 * time.Second):
		h.serve.Process.Kill()
		<-h.exited
	}
}
