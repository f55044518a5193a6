package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"meridian/pkg/bank"
)

func (a *app) seedCmd() *cobra.Command {
	var opts bank.BulkOptions
	cmd := &cobra.Command{
		Use:   "seed",
		Short: "Add demo data (default) or bulk data for benchmarks (--users N)",
		Long: "Without --users: add the demo data (one admin, two customers with accounts and history) to an empty database and print the sign-ins.\n" +
			"With --users N: add N customers with --accounts-per-user accounts each and --transfers-per-user transfers, deterministic for a given --seed.",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if opts.Users < 0 || opts.AccountsPerUser < 1 || opts.TransfersPerUser < 0 {
				return usageError{fmt.Errorf("--users and --transfers-per-user must not be negative, --accounts-per-user must be at least 1")}
			}
			e, err := a.open(ctx, true)
			if err != nil {
				return err
			}
			defer e.close()
			if opts.Users == 0 {
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
			stats, err := e.svc.SeedBulk(ctx, opts)
			if err != nil {
				return err
			}
			a.say("seeded in %s", time.Since(start).Round(time.Millisecond))
			return a.print(stats, []string{"USERS", "ACCOUNTS", "LEDGER ROWS"},
				[][]string{{fmt.Sprint(stats.Users), fmt.Sprint(stats.Accounts), fmt.Sprint(stats.LedgerRows)}})
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.Users, "users", 0, "bulk: how many customers to create")
	f.IntVar(&opts.AccountsPerUser, "accounts-per-user", 1, "bulk: accounts per customer")
	f.IntVar(&opts.TransfersPerUser, "transfers-per-user", 0, "bulk: transfers per customer (two ledger rows each)")
	f.Int64Var(&opts.Seed, "seed", 1, "bulk: random seed; the same seed gives the same data")
	return cmd
}
