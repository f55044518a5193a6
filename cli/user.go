package cli

import (
	"context"
	"strconv"

	"github.com/spf13/cobra"

	"meridian/pkg/bank"
)

func (a *app) userCmd() *cobra.Command {
	return group("user", "List, create, activate or deactivate users; reset their two-factor sign-in; set their daily transfer limit",
		"  meridian user list\n  meridian user create --name 'Ann Admin' --email ann@example.test --phone '+1 555 0100' --password-stdin --role Admin\n  meridian user deactivate ann@example.test\n  meridian user 2fa-reset ann@example.test\n  meridian user limit bob@example.test 500.00",
		a.userListCmd(nil), a.userCreateCmd(nil), a.userStatusCmd("activate", true, nil), a.userStatusCmd("deactivate", false, nil),
		a.userTwoFactorResetCmd(nil), a.userLimitCmd(nil))
}

// connectUser connects (the database or the server, transport.go) and
// finds the user ref names (an email or an id), for the commands that act
// on one user. The caller closes the transport.
func (a *app) connectUser(ctx context.Context, ref string) (*transport, bank.User, error) {
	t, err := a.connect(ctx)
	if err != nil {
		return nil, bank.User{}, err
	}
	u, err := findUser(ctx, t, ref)
	if err != nil {
		t.close()
		return nil, bank.User{}, err
	}
	return t, u, nil
}

// printUsers prints users as every user and role command does: a table, or
// the rows as JSON (--output json).
func (a *app) printUsers(us []bank.AdminUserRow) error {
	rows := [][]string{}
	for _, u := range us {
		rows = append(rows, []string{strconv.FormatInt(u.ID, 10), u.Name, u.Email, u.Phone, u.Role, yesNo(u.Status, "Active", "Inactive"), ts(u.Created)})
	}
	return a.print(us, []string{"ID", "NAME", "EMAIL", "PHONE", "ROLE", "STATUS", "CREATED"}, rows)
}
