package cli

import (
	"context"

	"github.com/spf13/cobra"

	"meridian/pkg/bank"
)

// userTwoFactorResetOptions are the options of `meridian user 2fa-reset`:
// which user, by email or id.
type userTwoFactorResetOptions struct {
	ref string
}

// userTwoFactorResetCmd turns a user's two-factor sign-in off, for one who
// lost their authenticator and their backup codes.
func (a *app) userTwoFactorResetCmd(run runner[userTwoFactorResetOptions]) *cobra.Command {
	run = run.or(a.runUserTwoFactorReset)
	return &cobra.Command{
		Use:     "2fa-reset <email|id>",
		Short:   "Turn a user's two-factor sign-in off (a lost device); they sign in with the password and may set it up again",
		Example: "  meridian user 2fa-reset alice@meridian.test\n  meridian user 2fa-reset 42",
		Args:    args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, as []string) error {
			return run(cmd.Context(), &userTwoFactorResetOptions{ref: as[0]})
		},
	}
}

// runUserTwoFactorReset turns the user's two-factor sign-in off and prints them.
func (a *app) runUserTwoFactorReset(ctx context.Context, o *userTwoFactorResetOptions) error {
	e, err := a.open(ctx, true)
	if err != nil {
		return err
	}
	defer e.close()
	u, err := e.svc.FindUser(ctx, o.ref)
	if err != nil {
		return err
	}
	if err := e.svc.ResetTwoFactor(ctx, bank.CLIActor, u.ID); err != nil {
		return err
	}
	a.say("turned off two-factor sign-in of user %d (%s)", u.ID, u.Email)
	return a.printUsers([]bank.AdminUserRow{bank.AdminRow(u)})
}
