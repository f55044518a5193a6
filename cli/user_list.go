package cli

import (
	"context"
	"net/http"

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
	t, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer t.close()
	users, err := run(ctx, t, call[[]bank.AdminUserRow]{
		Local: func(ctx context.Context, svc *bank.Service) ([]bank.AdminUserRow, error) {
			return svc.ListUsers(ctx, bank.CLIActor)
		},
		Method: http.MethodGet, Path: "/api/admin/users",
	})
	if err != nil {
		return err
	}
	return a.printUsers(users)
}
