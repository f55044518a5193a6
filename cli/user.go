package cli

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"meridian/pkg/bank"
)

func (a *app) userCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "user", Short: "List, create, activate or deactivate users; reset their two-factor sign-in"}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List every user",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := a.open(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer e.close()
			users, err := e.svc.ListUsers(cmd.Context(), bank.CLIActor)
			if err != nil {
				return err
			}
			rows := [][]string{}
			for _, u := range users {
				rows = append(rows, []string{strconv.FormatInt(u.ID, 10), u.Name, u.Email, u.Phone, u.Role, yesNo(u.Status, "Active", "Inactive"), ts(u.Created)})
			}
			return a.print(users, []string{"ID", "NAME", "EMAIL", "PHONE", "ROLE", "STATUS", "CREATED"}, rows)
		},
	})

	var in bank.RegisterInput
	var passwordStdin bool
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a user (a customer, or an admin with --role Admin)",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if passwordStdin {
				line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
				if err != nil && line == "" {
					return fmt.Errorf("no password on standard input")
				}
				in.Password = strings.TrimRight(line, "\r\n")
			}
			if in.Password == "" {
				return usageError{fmt.Errorf("give a password with --password or --password-stdin")}
			}
			e, err := a.open(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer e.close()
			u, err := e.svc.Register(cmd.Context(), bank.CLIActor, in)
			if err != nil {
				return err
			}
			a.say("created user %d (%s, %s)", u.ID, u.Email, u.Role)
			return a.printUsers([]bank.User{u})
		},
	}
	f := create.Flags()
	f.StringVar(&in.FullName, "name", "", "full name (required)")
	f.StringVar(&in.Email, "email", "", "email address (required)")
	f.StringVar(&in.PhoneNumber, "phone", "", "phone number (required)")
	f.StringVar(&in.Password, "password", "", "password, at least 8 characters")
	f.BoolVar(&passwordStdin, "password-stdin", false, "read the password from standard input")
	f.StringVar(&in.Role, "role", "User", "role: User or Admin")
	cmd.AddCommand(create, a.statusCmd("activate", true), a.statusCmd("deactivate", false), a.twoFactorResetCmd())
	return cmd
}

// twoFactorResetCmd turns a user's two-factor sign-in off, for one who lost
// their authenticator and their backup codes.
func (a *app) twoFactorResetCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "2fa-reset <email|id>",
		Short:   "Turn a user's two-factor sign-in off (a lost device); they sign in with the password and may set it up again",
		Example: "  meridian user 2fa-reset alice@meridian.test",
		Args:    args(cobra.ExactArgs(1)),
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
			if err := e.svc.ResetTwoFactor(cmd.Context(), bank.CLIActor, u.ID); err != nil {
				return err
			}
			a.say("turned off two-factor sign-in of user %d (%s)", u.ID, u.Email)
			return a.printUsers([]bank.User{u})
		},
	}
}

func (a *app) statusCmd(name string, active bool) *cobra.Command {
	return &cobra.Command{
		Use:   name + " <email|id>",
		Short: strings.ToUpper(name[:1]) + name[1:] + " a user",
		Args:  args(cobra.ExactArgs(1)),
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
			row, err := e.svc.SetUserActive(cmd.Context(), bank.CLIActor, u.ID, active)
			if err != nil {
				return err
			}
			a.say("%sd user %d (%s)", name, row.ID, row.Email)
			return a.printRows([]bank.AdminUserRow{row})
		},
	}
}

func (a *app) printUsers(us []bank.User) error {
	rows := []bank.AdminUserRow{}
	for _, u := range us {
		rows = append(rows, bank.AdminUserRow{ID: u.ID, Name: u.FullName, Email: u.Email, Phone: u.PhoneNumber, Role: u.Role, Status: u.IsActive, Created: u.CreatedAt})
	}
	return a.printRows(rows)
}

func (a *app) printRows(us []bank.AdminUserRow) error {
	rows := [][]string{}
	for _, u := range us {
		rows = append(rows, []string{strconv.FormatInt(u.ID, 10), u.Name, u.Email, u.Role, yesNo(u.Status, "Active", "Inactive")})
	}
	return a.print(us, []string{"ID", "NAME", "EMAIL", "ROLE", "STATUS"}, rows)
}
