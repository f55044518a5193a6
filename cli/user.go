package cli

import (
	"strconv"

	"github.com/spf13/cobra"

	"meridian/pkg/bank"
)

func (a *app) userCmd() *cobra.Command {
	return group("user", "List, create, activate or deactivate users",
		"  meridian user list\n  meridian user create --name 'Ann Admin' --email ann@example.test --phone '+1 555 0100' --password-stdin --role Admin\n  meridian user deactivate ann@example.test",
		a.userListCmd(nil), a.userCreateCmd(nil), a.userStatusCmd("activate", true, nil), a.userStatusCmd("deactivate", false, nil))
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
