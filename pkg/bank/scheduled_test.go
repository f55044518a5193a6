package bank

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// instant parses a UTC time such as "2027-01-31T09:00:00Z".
func instant(t testing.TB, v string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, v)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

func TestNextOccurrence(t *testing.T) {
	t.Parallel()
	chain := func(freq, start string, n int) []string {
		at := instant(t, start)
		anchor := at.Day()
		var out []string
		for range n {
			at = nextOccurrence(freq, anchor, at)
			out = append(out, at.Format(time.RFC3339))
		}
		return out
	}
	for _, c := range []struct {
		freq, start string
		want        []string
	}{
		// The 31st: the last day of shorter months, the 31st again when there is one.
		{FrequencyMonthly, "2027-01-31T09:00:00Z", []string{"2027-02-28T09:00:00Z", "2027-03-31T09:00:00Z", "2027-04-30T09:00:00Z", "2027-05-31T09:00:00Z"}},
		{FrequencyMonthly, "2028-01-31T09:00:00Z", []string{"2028-02-29T09:00:00Z", "2028-03-31T09:00:00Z"}},
		{FrequencyMonthly, "2027-01-30T23:59:59Z", []string{"2027-02-28T23:59:59Z", "2027-03-30T23:59:59Z"}},
		{FrequencyMonthly, "2027-11-30T08:00:00Z", []string{"2027-12-30T08:00:00Z", "2028-01-30T08:00:00Z", "2028-02-29T08:00:00Z"}},
		{FrequencyMonthly, "2027-12-15T08:00:00Z", []string{"2028-01-15T08:00:00Z"}},
		{FrequencyDaily, "2027-02-27T10:00:00Z", []string{"2027-02-28T10:00:00Z", "2027-03-01T10:00:00Z"}},
		{FrequencyWeekly, "2027-12-28T10:00:00Z", []string{"2028-01-04T10:00:00Z", "2028-01-11T10:00:00Z"}},
	} {
		if got := chain(c.freq, c.start, len(c.want)); strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s from %s: got %v, want %v", c.freq, c.start, got, c.want)
		}
	}
	if !nextOccurrence(FrequencyOnce, 1, instant(t, "2027-01-01T00:00:00Z")).IsZero() {
		t.Error("once has no next occurrence")
	}
}

// schedFixture is a customer with a funded account, a payee, and the
// service on a settable clock.
type schedFixture struct {
	s          *Service
	clock      *fixedClock
	alice, bob Actor
	from, to   Account
}

func newSchedFixture(t *testing.T, now, balance string) *schedFixture {
	t.Helper()
	s := newService(t)
	f := &schedFixture{s: s, alice: newCustomer(t, s, "Alice Sched"), bob: newCustomer(t, s, "Bob Sched")}
	f.from = openAccount(t, s, f.alice, balance)
	f.to = openAccount(t, s, f.bob, "0.00")
	f.clock = fixClock(s, instant(t, now))
	return f
}

func (f *schedFixture) create(t *testing.T, amount, runAt, freq string, until *string) ScheduledTransfer {
	t.Helper()
	st, err := f.s.CreateScheduledTransfer(ctx, f.alice, ScheduledTransferInput{AccountID: f.from.AccountNumber, ToAccountID: f.to.AccountNumber,
		Amount: amt(t, amount), Description: "Rent " + freq, RunAt: runAt, Frequency: freq, Until: until})
	if err != nil {
		t.Fatalf("create %s: %v", freq, err)
	}
	return st
}

// tick sets the clock and runs the due occurrences.
func (f *schedFixture) tick(t *testing.T, now string) SchedulerTick {
	t.Helper()
	f.clock.mu.Lock()
	f.clock.t = instant(t, now)
	f.clock.mu.Unlock()
	tick, err := f.s.RunDueScheduledTransfers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return tick
}

func (f *schedFixture) runs(t *testing.T, id int64) []ScheduledRun {
	t.Helper()
	runs, err := f.s.ScheduledTransferRuns(ctx, f.alice, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

func (f *schedFixture) get(t *testing.T, id int64) ScheduledTransfer {
	t.Helper()
	var st ScheduledTransfer
	if err := f.s.db.Get(&st, selectScheduled+` WHERE st.id = $1`, id); err != nil {
		t.Fatal(err)
	}
	return st
}

func runTimes(runs []ScheduledRun) string {
	var out []string
	for i := len(runs) - 1; i >= 0; i-- { // oldest first
		out = append(out, runs[i].RunAt.UTC().Format("01-02")+":"+runs[i].Status)
	}
	return strings.Join(out, " ")
}

// scheduledMessages are a user's notifications about their scheduled
// transfers, newest first.
func scheduledMessages(t testing.TB, s *Service, userID int64) []string {
	t.Helper()
	var out []string
	for _, m := range messagesOf(t, s, userID) {
		if strings.HasPrefix(m, "Scheduled transfer") {
			out = append(out, m)
		}
	}
	return out
}

func ptr(v string) *string { return &v }

func TestScheduledMonthlyKeepsMonthEnd(t *testing.T) {
	t.Parallel()
	f := newSchedFixture(t, "2027-01-01T00:00:00Z", "1000.00")
	st := f.create(t, "100.00", "2027-01-31T09:00:00Z", FrequencyMonthly, nil)
	if st.Status != ScheduleActive || st.NextRunAt == nil || !st.NextRunAt.Equal(instant(t, "2027-01-31T09:00:00Z")) || st.Until != nil ||
		st.AccountID != f.from.AccountNumber || st.ToAccountID != f.to.AccountNumber || st.Amount != 100_00 || st.Currency != "USD" {
		t.Fatalf("created %+v", st)
	}
	if tick := f.tick(t, "2027-01-31T08:59:59Z"); tick.Succeeded != 0 {
		t.Fatalf("ran before its time: %+v", tick)
	}
	if tick := f.tick(t, "2027-01-31T09:00:00Z"); tick.Succeeded != 1 {
		t.Fatalf("January: %+v", tick)
	}
	if got := f.get(t, st.ID).NextRunAt; !got.Equal(instant(t, "2027-02-28T09:00:00Z")) {
		t.Fatalf("after January 31 comes %v", got)
	}
	// Nobody ran the scheduler in February: both missed occurrences run, once each.
	if tick := f.tick(t, "2027-03-31T12:00:00Z"); tick.Succeeded != 2 {
		t.Fatalf("February and March: %+v", tick)
	}
	if got := f.get(t, st.ID).NextRunAt; !got.Equal(instant(t, "2027-04-30T09:00:00Z")) {
		t.Fatalf("after March 31 comes %v", got)
	}
	if got := runTimes(f.runs(t, st.ID)); got != "01-31:succeeded 02-28:succeeded 03-31:succeeded" {
		t.Fatalf("runs %s", got)
	}
	// Each run is a normal transfer: ledger, balance, audit, the recipient's notification.
	if b := balanceOf(t, f.s, f.from.ID); b != 700_00 || ledgerSum(t, f.s, f.from.ID) != b {
		t.Fatalf("sender balance %v ledger %v", b, ledgerSum(t, f.s, f.from.ID))
	}
	if b := balanceOf(t, f.s, f.to.ID); b != 300_00 {
		t.Fatalf("recipient balance %v", b)
	}
	if n := auditCount(t, f.s, "TRANSFER"); n != 3 {
		t.Fatalf("%d TRANSFER audit rows", n)
	}
	if m := messagesOf(t, f.s, f.bob.UserID); len(m) != 3 || m[0] != "You received $100.00 from account "+f.from.AccountNumber {
		t.Fatalf("recipient told %v", m)
	}
	want := fmt.Sprintf("Scheduled transfer of $100.00 to account %s succeeded", f.to.AccountNumber)
	if m := messagesOf(t, f.s, f.alice.UserID); len(m) != 3 || m[0] != want || m[2] != want {
		t.Fatalf("owner told %v", m)
	}
	runs := f.runs(t, st.ID)
	var n int
	if err := f.s.db.Get(&n, `SELECT count(*) FROM transactions WHERE id = $1 AND transaction_type = 'DEBIT' AND amount = 100 AND description = 'Rent monthly'`, *runs[0].TransactionID); err != nil || n != 1 || runs[0].Reason != nil {
		t.Fatalf("run's transaction %v: %d %v", runs[0], n, err)
	}
	var key string
	if err := f.s.db.Get(&key, `SELECT key FROM idempotency_keys WHERE user_id = $1 AND key LIKE 'scheduled:%' ORDER BY key LIMIT 1`, f.alice.UserID); err != nil ||
		key != fmt.Sprintf("scheduled:%d:2027-01-31T09:00:00Z", st.ID) {
		t.Fatalf("idempotency key %q %v", key, err)
	}
}

func TestScheduledDailyWeeklyUntilAndOnce(t *testing.T) {
	t.Parallel()
	f := newSchedFixture(t, "2027-03-01T00:00:00Z", "1000.00")
	daily := f.create(t, "1.00", "2027-03-01T06:00:00Z", FrequencyDaily, ptr("2027-03-03T06:00:00Z"))
	weekly := f.create(t, "2.00", "2027-03-02T06:00:00Z", FrequencyWeekly, nil)
	once := f.create(t, "3.00", "2027-03-01T07:00:00Z", FrequencyOnce, nil)

	if tick := f.tick(t, "2027-03-10T00:00:00Z"); tick.Succeeded != 3+2+1 || tick.Failed != 0 {
		t.Fatalf("tick %+v", tick)
	}
	if got := runTimes(f.runs(t, daily.ID)); got != "03-01:succeeded 03-02:succeeded 03-03:succeeded" {
		t.Fatalf("daily runs %s", got)
	}
	if got := runTimes(f.runs(t, weekly.ID)); got != "03-02:succeeded 03-09:succeeded" {
		t.Fatalf("weekly runs %s", got)
	}
	if got := runTimes(f.runs(t, once.ID)); got != "03-01:succeeded" {
		t.Fatalf("once runs %s", got)
	}
	// until (inclusive) ends the daily series; once completes after its run.
	for _, id := range []int64{daily.ID, once.ID} {
		if st := f.get(t, id); st.Status != ScheduleCompleted || st.NextRunAt != nil {
			t.Fatalf("series %d: %+v", id, st)
		}
	}
	if st := f.get(t, weekly.ID); st.Status != ScheduleActive || !st.NextRunAt.Equal(instant(t, "2027-03-16T06:00:00Z")) {
		t.Fatalf("weekly %+v", st)
	}
	if tick := f.tick(t, "2027-03-15T00:00:00Z"); tick.Succeeded+tick.Failed != 0 {
		t.Fatalf("a completed series ran again: %+v", tick)
	}
	if b := balanceOf(t, f.s, f.from.ID); b != 1000_00-3_00-4_00-3_00 {
		t.Fatalf("balance %v", b)
	}
	list, err := f.s.ListScheduledTransfers(ctx, f.alice, 0)
	if err != nil || len(list) != 3 || list[0].ID != once.ID || list[2].ID != daily.ID {
		t.Fatalf("list %+v %v", list, err)
	}
	if list, err := f.s.ListScheduledTransfers(ctx, f.bob, 0); err != nil || len(list) != 0 {
		t.Fatalf("bob sees %+v %v", list, err)
	}
	if st := f.s.SchedulerStats(); st.RunsSucceeded != 6 || st.RunsFailed != 0 || st.Ticks != 2 {
		t.Fatalf("stats %+v", st)
	}
}

// A refused run is recorded as failed with the refusal's sentence, the owner
// is told why, nothing moves, and the series goes on.
func TestScheduledFailedRunNotifiesAndContinues(t *testing.T) {
	t.Parallel()
	f := newSchedFixture(t, "2027-05-01T00:00:00Z", "50.00")
	st := f.create(t, "80.00", "2027-05-01T09:00:00Z", FrequencyDaily, nil)
	before := stateOf(t, f.s)
	if tick := f.tick(t, "2027-05-01T09:00:00Z"); tick.Failed != 1 || tick.Succeeded != 0 {
		t.Fatalf("tick %+v", tick)
	}
	runs := f.runs(t, st.ID)
	if len(runs) != 1 || runs[0].Status != RunFailed || runs[0].Reason == nil || *runs[0].Reason != "Insufficient funds" || runs[0].TransactionID != nil {
		t.Fatalf("runs %+v", runs)
	}
	after := stateOf(t, f.s)
	if after.Balances != before.Balances || after.Ledger != before.Ledger || after.IdempotentKs != before.IdempotentKs {
		t.Fatalf("a failed run moved money:\n%+v\n%+v", before, after)
	}
	if m := scheduledMessages(t, f.s, f.alice.UserID); len(m) != 1 || m[0] != fmt.Sprintf("Scheduled transfer of $80.00 to account %s failed: Insufficient funds", f.to.AccountNumber) {
		t.Fatalf("owner told %v", m)
	}
	if n := auditCount(t, f.s, "SCHEDULED_TRANSFER_FAILED"); n != 1 {
		t.Fatalf("%d failure audit rows", n)
	}
	if got := f.get(t, st.ID); got.Status != ScheduleActive || !got.NextRunAt.Equal(instant(t, "2027-05-02T09:00:00Z")) {
		t.Fatalf("the series stopped: %+v", got)
	}

	// Funds arrive: the next occurrence goes through.
	if _, err := f.s.Deposit(ctx, CLIActor, f.from.AccountNumber, FundsInput{Amount: 100_00}, ""); err != nil {
		t.Fatal(err)
	}
	if tick := f.tick(t, "2027-05-02T09:00:00Z"); tick.Succeeded != 1 {
		t.Fatalf("tick %+v", tick)
	}
	// The recipient is deactivated: refused with that sentence, the series goes on.
	admin := newAdmin(t, f.s)
	if _, err := f.s.SetUserActive(ctx, admin, f.bob.UserID, false); err != nil {
		t.Fatal(err)
	}
	if tick := f.tick(t, "2027-05-03T09:00:00Z"); tick.Failed != 1 {
		t.Fatalf("tick %+v", tick)
	}
	if got := runTimes(f.runs(t, st.ID)); got != "05-01:failed 05-02:succeeded 05-03:failed" {
		t.Fatalf("runs %s", got)
	}
	m := scheduledMessages(t, f.s, f.alice.UserID)
	if len(m) != 3 || m[0] != fmt.Sprintf("Scheduled transfer of $80.00 to account %s failed: The receiving account's holder is deactivated", f.to.AccountNumber) ||
		!strings.HasSuffix(m[1], "succeeded") {
		t.Fatalf("owner told %v", m)
	}
	if st := f.s.SchedulerStats(); st.RunsSucceeded != 1 || st.RunsFailed != 2 {
		t.Fatalf("stats %+v", st)
	}
}

// Scheduled runs count against the daily limit (contract §6): a run that
// would take the day past it is refused (recorded as failed, the owner
// told), and the next day's run, with the count started again, goes
// through and is counted.
func TestScheduledRunsCountAgainstDailyLimit(t *testing.T) {
	t.Parallel()
	s := newLimitedService(t, "100.00")
	f := &schedFixture{s: s, alice: newCustomer(t, s, "Alice Limit"), bob: newCustomer(t, s, "Bob Limit")}
	f.from = openAccount(t, s, f.alice, "500.00")
	f.to = openAccount(t, s, f.bob, "0.00")
	f.clock = fixClock(s, instant(t, "2027-05-01T08:00:00Z"))
	st := f.create(t, "80.00", "2027-05-01T09:00:00Z", FrequencyDaily, nil)
	if err := sendTo(s, f.alice, f.from, f.to, 30_00, "manual"); err != nil {
		t.Fatal(err)
	}
	if used := limitsOf(t, s, f.alice)["USD"].UsedToday; used != 30_00 {
		t.Fatalf("used today %v after the manual transfer", used)
	}

	// 30.00 + 80.00 > 100.00: the run is refused by the limit.
	if tick := f.tick(t, "2027-05-01T09:00:00Z"); tick.Failed != 1 || tick.Succeeded != 0 {
		t.Fatalf("tick %+v: the run skipped the daily limit", tick)
	}
	runs := f.runs(t, st.ID)
	if len(runs) != 1 || runs[0].Status != RunFailed || runs[0].Reason == nil || *runs[0].Reason != errDailyLimit.Message || runs[0].TransactionID != nil {
		t.Fatalf("runs %+v", runs)
	}
	want := fmt.Sprintf("Scheduled transfer of $80.00 to account %s failed: %s", f.to.AccountNumber, errDailyLimit.Message)
	if m := scheduledMessages(t, s, f.alice.UserID); len(m) != 1 || m[0] != want {
		t.Fatalf("owner told %v; want %q", m, want)
	}
	if used := limitsOf(t, s, f.alice)["USD"].UsedToday; used != 30_00 {
		t.Fatalf("used today %v after the refused run", used)
	}
	if b := balanceOf(t, s, f.from.ID); b != 470_00 {
		t.Fatalf("balance %v after the refused run", b)
	}

	// The next day (UTC) the count starts again: the run goes through and
	// counts. The day is the database's, which the test cannot move on: the
	// day's count is moved back to yesterday instead.
	passDay(t, s)
	if tick := f.tick(t, "2027-05-02T09:00:00Z"); tick.Succeeded != 1 || tick.Failed != 0 {
		t.Fatalf("next day's tick %+v", tick)
	}
	if got := runTimes(f.runs(t, st.ID)); got != "05-01:failed 05-02:succeeded" {
		t.Fatalf("runs %s", got)
	}
	if used := limitsOf(t, s, f.alice)["USD"].UsedToday; used != 80_00 {
		t.Fatalf("used today %v after the next day's run", used)
	}
	if b := balanceOf(t, s, f.from.ID); b != 390_00 {
		t.Fatalf("balance %v after the next day's run", b)
	}
}

// The transfer, the run row and the advance commit together: a failure
// after the transfer (a crash, as far as the database knows) leaves no
// money moved and the occurrence due, and the next pass pays it once.
func TestScheduledRunIsAtomic(t *testing.T) {
	f := newSchedFixture(t, "2027-06-01T00:00:00Z", "100.00")
	st := f.create(t, "10.00", "2027-06-01T09:00:00Z", FrequencyDaily, nil)
	f.clock.add(9 * time.Hour)
	before := stateOf(t, f.s)
	scheduledRunHook = func(id int64) error {
		if id == st.ID {
			return errors.New("the process died here")
		}
		return nil
	}
	_, err := f.s.RunDueScheduledTransfers(ctx)
	scheduledRunHook = nil
	if err == nil {
		t.Fatal("the failure after the transfer was not reported")
	}
	wantUnchanged(t, f.s, before)
	if runs := f.runs(t, st.ID); len(runs) != 0 {
		t.Fatalf("runs %+v", runs)
	}
	if tick := f.tick(t, "2027-06-01T09:00:00Z"); tick.Succeeded != 1 {
		t.Fatalf("tick %+v", tick)
	}
	if b := balanceOf(t, f.s, f.from.ID); b != 90_00 {
		t.Fatalf("balance %v: paid %d times", b, (100_00-b)/10_00)
	}

	// A run row without its advance (never written so, but the row is the
	// last guard): the occurrence is not paid again, only passed.
	if _, err := f.s.db.Exec(`INSERT INTO scheduled_transfer_runs (scheduled_id, run_at, status, reason) VALUES ($1, '2027-06-02T09:00:00Z', 'failed', 'test')`, st.ID); err != nil {
		t.Fatal(err)
	}
	if tick := f.tick(t, "2027-06-02T09:00:00Z"); tick.Succeeded+tick.Failed != 0 {
		t.Fatalf("a recorded occurrence ran again: %+v", tick)
	}
	if b := balanceOf(t, f.s, f.from.ID); b != 90_00 || !f.get(t, st.ID).NextRunAt.Equal(instant(t, "2027-06-03T09:00:00Z")) {
		t.Fatalf("balance %v, series %+v", b, f.get(t, st.ID))
	}
}

// Two services (two serve instances) and several passes each race over
// many due occurrences: each runs exactly once.
func TestScheduledExactlyOnceAcrossInstances(t *testing.T) {
	t.Parallel()
	const series, due = 30, 5
	f := newSchedFixture(t, "2027-07-01T00:00:00Z", "100000.00")
	other := New(f.s.db, f.s.tokens, f.s.settings)
	other.SetClock(f.clock.now)
	carol := newCustomer(t, f.s, "Carol Sched")
	carolAcc := openAccount(t, f.s, carol, "100000.00")
	for i := range series {
		owner, from, to := f.alice, f.from, f.to
		if i%2 == 1 { // crossing directions: account locks in both orders
			owner, from, to = carol, carolAcc, f.from
		}
		if _, err := f.s.CreateScheduledTransfer(ctx, owner, ScheduledTransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber,
			Amount: money.Amount(100 + i), Description: fmt.Sprintf("Series %d", i), RunAt: "2027-07-01T00:00:30Z", Frequency: FrequencyDaily}); err != nil {
			t.Fatal(err)
		}
	}
	f.clock.add(time.Duration(due-1)*24*time.Hour + time.Hour) // 5 occurrences due each
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := SchedulerTick{}
	for g := range 6 {
		svc := f.s
		if g%2 == 1 {
			svc = other
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick, err := svc.RunDueScheduledTransfers(ctx)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			total.Succeeded += tick.Succeeded
			total.Failed += tick.Failed
			mu.Unlock()
		}()
	}
	wg.Wait()
	if total.Succeeded != series*due || total.Failed != 0 {
		t.Fatalf("ran %+v; want %d succeeded", total, series*due)
	}
	var counts []struct {
		Description string `db:"description"`
		N           int    `db:"n"`
	}
	if err := f.s.db.Select(&counts, `SELECT description, count(*) AS n FROM transactions
		WHERE transaction_type = 'DEBIT' AND description LIKE 'Series %' GROUP BY description`); err != nil {
		t.Fatal(err)
	}
	if len(counts) != series {
		t.Fatalf("%d series in the ledger", len(counts))
	}
	for _, c := range counts {
		if c.N != due {
			t.Errorf("%s: %d ledger debits, want %d", c.Description, c.N, due)
		}
	}
	var runs, linked int
	if err := f.s.db.Get(&runs, `SELECT count(*) FROM scheduled_transfer_runs WHERE status = 'succeeded'`); err != nil {
		t.Fatal(err)
	}
	if err := f.s.db.Get(&linked, `SELECT count(DISTINCT r.transaction_id) FROM scheduled_transfer_runs r JOIN transactions t ON t.id = r.transaction_id`); err != nil {
		t.Fatal(err)
	}
	if runs != series*due || linked != series*due {
		t.Fatalf("%d run rows, %d distinct ledger rows; want %d", runs, linked, series*due)
	}
	for _, acc := range []Account{f.from, f.to, carolAcc} {
		if b, l := balanceOf(t, f.s, acc.ID), ledgerSum(t, f.s, acc.ID); b != l {
			t.Errorf("account %s: balance %v, ledger %v", acc.AccountNumber, b, l)
		}
	}
	a, b := f.s.SchedulerStats(), other.SchedulerStats()
	if int(a.RunsSucceeded+b.RunsSucceeded) != series*due {
		t.Fatalf("stats %+v %+v", a, b)
	}
}

func TestScheduledCancel(t *testing.T) {
	t.Parallel()
	f := newSchedFixture(t, "2027-08-01T00:00:00Z", "100.00")
	st := f.create(t, "1.00", "2027-08-01T09:00:00Z", FrequencyDaily, nil)
	if tick := f.tick(t, "2027-08-01T09:00:00Z"); tick.Succeeded != 1 {
		t.Fatalf("tick %+v", tick)
	}
	wantKind(t, f.s.CancelScheduledTransfer(ctx, f.bob, st.ID), errs.NotFound, "scheduled_transfer_not_found")
	wantKind(t, f.s.CancelScheduledTransfer(ctx, f.alice, st.ID+1000), errs.NotFound, "scheduled_transfer_not_found")
	if err := f.s.CancelScheduledTransfer(ctx, f.alice, st.ID); err != nil {
		t.Fatal(err)
	}
	if got := f.get(t, st.ID); got.Status != ScheduleCancelled || got.NextRunAt != nil {
		t.Fatalf("cancelled %+v", got)
	}
	if tick := f.tick(t, "2027-08-10T09:00:00Z"); tick.Succeeded+tick.Failed != 0 {
		t.Fatalf("a cancelled series ran: %+v", tick)
	}
	if err := f.s.CancelScheduledTransfer(ctx, f.alice, st.ID); err != nil {
		t.Fatalf("cancelling again: %v", err)
	}
	if n := auditCount(t, f.s, "SCHEDULE_CANCEL"); n != 1 {
		t.Fatalf("%d cancel audit rows", n)
	}
	once := f.create(t, "1.00", "2027-08-10T10:00:00Z", FrequencyOnce, nil)
	f.tick(t, "2027-08-10T10:00:00Z")
	wantKind(t, f.s.CancelScheduledTransfer(ctx, f.alice, once.ID), errs.Conflict, "scheduled_transfer_completed")
	if _, err := f.s.ScheduledTransferRuns(ctx, f.bob, st.ID, 0); !errors.Is(err, errScheduledNotFound) {
		t.Fatalf("bob reads alice's runs: %v", err)
	}
	if runs := f.runs(t, st.ID); len(runs) != 1 {
		t.Fatalf("runs %+v", runs)
	}
}

// Every refusal of CreateScheduledTransfer, each alone; nothing is written.
func TestScheduledCreateRefusals(t *testing.T) {
	t.Parallel()
	f := newSchedFixture(t, "2027-09-01T12:00:00Z", "100.00")
	s := f.s
	euro := openTyped(t, s, f.bob, "0.00", 3)
	closed := openAccount(t, s, f.bob, "0.00")
	if err := s.CloseAccount(ctx, f.bob, closed.ID); err != nil {
		t.Fatal(err)
	}
	dave := newCustomer(t, s, "Dave Gone")
	daveAcc := openAccount(t, s, dave, "0.00")
	admin := newAdmin(t, s)
	if _, err := s.SetUserActive(ctx, admin, dave.UserID, false); err != nil {
		t.Fatal(err)
	}
	other := f.bob.UserID
	good := func() ScheduledTransferInput {
		return ScheduledTransferInput{AccountID: f.from.AccountNumber, ToAccountID: f.to.AccountNumber, Amount: 10_00,
			Description: "Rent", RunAt: "2027-09-02T09:00:00Z", Frequency: "monthly", Until: ptr("2028-09-02T09:00:00Z")}
	}
	before := stateOf(t, s)
	for _, c := range []struct {
		name  string
		actor Actor
		edit  func(*ScheduledTransferInput)
		kind  errs.Kind
		code  string
		field string // the input field refused (invalid_input only)
		msg   string // the field's message, when the test pins it
	}{
		{"run_at in the past", f.alice, func(in *ScheduledTransferInput) { in.RunAt = "2027-09-01T11:58:00Z" }, errs.Invalid, "invalid_input", "run_at", "run_at must not be in the past"},
		{"run_at not RFC 3339", f.alice, func(in *ScheduledTransferInput) { in.RunAt = "2027-09-02 09:00" }, errs.Invalid, "invalid_input", "run_at", ""},
		{"run_at missing", f.alice, func(in *ScheduledTransferInput) { in.RunAt = "" }, errs.Invalid, "invalid_input", "run_at", "run_at is required"},
		{"run_at blank", f.alice, func(in *ScheduledTransferInput) { in.RunAt = "  " }, errs.Invalid, "invalid_input", "run_at", "run_at is required"},
		{"run_at beyond ten years", f.alice, func(in *ScheduledTransferInput) { in.RunAt = "2038-01-01T00:00:00Z"; in.Until = nil }, errs.Invalid, "invalid_input", "run_at", "run_at must be within ten years"},
		{"until before run_at", f.alice, func(in *ScheduledTransferInput) { in.Until = ptr("2027-09-01T13:00:00Z") }, errs.Invalid, "invalid_input", "until", "until must be after run_at"},
		{"until equal to run_at", f.alice, func(in *ScheduledTransferInput) { in.Until = ptr(in.RunAt) }, errs.Invalid, "invalid_input", "until", "until must be after run_at"},
		{"until beyond ten years", f.alice, func(in *ScheduledTransferInput) { in.Until = ptr("2040-01-01T00:00:00Z") }, errs.Invalid, "invalid_input", "until", "until must be within ten years"},
		{"until not RFC 3339", f.alice, func(in *ScheduledTransferInput) { in.Until = ptr("tomorrow") }, errs.Invalid, "invalid_input", "until", ""},
		{"zero amount", f.alice, func(in *ScheduledTransferInput) { in.Amount = 0 }, errs.Invalid, "invalid_input", "amount", ""},
		{"amount over the maximum", f.alice, func(in *ScheduledTransferInput) { in.Amount = money.DefaultMax + 1 }, errs.Invalid, "invalid_input", "amount", ""},
		{"unknown frequency", f.alice, func(in *ScheduledTransferInput) { in.Frequency = "yearly" }, errs.Invalid, "invalid_input", "frequency", ""},
		{"no frequency", f.alice, func(in *ScheduledTransferInput) { in.Frequency = "" }, errs.Invalid, "invalid_input", "frequency", ""},
		{"description too long", f.alice, func(in *ScheduledTransferInput) { in.Description = strings.Repeat("x", 256) }, errs.Invalid, "invalid_input", "description", ""},
		{"malformed account number", f.alice, func(in *ScheduledTransferInput) { in.ToAccountID = "bad\x00" }, errs.Invalid, "invalid_input", "to_account_id", ""},
		{"another customer's account", f.alice, func(in *ScheduledTransferInput) { in.AccountID = f.to.AccountNumber }, errs.NotFound, "account_not_found", "", ""},
		{"unknown recipient", f.alice, func(in *ScheduledTransferInput) { in.ToAccountID = "NOSUCH0001" }, errs.NotFound, "account_not_found", "", ""},
		{"same account", f.alice, func(in *ScheduledTransferInput) { in.ToAccountID = f.from.AccountNumber }, errs.Unprocessable, "same_account", "", ""},
		{"closed recipient", f.alice, func(in *ScheduledTransferInput) { in.ToAccountID = closed.AccountNumber }, errs.Unprocessable, "account_closed", "", ""},
		{"deactivated recipient", f.alice, func(in *ScheduledTransferInput) { in.ToAccountID = daveAcc.AccountNumber }, errs.Unprocessable, "recipient_inactive", "", ""},
		{"different currency", f.alice, func(in *ScheduledTransferInput) { in.ToAccountID = euro.AccountNumber }, errs.Unprocessable, "currency_mismatch", "", ""},
		{"another user_id", f.alice, func(in *ScheduledTransferInput) { in.UserID = &other }, errs.Forbidden, "forbidden", "", ""},
		{"an administrator", admin, func(in *ScheduledTransferInput) {}, errs.Forbidden, "customer_only", "", ""},
	} {
		in := good()
		c.edit(&in)
		_, err := s.CreateScheduledTransfer(ctx, c.actor, in)
		var e *errs.Error
		if !errors.As(err, &e) || e.Kind != c.kind || e.Code != c.code {
			t.Errorf("%s: got %v; want %s", c.name, err, c.code)
			continue
		}
		if c.field != "" && e.Fields[c.field] == "" {
			t.Errorf("%s: fields %v; want one for %s", c.name, e.Fields, c.field)
		}
		if c.msg != "" && e.Fields[c.field] != c.msg {
			t.Errorf("%s: %s refused with %q; want %q", c.name, c.field, e.Fields[c.field], c.msg)
		}
	}
	wantUnchanged(t, s, before)
	var n int
	if err := s.db.Get(&n, `SELECT count(*) FROM scheduled_transfers`); err != nil || n != 0 {
		t.Fatalf("%d scheduled transfers written (%v)", n, err)
	}
	// The good input passes (so each refusal above is its own rule's), and
	// a run_at a few seconds old is within the grace.
	in := good()
	in.RunAt = "2027-09-01T11:59:30Z"
	st, err := s.CreateScheduledTransfer(ctx, f.alice, in)
	if err != nil {
		t.Fatal(err)
	}
	if st.Until == nil || !st.Until.Equal(instant(t, "2028-09-02T09:00:00Z")) || st.Frequency != "monthly" || st.Description != "Rent" {
		t.Fatalf("created %+v", st)
	}
	if n := auditCount(t, s, "SCHEDULE_CREATE"); n != 1 {
		t.Fatalf("%d create audit rows", n)
	}
}

// Cancels racing the scheduler: once CancelScheduledTransfer returns, no
// further occurrence of that series runs (a run in progress finishes first).
func TestScheduledCancelRacesScheduler(t *testing.T) {
	t.Parallel()
	const series, days = 20, 60
	f := newSchedFixture(t, "2027-10-01T00:00:00Z", "100000.00")
	ids := make([]int64, series)
	for i := range ids {
		ids[i] = f.create(t, "1.00", "2027-10-01T00:00:30Z", FrequencyDaily, nil).ID
	}
	f.clock.add(days * 24 * time.Hour) // 60 occurrences due each: 1200 in all
	countRuns := func(id int64) int {
		var n int
		if err := f.s.db.Get(&n, `SELECT count(*) FROM scheduled_transfer_runs WHERE scheduled_id = $1`, id); err != nil {
			t.Error(err)
		}
		return n
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := f.s.RunDueScheduledTransfers(ctx); err != nil {
			t.Error(err)
		}
	}()
	// Cancel only once the scheduler is into the backlog (it runs the
	// oldest first: the first series' first occurrence), so the cancels
	// meet it mid-way rather than before it starts.
	for deadline := time.Now().Add(10 * time.Second); countRuns(ids[0]) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the scheduler ran nothing in 10 s")
		}
		time.Sleep(time.Millisecond)
	}
	atCancel := make([]int, series)
	for i, id := range ids {
		if i%4 == 0 {
			time.Sleep(5 * time.Millisecond) // let the scheduler get further into the series
		}
		if err := f.s.CancelScheduledTransfer(ctx, f.alice, id); err != nil {
			t.Fatal(err)
		}
		atCancel[i] = countRuns(id)
	}
	<-done
	if _, err := f.s.RunDueScheduledTransfers(ctx); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for i, id := range ids {
		n := countRuns(id)
		ran += n
		if n != atCancel[i] {
			t.Errorf("series %d: %d runs when its cancel returned, %d now", id, atCancel[i], n)
		}
	}
	if b, l := balanceOf(t, f.s, f.from.ID), ledgerSum(t, f.s, f.from.ID); b != l || b != 100000_00-money.Amount(ran)*1_00 {
		t.Fatalf("balance %v, ledger %v, %d runs", b, l, ran)
	}
	if ran == 0 || ran == series*days {
		t.Fatalf("race not exercised: %d of %d occurrences ran before their series were cancelled", ran, series*days)
	}
	t.Logf("%d of %d occurrences ran before their series were cancelled", ran, series*days)
}

// TestScheduledKeysAreTheBanks: a customer cannot take an occurrence's
// Idempotency-Key before the scheduler does (which would make the occurrence
// replay the customer's transfer instead of paying), and the occurrence then
// runs and pays as scheduled.
func TestScheduledKeysAreTheBanks(t *testing.T) {
	t.Parallel()
	f := newSchedFixture(t, "2027-01-01T00:00:00Z", "1000.00")
	st := f.create(t, "100.00", "2027-01-31T09:00:00Z", FrequencyOnce, nil)
	key := scheduledKey(st.ID, instant(t, "2027-01-31T09:00:00Z"))
	_, err := f.s.Transfer(ctx, f.alice, TransferInput{AccountID: f.from.AccountNumber, ToAccountID: f.to.AccountNumber, Amount: 100_00}, key)
	if e := errs.As(err); err == nil || e.Code != "invalid_input" || e.Fields["Idempotency-Key"] == "" {
		t.Fatalf("a customer took the scheduler's key: %v", err)
	}
	if b := balanceOf(t, f.s, f.from.ID); b != 1000_00 {
		t.Fatalf("the refused transfer moved money: balance %v", b)
	}
	if tick := f.tick(t, "2027-01-31T09:00:00Z"); tick.Succeeded != 1 {
		t.Fatalf("the occurrence did not run: %+v", tick)
	}
	if b := balanceOf(t, f.s, f.to.ID); b != 100_00 {
		t.Fatalf("recipient balance %v after the occurrence", b)
	}
}

// One pass runs the due occurrences round-robin across customers, the
// customer whose oldest occurrence waited longest first in each round: a
// customer's backlog does not push another's occurrence behind all of it
// (issue 20). Alice has five due, Dave three, Carol one.
func TestScheduledRoundRobinAcrossCustomers(t *testing.T) {
	t.Parallel()
	f := newSchedFixture(t, "2027-03-01T08:00:00Z", "100.00")
	schedule := func(owner Actor, from Account, runAt string) int64 {
		t.Helper()
		st, err := f.s.CreateScheduledTransfer(ctx, owner, ScheduledTransferInput{AccountID: from.AccountNumber, ToAccountID: f.to.AccountNumber,
			Amount: amt(t, "1.00"), Description: "Fair share", RunAt: runAt, Frequency: FrequencyOnce})
		if err != nil {
			t.Fatal(err)
		}
		return st.ID
	}
	dave, carol := newCustomer(t, f.s, "Dave Sched"), newCustomer(t, f.s, "Carol Sched")
	daveAcc, carolAcc := openAccount(t, f.s, dave, "100.00"), openAccount(t, f.s, carol, "100.00")
	var a, d []int64
	for i := range 5 {
		a = append(a, schedule(f.alice, f.from, fmt.Sprintf("2027-03-01T09:00:0%dZ", i)))
	}
	for i := range 3 {
		d = append(d, schedule(dave, daveAcc, fmt.Sprintf("2027-03-01T09:00:1%dZ", i)))
	}
	c := schedule(carol, carolAcc, "2027-03-01T09:00:30Z")
	if tick := f.tick(t, "2027-03-01T09:01:00Z"); tick.Succeeded != 9 || tick.Failed != 0 {
		t.Fatalf("pass %+v; want 9 succeeded", tick)
	}
	var order []int64
	if err := f.s.db.Select(&order, `SELECT scheduled_id FROM scheduled_transfer_runs ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	want := []int64{a[0], d[0], c, a[1], d[1], a[2], d[2], a[3], a[4]}
	if fmt.Sprint(order) != fmt.Sprint(want) {
		t.Fatalf("runs in the order %v; want %v (Alice %v, Dave %v, Carol %d)", order, want, a, d, c)
	}
}

// The flood of issue 20: one customer has 3,000 once transfers due at T
// (written straight into the table: the API's per-customer cap would
// refuse them), another customer's transfer is due at T+2 s, and serve's
// scheduler runs from T every scheduler_interval. The other customer's
// transfer runs within scheduler_interval of its time, while the backlog
// is still being worked through.
func TestScheduledFloodDoesNotDelayOthers(t *testing.T) {
	t.Parallel()
	const flood = 3000
	s := newService(t)
	alice, bob, carol := newCustomer(t, s, "Alice Flood"), newCustomer(t, s, "Bob Flood"), newCustomer(t, s, "Carol Flood")
	aliceAcc, bobAcc, carolAcc := openAccount(t, s, alice, "100.00"), openAccount(t, s, bob, "100.00"), openAccount(t, s, carol, "0.00")
	at := time.Now().UTC().Truncate(time.Second).Add(2 * time.Second) // T
	if _, err := s.db.Exec(`INSERT INTO scheduled_transfers (user_id, from_account_id, to_account_id, amount, description, frequency, anchor_day, next_run_at)
		SELECT $1, $2, $3, 0.01, 'Flood ' || g, 'once', $4, $5 FROM generate_series(1, $6) g`,
		alice.UserID, aliceAcc.ID, carolAcc.ID, at.Day(), at, flood); err != nil {
		t.Fatal(err)
	}
	bobs, err := s.CreateScheduledTransfer(ctx, bob, ScheduledTransferInput{AccountID: bobAcc.AccountNumber, ToAccountID: carolAcc.AccountNumber,
		Amount: amt(t, "5.00"), Description: "Bob on time", RunAt: at.Add(2 * time.Second).Format(time.RFC3339), Frequency: FrequencyOnce})
	if err != nil {
		t.Fatal(err)
	}
	due := *bobs.NextRunAt

	time.Sleep(time.Until(at))
	sctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.RunScheduler(sctx, DefaultSchedulerInterval, slog.New(slog.DiscardHandler))
	}()
	defer func() { stop(); <-done }()

	var ran time.Time
	for give := due.Add(DefaultSchedulerInterval + 5*time.Second); ; {
		err := s.db.Get(&ran, `SELECT created_at FROM scheduled_transfer_runs WHERE scheduled_id = $1`, bobs.ID)
		if err == nil {
			break
		}
		if !errors.Is(err, sql.ErrNoRows) {
			t.Fatal(err)
		}
		if time.Now().After(give) {
			var n int
			s.db.Get(&n, `SELECT count(*) FROM scheduled_transfer_runs`)
			t.Fatalf("Bob's transfer due %s has not run %s after its time (%d of the %d backlog ran)", due.Format(time.RFC3339), time.Since(due).Round(time.Millisecond), n, flood)
		}
		time.Sleep(20 * time.Millisecond)
	}
	late := ran.Sub(due)
	if late > DefaultSchedulerInterval {
		t.Fatalf("Bob's transfer ran %s after its time; the contract allows scheduler_interval (%s)", late.Round(time.Millisecond), DefaultSchedulerInterval)
	}
	var before int
	if err := s.db.Get(&before, `SELECT count(*) FROM scheduled_transfer_runs WHERE created_at <= $1 AND scheduled_id <> $2`, ran, bobs.ID); err != nil {
		t.Fatal(err)
	}
	t.Logf("Bob's transfer ran %s after its time, after %d of the %d backlog", late.Round(time.Millisecond), before, flood)
}

// A customer has at most scheduled_max_active active series: one more is
// refused (422 too_many_scheduled_transfers), also when several are asked
// for at once; a cancelled or completed series frees its place, and
// another customer is not counted against.
func TestScheduledMaxActivePerCustomer(t *testing.T) {
	t.Parallel()
	s := newServiceWith(t, func(st *Settings) { st.ScheduledMaxActive = 3 })
	alice, bob := newCustomer(t, s, "Alice Cap"), newCustomer(t, s, "Bob Cap")
	from, to, bobAcc := openAccount(t, s, alice, "100.00"), openAccount(t, s, bob, "0.00"), openAccount(t, s, bob, "100.00")
	clock := fixClock(s, instant(t, "2027-05-01T08:00:00Z"))
	schedule := func(owner Actor, from, to Account, freq string) (ScheduledTransfer, error) {
		return s.CreateScheduledTransfer(ctx, owner, ScheduledTransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber,
			Amount: amt(t, "1.00"), Description: "Capped", RunAt: clock.now().Add(time.Hour).Format(time.RFC3339), Frequency: freq})
	}
	// Eight at once: exactly three get a place.
	var wg sync.WaitGroup
	var mu sync.Mutex
	var made []ScheduledTransfer
	refused := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := schedule(alice, from, to, FrequencyOnce)
			mu.Lock()
			defer mu.Unlock()
			switch e := errs.As(err); {
			case err == nil:
				made = append(made, st)
			case e.Kind == errs.Unprocessable && e.Code == "too_many_scheduled_transfers":
				refused++
				if !strings.Contains(e.Message, "3 active scheduled transfers") {
					t.Errorf("refusal says %q", e.Message)
				}
			default:
				t.Errorf("create: %v", err)
			}
		}()
	}
	wg.Wait()
	if len(made) != 3 || refused != 5 {
		t.Fatalf("%d created, %d refused; want 3 and 5", len(made), refused)
	}
	if _, err := schedule(bob, bobAcc, from, FrequencyDaily); err != nil {
		t.Fatalf("another customer: %v", err)
	}
	if err := s.CancelScheduledTransfer(ctx, alice, made[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := schedule(alice, from, to, FrequencyDaily); err != nil {
		t.Fatalf("after a cancel: %v", err)
	}
	_, err := schedule(alice, from, to, FrequencyOnce)
	wantKind(t, err, errs.Unprocessable, "too_many_scheduled_transfers")
	clock.add(2 * time.Hour) // the two once series run and complete; the daily one stays active
	if tick, err := s.RunDueScheduledTransfers(ctx); err != nil || tick.Succeeded < 3 {
		t.Fatalf("pass %+v %v", tick, err)
	}
	for range 2 {
		if _, err := schedule(alice, from, to, FrequencyOnce); err != nil {
			t.Fatalf("after completed runs: %v", err)
		}
	}
	_, err = schedule(alice, from, to, FrequencyOnce)
	wantKind(t, err, errs.Unprocessable, "too_many_scheduled_transfers")
}
