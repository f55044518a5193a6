package cli

import (
	"context"

	"github.com/spf13/cobra"

	"meridian/pkg/bank"
)

// userListOptions are the options of `meridian user list` (none of its own).
type userListOptions struct{}

func (a *app) userListCmd(run runner[userListOptions]) *cobra.Command {
	run = run.or(a.runUserList)
	return &cobra.Command{
		Use:     "list",
		Short:   "List every user",
		Example: "  meridian user list\n  meridian user list -o json",
		Args:    args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), &userListOptions{})
		},
	}
}

// runUserList prints every user, newest first.
func (a *app) runUserList(ctx context.Context, _ *userListOptions) error {
	e, err := a.open(ctx, true)
	if err != nil {
		return err
	}
	defer e.close()
	users, err := e.svc.ListUsers(ctx, bank.CLIActor)
	if err != nil {
		return err
	}
	return a.printUsers(users)
}
