package cli

import (
	"context"

	"github.com/spf13/cobra"
)

// migrateUpOptions are the options of `meridian migrate up`: how many
// pending migrations to apply (0: all).
type migrateUpOptions struct {
	n int
}

func (a *app) migrateUpCmd(run runner[migrateUpOptions]) *cobra.Command {
	run = run.or(a.runMigrateUp)
	return &cobra.Command{
		Use:   "up [N]",
		Short: "Apply pending migrations (all, or the next N) as the schema's owner, then grant the runtime role",
		Long: "Apply pending migrations (all, or the next N), connected as the schema's owner (database_owner_url, else database_url;\n" +
			"meridian_owner on the embedded database), then grant database_app_role its runtime privileges: read and write,\n" +
			"but only read and insert on the ledger and the audit tables.",
		Example: "  meridian migrate up\n  MERIDIAN_DATABASE_OWNER_URL=postgres://meridian_owner@db/meridian meridian migrate up",
		Args:    args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, as []string) error {
			n, err := countArg(as, 0)
			if err != nil {
				return err
			}
			return run(cmd.Context(), &migrateUpOptions{n: n})
		},
	}
}

// runMigrateUp applies the migrations and says which.
func (a *app) runMigrateUp(ctx context.Context, o *migrateUpOptions) error {
	e, err := a.open(ctx, false)
	if err != nil {
		return err
	}
	defer e.close()
	done, err := e.migrateUp(ctx, o.n)
	return a.reportMigrated("applied", "applied", done, err)
}
