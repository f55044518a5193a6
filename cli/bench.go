package cli

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/spf13/cobra"

	"meridian/pkg/bank"
	"meridian/pkg/loadtest"
)

// benchOptions are the flags of `meridian bench`.
type benchOptions struct {
	url             string
	users           int
	accountsPerUser int
	concurrency     int
	duration        time.Duration
	count           int
	reads           bool
	readDuration    time.Duration
	notify          bool
	notifySamples   int
	seed            int64
	overdraftPct    int
	fromExisting    bool
	checkOnly       bool
	hotAccount      bool
	force           bool
}

// benchResult is what `meridian bench --output json` prints.
type benchResult struct {
	URL          string                    `json:"url"`
	Customers    int                       `json:"customers"`
	SeedSeconds  float64                   `json:"seed_seconds"`
	LoginSeconds float64                   `json:"login_seconds"`
	Transfers    *loadtest.Report          `json:"transfers,omitempty"`
	Resolution   *loadtest.Resolution      `json:"resolution,omitempty"`
	Reads        *loadtest.Report          `json:"reads,omitempty"`
	Notify       *loadtest.NotifyReport    `json:"notify,omitempty"`
	Invariant    *loadtest.InvariantReport `json:"invariant"`
	ExactChecked bool                      `json:"exact_checked"`
}

func (a *app) benchCmd(run runner[benchOptions]) *cobra.Command {
	run = run.or(a.runBench)
	o := &benchOptions{}
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Load-test a running server with random transfers, then check the bank's invariant",
		Long: "Seeds --users bulk customers (through the configured database, so use the same --database-url or --data-dir as the server),\n" +
			"signs each in, makes random transfers between their accounts from --concurrency clients for --duration (or --count requests),\n" +
			"optionally reads history and dashboards (--reads) and times WebSocket pushes (--notify), prints the figures,\n" +
			"then checks in the database that no money was made or lost, no balance is negative, every balance equals its ledger\n" +
			"and every transfer answered 201 is in the ledger. Exits 1 when the check fails.\n" +
			"Refuses a database that holds users no seed created (bulk users share a published password), unless --force.",
		Example: "  meridian bench --users 200 --duration 30s --concurrency 32\n" +
			"  meridian bench --users 1000 --reads --notify -o json\n" +
			"  meridian bench --check-only",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(); err != nil {
				return usageError{err}
			}
			return run(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.url, "url", "http://127.0.0.1:8080", "base URL of the running server")
	f.IntVar(&o.users, "users", 200, "customers to seed (or, with --from-existing, to pick among the bulk customers already there)")
	f.IntVar(&o.accountsPerUser, "accounts-per-user", 1, "accounts per seeded customer (1 to 5)")
	f.IntVar(&o.concurrency, "concurrency", 32, "requests in flight at once")
	f.DurationVar(&o.duration, "duration", 30*time.Second, "how long to send transfers (0 with --count 0: no transfers, only --reads/--notify)")
	f.IntVar(&o.count, "count", 0, "send this many transfers instead of running for --duration (0: use --duration)")
	f.BoolVar(&o.reads, "reads", false, "after the transfers, read history and dashboards for --read-duration")
	f.DurationVar(&o.readDuration, "read-duration", 10*time.Second, "how long to run the reads")
	f.BoolVar(&o.notify, "notify", false, "after the transfers, time WebSocket pushes of --notify-samples transfers")
	f.IntVar(&o.notifySamples, "notify-samples", 200, "transfers timed by --notify")
	f.Int64Var(&o.seed, "seed", 1, "random seed of the seeded data and of the load")
	f.IntVar(&o.overdraftPct, "overdraft-percent", 5, "percent of transfers that ask for more than any balance (422 expected)")
	f.BoolVar(&o.fromExisting, "from-existing", false, "do not seed: pick --users of the bulk customers already in the database")
	f.BoolVar(&o.hotAccount, "hot-account", false, "every transfer pays one merchant account (the first customer's), to measure contention on one recipient")
	f.BoolVar(&o.checkOnly, "check-only", false, "only check the invariant (no negative balance, every balance equals its ledger)")
	f.BoolVar(&o.force, "force", false, "run even on a database that holds users no seed created")
	return cmd
}

func (o *benchOptions) validate() error {
	switch {
	case o.checkOnly:
		return nil
	case o.users < 2:
		return fmt.Errorf("--users must be at least 2")
	case o.notify && o.users < 4:
		return fmt.Errorf("--notify needs --users of at least 4 (two customers are kept out of the load for the probe)")
	case o.accountsPerUser < 1 || o.accountsPerUser > 5:
		return fmt.Errorf("--accounts-per-user must be between 1 and 5")
	case o.concurrency < 1:
		return fmt.Errorf("--concurrency must be at least 1")
	case o.duration < 0 || o.count < 0:
		return fmt.Errorf("--duration and --count must not be negative")
	case o.duration == 0 && o.count == 0 && !o.reads && !o.notify:
		return fmt.Errorf("nothing to do: set --duration or --count (transfers), --reads or --notify")
	case o.reads && o.readDuration <= 0:
		return fmt.Errorf("--read-duration must be positive")
	case o.notifySamples < 1:
		return fmt.Errorf("--notify-samples must be at least 1")
	case !strings.HasPrefix(o.url, "http://") && !strings.HasPrefix(o.url, "https://"):
		return fmt.Errorf("--url must start with http:// or https://")
	}
	return nil
}

// runBench seeds (or picks) the customers, runs the load, prints the
// figures and checks the invariant.
func (a *app) runBench(ctx context.Context, o *benchOptions) error {
	e, err := a.open(ctx, true)
	if err != nil {
		return err
	}
	defer e.close()
	res := benchResult{URL: o.url}

	if o.checkOnly {
		inv, err := loadtest.CheckInvariants(ctx, e.db, loadtest.InvariantOptions{})
		if err != nil {
			return err
		}
		res.Invariant = inv
		return a.benchPrint(res)
	}
	// Bulk customers share a published password and the load moves money:
	// a test database only.
	if !o.force {
		if err := e.svc.CheckTestDatabase(ctx); err != nil {
			return withForceHint(err)
		}
	}
	if err := waitReady(ctx, o.url, 30*time.Second); err != nil {
		return err
	}

	before, err := loadtest.TakeMark(ctx, e.db)
	if err != nil {
		return err
	}
	var customers []loadtest.Customer
	if o.fromExisting {
		customers, err = loadtest.BulkCustomers(ctx, e.db, 0, o.users, o.seed)
	} else {
		a.say("seeding %d customers with %d account(s) each...", o.users, o.accountsPerUser)
		start := time.Now()
		if err := e.withOwner(ctx, func(owner *sqlx.DB) error {
			_, err := e.svc.SeedBulk(ctx, owner, bank.BulkOptions{Users: o.users, AccountsPerUser: o.accountsPerUser, Seed: o.seed, Force: o.force})
			return err
		}); err != nil {
			return err
		}
		res.SeedSeconds = time.Since(start).Seconds()
		customers, err = loadtest.BulkCustomers(ctx, e.db, before.MaxUserID, 0, 0)
	}
	if err != nil {
		return err
	}
	if len(customers) < 2 || (o.notify && len(customers) < 4) {
		return fmt.Errorf("only %d bulk customers found; seed more (meridian seed --users N) or drop --from-existing", len(customers))
	}
	res.Customers = len(customers)
	load := customers
	var probeA, probeB loadtest.Customer
	if o.notify {
		probeA, probeB, load = customers[0], customers[1], customers[2:]
	}

	mark, err := loadtest.TakeMark(ctx, e.db)
	if err != nil {
		return err
	}
	overdraft := o.overdraftPct
	if overdraft == 0 {
		overdraft = -1 // loadtest: 0 is its default, negative is none
	}
	d, err := loadtest.New(loadtest.Options{
		BaseURL: o.url, Customers: load, Concurrency: o.concurrency, Duration: o.duration, Count: o.count,
		Seed: uint64(o.seed), OverdraftPercent: overdraft, HotAccount: o.hotAccount,
	})
	if err != nil {
		return err
	}
	defer d.Close()
	a.say("signing in %d customers...", len(load))
	start := time.Now()
	if err := d.Login(ctx); err != nil {
		return err
	}
	res.LoginSeconds = time.Since(start).Seconds()

	if o.count > 0 || o.duration > 0 {
		if o.count > 0 {
			a.say("sending %d transfers from %d clients...", o.count, o.concurrency)
		} else {
			a.say("sending transfers from %d clients for %s...", o.concurrency, o.duration)
		}
		if res.Transfers, err = d.RunTransfers(ctx); err != nil {
			return err
		}
		if res.Transfers.Uncertain > 0 {
			a.say("settling %d transfers whose outcome is unknown (same Idempotency-Key)...", res.Transfers.Uncertain)
			rctx, cancel := context.WithTimeout(ctx, time.Minute)
			res.Resolution, err = d.Resolve(rctx)
			cancel()
			if err != nil {
				return err
			}
		}
	}
	if o.reads {
		a.say("reading history and dashboards from %d clients for %s...", o.concurrency, o.readDuration)
		if res.Reads, err = d.RunReads(ctx, o.readDuration); err != nil {
			return err
		}
	}
	committed := d.Committed()
	probeOK := true
	if o.notify {
		a.say("timing %d WebSocket pushes...", o.notifySamples)
		res.Notify, err = loadtest.ProbeNotifications(ctx, loadtest.NotifyOptions{BaseURL: o.url, A: probeA, B: probeB, Samples: o.notifySamples})
		if err != nil {
			return err
		}
		committed = append(committed, res.Notify.Committed...)
		probeOK = res.Notify.TransferErrors == 0
	}

	// Exact only when every outcome is known and nothing else moved money.
	exact := int64(0)
	if d.Unresolved() == 0 && probeOK {
		exact = mark.MaxTransactionID
		res.ExactChecked = true
	}
	a.say("checking the invariant...")
	res.Invariant, err = loadtest.CheckInvariants(ctx, e.db, loadtest.InvariantOptions{
		ExpectedTotal: &mark.TotalBalance, Committed: committed, ExactSince: exact,
	})
	if err != nil {
		return err
	}
	return a.benchPrint(res)
}

// benchPrint prints the result and fails when the invariant does not hold.
func (a *app) benchPrint(r benchResult) error {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
	rows := [][]string{}
	add := func(k, v string) { rows = append(rows, []string{k, v}) }
	lat := func(prefix string, l loadtest.Latency) {
		add(prefix+" p50", ms(l.P50))
		add(prefix+" p95", ms(l.P95))
		add(prefix+" p99", ms(l.P99))
		add(prefix+" max", ms(l.Max))
	}
	if r.Customers > 0 {
		add("customers", fmt.Sprint(r.Customers))
	}
	if t := r.Transfers; t != nil {
		add("transfer requests", fmt.Sprintf("%d in %.1f s (concurrency %d)", t.Requests, t.Elapsed.Seconds(), t.Concurrency))
		add("transfer requests/s", fmt.Sprintf("%.1f", t.PerSecond))
		add("transfers/s (201)", fmt.Sprintf("%.1f", t.TransfersPerSecond))
		add("answers", statusLine(t.Status))
		add("errors", fmt.Sprint(t.Errors))
		lat("transfer", t.Latency)
		for _, s := range t.ErrorSamples {
			add("error sample", s)
		}
	}
	if res := r.Resolution; res != nil {
		add("unknown outcomes", fmt.Sprintf("%d: %d had committed (replayed), %d committed on retry, %d refused, %d other, %d unresolved",
			res.Uncertain, res.Replayed, res.CommittedNow, res.Refused, res.Other, res.Unresolved))
		add("answers that said nothing changed, yet had committed", fmt.Sprint(res.Lies))
		for _, l := range res.LieSamples {
			add("lie", l)
		}
	}
	if rd := r.Reads; rd != nil {
		add("read requests/s", fmt.Sprintf("%.1f (%d in %.1f s, %d errors)", rd.PerSecond, rd.Requests, rd.Elapsed.Seconds(), rd.Errors))
		for _, ep := range loadtest.ReadEndpoints {
			l := rd.ByEndpoint[ep.Name]
			add(ep.Name+" p50", ms(l.P50))
			add(ep.Name+" p95", ms(l.P95))
			add(ep.Name+" p99", ms(l.P99))
		}
		for _, s := range rd.ErrorSamples {
			add("read error sample", s)
		}
	}
	if n := r.Notify; n != nil {
		add("pushes", fmt.Sprintf("%d of %d received, %d lost, %d before the 201, %d transfer errors", n.Received, n.Samples, n.Lost, n.Early, n.TransferErrors))
		add("push after 201 p50", ms(n.AfterResponse.P50))
		add("push after 201 p99", ms(n.AfterResponse.P99))
		add("push since request p50", ms(n.SinceRequest.P50))
		add("push since request p99", ms(n.SinceRequest.P99))
		for _, s := range n.ErrorSamples {
			add("push transfer error sample", s)
		}
	}
	if inv := r.Invariant; inv != nil {
		add("accounts", fmt.Sprint(inv.Accounts))
		add("ledger rows", fmt.Sprint(inv.LedgerRows))
		add("total balance", inv.TotalBalance.String())
		if inv.CommittedChecked > 0 {
			add("201s found in ledger", fmt.Sprintf("%d of %d", inv.CommittedChecked-len(inv.MissingCommitted), inv.CommittedChecked))
		}
		add("invariant", yesNo(inv.OK, "ok", "FAILED"))
		for _, p := range inv.Problems {
			add("problem", p)
		}
	}
	if err := a.print(r, []string{"METRIC", "VALUE"}, rows); err != nil {
		return err
	}
	if r.Invariant != nil && !r.Invariant.OK {
		return fmt.Errorf("the bank's invariant does not hold: %s", strings.Join(r.Invariant.Problems, "; "))
	}
	if res := r.Resolution; res != nil && res.Lies > 0 {
		return fmt.Errorf("%d answers said that nothing had changed, yet their transfers had committed: %s", res.Lies, strings.Join(res.LieSamples, "; "))
	}
	return nil
}

// statusLine prints answer counts in a stable order: "201: 9500, 422: 480, 500: 2".
func statusLine(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// waitReady waits until GET url/readyz answers 200.
func waitReady(ctx context.Context, url string, timeout time.Duration) error {
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(timeout)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(url, "/")+"/readyz", nil)
		if err != nil {
			return err
		}
		res, err := client.Do(req)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = fmt.Errorf("HTTP %d", res.StatusCode)
			}
			return fmt.Errorf("the server at %s is not ready: %v", url, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}
