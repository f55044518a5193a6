package cli

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"meridian/pkg/bank"
)

// userCreateOptions are the options of `meridian user create`: the new
// user, whose password came from --password or standard input.
type userCreateOptions struct {
	in            bank.RegisterInput
	passwordStdin bool
}

func (a *app) userCreateCmd(run runner[userCreateOptions]) *cobra.Command {
	run = run.or(a.runUserCreate)
	o := &userCreateOptions{}
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Create a user (a customer, or an admin with --role Admin)",
		Example: "  meridian user create --name 'Cy Cole' --email cy@example.test --phone '+1 555 0101' --password-stdin < password.txt\n" +
			"  meridian user create --name 'Ann Admin' --email ann@example.test --phone '+1 555 0100' --password 'a long secret' --role Admin",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.passwordStdin {
				line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
				if err != nil && line == "" {
					return fmt.Errorf("no password on standard input")
				}
				o.in.Password = strings.TrimRight(line, "\r\n")
			}
			if o.in.Password == "" {
				return usageError{fmt.Errorf("give a password with --password or --password-stdin")}
			}
			return run(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.in.FullName, "name", "", "full name (required)")
	f.StringVar(&o.in.Email, "email", "", "email address (required)")
	f.StringVar(&o.in.PhoneNumber, "phone", "", "phone number (required)")
	f.StringVar(&o.in.Password, "password", "", "password, at least 8 characters")
	f.BoolVar(&o.passwordStdin, "password-stdin", false, "read the password from standard input")
	f.StringVar(&o.in.Role, "role", "User", "role: User or Admin")
	return cmd
}

// runUserCreate registers the user (audited as done from the CLI) and
// prints it.
func (a *app) runUserCreate(ctx context.Context, o *userCreateOptions) error {
	e, err := a.open(ctx, true)
	if err != nil {
		return err
	}
	defer e.close()
	u, err := e.svc.Register(ctx, bank.CLIActor, o.in)
	if err != nil {
		return err
	}
	a.say("created user %d (%s, %s)", u.ID, u.Email, u.Role)
	return a.printUsers([]bank.AdminUserRow{bank.AdminRow(u)})
}
