package cli

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/jmoiron/sqlx"
	"github.com/spf13/cobra"

	"meridian/pkg/db"
)

func (a *app) migrateCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "migrate", Short: "Apply, roll back or list schema migrations"}
	cmd.AddCommand(&cobra.Command{
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
			e, err := a.open(cmd.Context(), false)
			if err != nil {
				return err
			}
			defer e.close()
			done, err := e.migrateUp(cmd.Context(), n)
			a.say("applied %d migration(s) %v", len(done), done)
			return err
		},
	})
	var all, destroy bool
	down := &cobra.Command{
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
			e, err := a.open(cmd.Context(), false)
			if err != nil {
				return err
			}
			defer e.close()
			var done []int
			err = e.withOwner(cmd.Context(), func(owner *sqlx.DB) error {
				var err error
				if destroy {
					done, err = db.DownDestroyingData(cmd.Context(), owner, n)
				} else {
					done, err = db.Down(cmd.Context(), owner, n)
				}
				return err
			})
			if errors.Is(err, db.ErrDestroysData) {
				return fmt.Errorf("%w; nothing was rolled back (pass --destroy-data to delete them)", err)
			}
			a.say("rolled back %d migration(s) %v", len(done), done)
			return err
		},
	}
	down.Flags().BoolVar(&all, "all", false, "roll back every migration (needs --destroy-data)")
	down.Flags().BoolVar(&destroy, "destroy-data", false, "allow rolling back migration 0001, which deletes the audit log and the ledger")
	cmd.AddCommand(down, &cobra.Command{
		Use:   "status",
		Short: "List migrations and whether each is applied",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := a.open(cmd.Context(), false)
			if err != nil {
				return err
			}
			defer e.close()
			var st []db.MigrationStatus
			err = e.withOwner(cmd.Context(), func(owner *sqlx.DB) error {
				st, err = db.Status(cmd.Context(), owner)
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
				rows = append(rows, []string{fmt.Sprintf("%04d", s.Version), s.Name, yesNo(s.Applied, "applied", "pending"), at})
			}
			return a.print(st, []string{"VERSION", "NAME", "STATE", "APPLIED AT"}, rows)
		},
	})
	return cmd
}

// countArg reads an optional positive count argument.
func countArg(as []string, def int) (int, error) {
	if len(as) == 0 {
		return def, nil
	}
	n, err := strconv.Atoi(as[0])
	if err != nil || n < 1 {
		return 0, usageError{fmt.Errorf("N must be a whole number of at least 1, not %q", as[0])}
	}
	return n, nil
}
