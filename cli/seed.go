package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/spf13/cobra"

	"meridian/pkg/bank"
	"meridian/pkg/db"
	"meridian/pkg/errs"
)

// seedOptions are the options of `meridian seed`: the bulk data to add
// (Users 0: the demo data instead).
type seedOptions struct {
	bulk bank.BulkOptions
}

func (o seedOptions) validate() error {
	if o.bulk.Users < 0 || o.bulk.AccountsPerUser < 1 || o.bulk.TransfersPerUser < 0 {
		return usageError{fmt.Errorf("--users and --transfers-per-user must not be negative, --accounts-per-user must be at least 1")}
	}
	return nil
}

func (a *app) seedCmd(run runner[seedOptions]) *cobra.Command {
	run = run.or(a.runSeed)
	o := &seedOptions{}
	cmd := &cobra.Command{
		Use:   "seed",
		Short: "Add demo data (default) or bulk data for benchmarks (--users N)",
		Long: "Without --users: add the demo data (one admin, two customers with accounts and history) to an empty database and print the sign-ins.\n" +
			"Their passwords are published: only when demo_seed is true (the default on the embedded database, not with database_url).\n" +
			"With --users N: add N customers with --accounts-per-user accounts each and --transfers-per-user transfers, deterministic for a given --seed.\n" +
			"They share a published password too: refused on a database that holds users no seed created, unless --force.",
		Example: "  meridian seed\n  meridian seed --users 100000 --transfers-per-user 5 --seed 7",
		Args:    args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return run(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.bulk.Users, "users", 0, "bulk: how many customers to create")
	f.IntVar(&o.bulk.AccountsPerUser, "accounts-per-user", 1, "bulk: accounts per customer")
	f.IntVar(&o.bulk.TransfersPerUser, "transfers-per-user", 0, "bulk: transfers per customer (two ledger rows each)")
	f.Int64Var(&o.bulk.Seed, "seed", 1, "bulk: random seed; the same seed gives the same data")
	f.BoolVar(&o.bulk.Force, "force", false, "bulk: seed even a database that holds users no seed created")
	return cmd
}

// runSeed adds the demo data and prints its sign-ins, or the bulk data and
// prints how much.
func (a *app) runSeed(ctx context.Context, o *seedOptions) error {
	e, err := a.open(ctx, true)
	if err != nil {
		return err
	}
	defer e.close()
	if o.bulk.Users == 0 {
		if !e.cfg.DemoSeed {
			return fmt.Errorf("demo data has published passwords and is added only when demo_seed is true (by default only on the embedded database); pass --demo-seed true to add it here")
		}
		created, err := e.svc.SeedDemo(ctx)
		if err != nil {
			return err
		}
		if !created {
			a.say("the database already has users; demo data not added")
		}
		rows := [][]string{}
		for _, s := range bank.DemoSignIns {
			rows = append(rows, []string{s.Role, s.Email, s.Password})
		}
		return a.print(bank.DemoSignIns, []string{"ROLE", "EMAIL", "PASSWORD"}, rows)
	}
	start := time.Now()
	// As the schema's owner: the bulk ledger rows go in directly, which the
	// runtime role may not do.
	var stats bank.BulkStats
	err = e.withOwner(ctx, func(owner *sqlx.DB) error {
		var err error
		if stats, err = e.svc.SeedBulk(ctx, owner, o.bulk); err != nil {
			return err
		}
		// Statistics for the new rows; only the tables' owner may.
		if err := db.VacuumAnalyze(ctx, owner, "users", "accounts", "transactions"); err != nil {
			e.log.Warn("vacuum after the bulk load", "err", err)
		}
		return nil
	})
	if err != nil {
		return withForceHint(err)
	}
	a.say("seeded in %s", time.Since(start).Round(time.Millisecond))
	return a.print(stats, []string{"USERS", "ACCOUNTS", "LEDGER ROWS"},
		[][]string{{fmt.Sprint(stats.Users), fmt.Sprint(stats.Accounts), fmt.Sprint(stats.LedgerRows)}})
}

// withForceHint tells how to go past a refusal to load test data into a
// database with real users.
func withForceHint(err error) error {
	var e *errs.Error
	if errors.As(err, &e) && e.Code == "not_a_test_database" {
		return fmt.Errorf("%s; pass --force if this really is a test database", e.Message)
	}
	return err
}
