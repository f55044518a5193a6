package cli

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/spf13/cobra"

	"meridian/pkg/bank"
)

// userStatusOptions are the options of `meridian user activate` and
// `deactivate`: which user, by email or id, and the state to give them.
type userStatusOptions struct {
	ref    string
	active bool
}

// userStatusCmd is `user activate` (active) or `user deactivate`.
func (a *app) userStatusCmd(name string, active bool, run runner[userStatusOptions]) *cobra.Command {
	run = run.or(a.runUserStatus)
	return &cobra.Command{
		Use:     name + " <email|id>",
		Short:   strings.ToUpper(name[:1]) + name[1:] + " a user",
		Example: "  meridian user " + name + " cy@example.test\n  meridian user " + name + " 42",
		Args:    args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, as []string) error {
			return run(cmd.Context(), &userStatusOptions{ref: as[0], active: active})
		},
	}
}

// runUserStatus activates or deactivates the user and prints them.
func (a *app) runUserStatus(ctx context.Context, o *userStatusOptions) error {
	t, u, err := a.connectUser(ctx, o.ref)
	if err != nil {
		return err
	}
	defer t.close()
	row, err := run(ctx, t, call[bank.AdminUserRow]{
		Local: func(ctx context.Context, svc *bank.Service) (bank.AdminUserRow, error) {
			return svc.SetUserActive(ctx, bank.CLIActor, u.ID, o.active)
		},
		Method: http.MethodPut, Path: fmt.Sprintf("/api/admin/users/%d/status", u.ID), Body: map[string]bool{"is_active": o.active},
	})
	if err != nil {
		return err
	}
	a.say("%s user %d (%s)", yesNo(o.active, "activated", "deactivated"), row.ID, row.Email)
	return a.printUsers([]bank.AdminUserRow{row})
}
