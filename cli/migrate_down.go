package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/spf13/cobra"

	"meridian/pkg/db"
)

// migrateDownOptions are the options of `meridian migrate down`: how many
// migrations to roll back, and whether rolling back 0001 (which deletes the
// audit log and the ledger) is allowed.
type migrateDownOptions struct {
	n       int
	destroy bool
}

func (a *app) migrateDownCmd(run runner[migrateDownOptions]) *cobra.Command {
	run = run.or(a.runMigrateDown)
	var all bool
	o := &migrateDownOptions{}
	cmd := &cobra.Command{
		Use:   "down [N]",
		Short: "Roll back the newest N migrations (default 1; --all for every one)",
		Long: "Roll back the newest N migrations (default 1; --all for every one), as the schema's owner.\n" +
			"Rolling back migration 0001 deletes the audit log and the ledger: it is refused unless --destroy-data.",
		Example: "  meridian migrate down\n  meridian migrate down --all --destroy-data   # a test database only",
		Args:    args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, as []string) error {
			n, err := countArg(as, 1)
			if err != nil {
				return err
			}
			if all {
				n = 1 << 30
			}
			o.n = n
			return run(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "roll back every migration (needs --destroy-data)")
	cmd.Flags().BoolVar(&o.destroy, "destroy-data", false, "allow rolling back migration 0001, which deletes the audit log and the ledger")
	return cmd
}

// runMigrateDown rolls the migrations back as the owner and says which.
func (a *app) runMigrateDown(ctx context.Context, o *migrateDownOptions) error {
	e, err := a.open(ctx, false)
	if err != nil {
		return err
	}
	defer e.close()
	var done []int
	err = e.withOwner(ctx, func(owner *sqlx.DB) error {
		var err error
		if o.destroy {
			done, err = db.DownDestroyingData(ctx, owner, o.n)
		} else {
			done, err = db.Down(ctx, owner, o.n)
		}
		return err
	})
	if errors.Is(err, db.ErrDestroysData) {
		return fmt.Errorf("%w; nothing was rolled back (pass --destroy-data to delete them)", err)
	}
	return a.reportMigrated("rolled back", "rolled_back", done, err)
}
