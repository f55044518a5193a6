package cli

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"meridian/pkg/db"
)

func (a *app) migrateCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "migrate", Short: "Apply, roll back or list schema migrations"}
	cmd.AddCommand(&cobra.Command{
		Use:   "up [N]",
		Short: "Apply pending migrations (all, or the next N)",
		Args:  args(cobra.MaximumNArgs(1)),
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
			done, err := db.Up(cmd.Context(), e.db, n)
			a.say("applied %d migration(s) %v", len(done), done)
			return err
		},
	})
	var all bool
	down := &cobra.Command{
		Use:   "down [N]",
		Short: "Roll back the newest N migrations (default 1; --all for every one)",
		Args:  args(cobra.MaximumNArgs(1)),
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
			done, err := db.Down(cmd.Context(), e.db, n)
			a.say("rolled back %d migration(s) %v", len(done), done)
			return err
		},
	}
	down.Flags().BoolVar(&all, "all", false, "roll back every migration")
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
			st, err := db.Status(cmd.Context(), e.db)
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
