package cli

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/spf13/cobra"

	"meridian/pkg/db"
)

// migrateStatusOptions are the options of `meridian migrate status` (none
// of its own).
type migrateStatusOptions struct{}

func (a *app) migrateStatusCmd(run runner[migrateStatusOptions]) *cobra.Command {
	run = run.or(a.runMigrateStatus)
	return &cobra.Command{
		Use:     "status",
		Short:   "List migrations and function files, and whether each is applied",
		Example: "  meridian migrate status\n  meridian migrate status -o json",
		Args:    args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), &migrateStatusOptions{})
		},
	}
}

// runMigrateStatus prints every migration and whether it is applied.
func (a *app) runMigrateStatus(ctx context.Context, _ *migrateStatusOptions) error {
	e, err := a.open(ctx, false)
	if err != nil {
		return err
	}
	defer e.close()
	var st []db.MigrationStatus
	err = e.withOwner(ctx, func(owner *sqlx.DB) error {
		st, err = db.Status(ctx, owner)
		return err
	})
	if err != nil {
		return err
	}
	rows := [][]string{}
	for _, s := range st {
		at := "-"
		if s.AppliedAt != nil {
			at = ts(*s.AppliedAt)
		}
		version := fmt.Sprintf("%04d", s.Version)
		if s.Function {
			version = "fn" // a file of migrations/functions: pending when its text changed
		}
		rows = append(rows, []string{version, s.Name, yesNo(s.Applied, "applied", "pending"), at})
	}
	return a.print(st, []string{"VERSION", "NAME", "STATE", "APPLIED AT"}, rows)
}
