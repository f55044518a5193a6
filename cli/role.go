package cli

import (
	"context"
	"net/http"

	"github.com/spf13/cobra"

	"meridian/pkg/bank"
)

func (a *app) roleCmd() *cobra.Command {
	return group("role", "Assign roles", "  meridian role assign cy@example.test Admin", a.roleAssignCmd(nil))
}

// roleAssignOptions are the options of `meridian role assign`: which user,
// by email or id, and their one role.
type roleAssignOptions struct {
	ref  string
	role string
}

func (a *app) roleAssignCmd(run runner[roleAssignOptions]) *cobra.Command {
	run = run.or(a.runRoleAssign)
	return &cobra.Command{
		Use:       "assign <email|id> <Admin|User>",
		Short:     "Give a user exactly one role",
		Example:   "  meridian role assign cy@example.test Admin\n  meridian role assign 42 User",
		Args:      args(cobra.ExactArgs(2)),
		ValidArgs: []string{bank.RoleAdmin, bank.RoleUser},
		RunE: func(cmd *cobra.Command, as []string) error {
			return run(cmd.Context(), &roleAssignOptions{ref: as[0], role: as[1]})
		},
	}
}

// runRoleAssign gives the user the role and prints them.
func (a *app) runRoleAssign(ctx context.Context, o *roleAssignOptions) error {
	t, u, err := a.connectUser(ctx, o.ref)
	if err != nil {
		return err
	}
	defer t.close()
	row, err := run(ctx, t, call[bank.AdminUserRow]{
		Local: func(ctx context.Context, svc *bank.Service) (bank.AdminUserRow, error) {
			return svc.AssignRole(ctx, bank.CLIActor, u.ID, []string{o.role})
		},
		Method: http.MethodPost, Path: "/api/admin/assign-roles", Body: map[string]any{"user_id": u.ID, "roles": []string{o.role}}, Field: "user",
	})
	if err != nil {
		return err
	}
	a.say("assigned role %s to user %d (%s)", row.Role, row.ID, row.Email)
	return a.printUsers([]bank.AdminUserRow{row})
}
