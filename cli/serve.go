package cli

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"meridian/pkg/bank"
	"meridian/pkg/tracing"
	"meridian/server"
)

// serveOptions are the options of `meridian serve` (none of its own: it
// takes the configuration).
type serveOptions struct{}

func (a *app) serveCmd(run runner[serveOptions]) *cobra.Command {
	run = run.or(a.runServe)
	return &cobra.Command{
		Use:   "serve",
		Short: "Serve the API, the WebSocket and the web app on one port",
		Example: "  meridian serve\n" +
			"  meridian serve --addr :9090 --database-url postgres://meridian_app@db/meridian",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), &serveOptions{}) // the context ends at SIGINT/SIGTERM: then serve stops
		},
	}
}

// runServe serves until ctx ends, then shuts down in order: the requests in
// flight, the WebSockets, the background jobs, the database.
func (a *app) runServe(ctx context.Context, _ *serveOptions) error {
	started := time.Now()
	cfg, err := a.config()
	if err != nil {
		return err
	}
	// Traces (otel_endpoint; off by default): set up before the pools,
	// whose statements they record; the last spans are sent at the end.
	tr, err := tracing.Setup(tracing.Options{Endpoint: cfg.OtelEndpoint, SampleRatio: cfg.OtelSampleRatio, Version: Version, Instance: cfg.Addr})
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := tr.Shutdown(sctx); err != nil {
			a.logger(cfg).Warn("sending the last traces", "err", err)
		}
	}()
	e, err := a.openServe(ctx, tr.Tracer())
	if err != nil {
		return err
	}
	defer e.close() // last: the database closes after everything that uses it has stopped
	// Demo users have published passwords: only when demo_seed is
	// true (by default only on the embedded database).
	demo := false
	if e.cfg.DemoSeed {
		seeded, err := e.svc.SeedDemo(ctx)
		if err != nil {
			return fmt.Errorf("seeding demo data: %w", err)
		}
		if seeded {
			e.log.Info("seeded demo data")
		}
		if demo, err = e.svc.HasDemoUsers(ctx); err != nil {
			return err
		}
	}
	// The background jobs outlive the signal until the requests in
	// flight are done: their notifications still reach the WebSockets.
	bgctx, stopBackground := context.WithCancel(context.WithoutCancel(ctx))
	var bg sync.WaitGroup
	defer func() { stopBackground(); bg.Wait() }()
	hub := server.NewHub(e.svc, e.log)
	if e.reads.HasReplicas() {
		// The replicas' state before the first request, then every second.
		mctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		if err := e.reads.Measure(mctx); err != nil {
			e.log.Warn("measuring the read replicas", "err", err)
		}
		cancel()
		bg.Add(1)
		go func() { defer bg.Done(); e.reads.RunMonitor(bgctx, time.Second, e.log) }()
	}
	bg.Add(5)
	// The sealer numbers committed audit rows and notifications in
	// commit order; the hub pushes the sealed notifications.
	go func() { defer bg.Done(); e.svc.RunSealer(bgctx, e.cfg.SealInterval, e.log) }()
	go func() {
		defer bg.Done()
		if err := hub.Listen(bgctx, e.listenDSN); err != nil {
			e.log.Error("notification listener stopped", "err", err)
		}
	}()
	go func() { defer bg.Done(); e.svc.RunExpiry(bgctx, e.cfg.ExpiryInterval, e.log) }()
	// Scheduled transfers: every due occurrence, exactly once across
	// instances; stopped with the other jobs, before the database closes.
	go func() { defer bg.Done(); e.svc.RunScheduler(bgctx, e.cfg.SchedulerInterval, e.log) }()
	// Sessions' last use, written in the background in one UPDATE
	// per flush, never by the requests themselves.
	go func() { defer bg.Done(); e.svc.RunSessionsSeen(bgctx, 15*time.Second, e.log) }()
	// Interest: each day's accrual and each month's payment, once per
	// account whatever the instances (interest.go).
	bg.Add(1)
	go func() { defer bg.Done(); e.svc.RunInterestEvery(bgctx, bank.InterestEvery, e.log) }()
	// Webhooks, from their sealed feed, never inside a money transaction.
	bg.Add(1)
	go func() { defer bg.Done(); e.svc.RunWebhooks(bgctx, time.Second, e.log) }()
	// Signed checkpoints of the audit chain's head, outside the database.
	bg.Add(1)
	go func() { defer bg.Done(); e.svc.RunAnchors(bgctx, e.cfg.AnchorInterval, e.cfg.AnchorDir, e.log) }()
	// Push notifications to the phones of users with no socket open
	// (push_url; empty: none), and which users have one here.
	bg.Add(2)
	go func() { defer bg.Done(); hub.RunPresence(bgctx) }()
	go func() {
		defer bg.Done()
		e.svc.RunPusher(bgctx, bank.PushOptions{URL: e.cfg.PushURL, Log: e.log, Live: hub.LiveHere})
	}()

	ln, err := net.Listen("tcp", e.cfg.Addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s (addr): %w", e.cfg.Addr, err)
	}
	srv := server.New(e.svc, hub, server.Options{Logger: e.log, Version: Version, RequestTimeout: e.cfg.RequestTimeout,
		TrustedProxies: e.cfg.TrustedProxies, AllowedOrigins: e.cfg.AllowedOrigins, WSMaxPerUser: e.cfg.WSMaxPerUser, AnchorDir: e.cfg.AnchorDir,
		WSQueryToken: e.cfg.WSQueryToken, Tracer: tr.Tracer(), OAuthIssuer: e.cfg.OAuthIssuer})
	if tr.On() {
		e.log.Info("tracing: spans go to otel_endpoint", "otel_endpoint", e.cfg.OtelEndpoint, "otel_sample_ratio", e.cfg.OtelSampleRatio)
	}
	if err := watch(bgctx, e, srv.Metrics(), &bg); err != nil {
		e.log.Warn("backup and database figures in /metrics", "err", err)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	a.printBanner(ln.Addr(), e, demo, time.Since(started))
	select {
	case <-ctx.Done():
	case err := <-errc:
		return err
	}
	// First, with shutdown_delay, keep serving while /readyz says we stop:
	// the balancer takes this instance out before it stops accepting.
	if d := e.cfg.ShutdownDelay; d > 0 {
		srv.Stopping()
		e.log.Info("stopping: /readyz answers 503 while requests are still served", "shutdown_delay", d)
		time.Sleep(d)
	}
	// Stop accepting, finish the requests in flight (each ends by
	// request_timeout), close the WebSockets with 1001; then the
	// deferred calls stop the background jobs and close the database.
	e.log.Info("shutting down")
	sctx, scancel := context.WithTimeout(context.Background(), e.cfg.RequestTimeout+5*time.Second)
	defer scancel()
	if err := srv.Shutdown(sctx); err != nil {
		e.log.Warn("shutdown", "err", err)
	}
	return nil
}

// serving is what serve prints with --output json once it listens.
type serving struct {
	URL          string  `json:"url"`
	Database     string  `json:"database"`
	ReadySeconds float64 `json:"ready_seconds"`
	DemoSignIns  any     `json:"demo_sign_ins"` // bank.DemoSignIns, or [] without demo data
}

// printBanner tells a person where Meridian runs and, with demo data
// seeded, how to sign in (--output json: the same as one JSON object).
func (a *app) printBanner(addr net.Addr, e *env, demo bool, took time.Duration) {
	host, port, _ := net.SplitHostPort(addr.String())
	if host == "" || host == "::" || host == "0.0.0.0" {
		host = "localhost"
	}
	url := "http://" + net.JoinHostPort(host, port)
	db := "PostgreSQL at database_url"
	if e.cluster != nil {
		db = "embedded PostgreSQL in " + e.cluster.PGData()
	}
	if a.output == "json" {
		s := serving{URL: url, Database: db, ReadySeconds: took.Seconds(), DemoSignIns: []struct{}{}}
		if demo {
			s.DemoSignIns = bank.DemoSignIns
		}
		if err := a.print(s, nil, nil); err != nil {
			e.log.Warn("printing the banner", "err", err)
		}
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nMeridian is running at %s  (ready in %s, %s)\n", url, took.Round(time.Millisecond), db)
	if demo {
		b.WriteString("Demo sign-ins (email / password):\n")
		for _, s := range bank.DemoSignIns {
			fmt.Fprintf(&b, "  %-6s %-22s %s\n", s.Role, s.Email, s.Password)
		}
	}
	b.WriteString("Press Ctrl-C to stop.\n")
	fmt.Fprint(a.stdout, b.String())
}
