package cli

import (
	"github.com/spf13/cobra"

	"meridian/pkg/bank"
)

func (a *app) roleCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "role", Short: "Assign roles"}
	cmd.AddCommand(&cobra.Command{
		Use:       "assign <email|id> <Admin|User>",
		Short:     "Give a user exactly one role",
		Args:      args(cobra.ExactArgs(2)),
		ValidArgs: []string{bank.RoleAdmin, bank.RoleUser},
		RunE: func(cmd *cobra.Command, as []string) error {
			e, err := a.open(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer e.close()
			u, err := e.svc.FindUser(cmd.Context(), as[0])
			if err != nil {
				return err
			}
			row, err := e.svc.AssignRole(cmd.Context(), bank.CLIActor, u.ID, []string{as[1]})
			if err != nil {
				return err
			}
			a.say("assigned role %s to user %d (%s)", row.Role, row.ID, row.Email)
			return a.printUsers([]bank.AdminUserRow{row})
		},
	})
	return cmd
}
