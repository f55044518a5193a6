package cli

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"meridian/pkg/bank"
	"meridian/pkg/money"
)

// userLimitOptions are the options of `meridian user limit`: which user, by
// email or id, and their daily transfer limit (nil: the configured default).
type userLimitOptions struct {
	ref   string
	limit *money.Amount
}

// parseLimitArgs reads <email|id> <amount|default>; an amount that is not
// one is a usage error (exit 2).
func parseLimitArgs(as []string) (userLimitOptions, error) {
	o := userLimitOptions{ref: as[0]}
	if strings.EqualFold(as[1], "default") {
		return o, nil
	}
	v, err := money.Parse(as[1])
	if err != nil {
		return o, usageError{fmt.Errorf("%q is not an amount: give a number of 0 or more with at most two decimals, like 500.00, or default", as[1])}
	}
	o.limit = &v
	return o, nil
}

// userLimitCmd sets a user's daily transfer limit.
func (a *app) userLimitCmd(run runner[userLimitOptions]) *cobra.Command {
	run = run.or(a.runUserLimit)
	return &cobra.Command{
		Use:   "limit <email|id> <amount|default>",
		Short: "Set what a customer may send to others per currency per UTC day; default: the configured daily_transfer_limit",
		Example: "  meridian user limit bob@meridian.test 500.00\n  meridian user limit 42 0          # no payments to others today\n" +
			"  meridian user limit 42 default    # back to daily_transfer_limit",
		Args: args(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, as []string) error {
			o, err := parseLimitArgs(as)
			if err != nil {
				return err
			}
			return run(cmd.Context(), &o)
		},
	}
}

// runUserLimit sets the limit (audited as done from the CLI) and prints it.
func (a *app) runUserLimit(ctx context.Context, o *userLimitOptions) error {
	t, u, err := a.connectUser(ctx, o.ref)
	if err != nil {
		return err
	}
	defer t.close()
	l, err := run(ctx, t, call[bank.UserLimit]{
		Local: func(ctx context.Context, svc *bank.Service) (bank.UserLimit, error) {
			return svc.SetDailyLimit(ctx, bank.CLIActor, u.ID, o.limit)
		},
		Method: http.MethodPut, Path: fmt.Sprintf("/api/admin/users/%d/limits", u.ID), Body: map[string]*money.Amount{"daily_transfer_limit": o.limit},
	})
	if err != nil {
		return err
	}
	if l.Approval != nil {
		a.sayApproval(fmt.Sprintf("raising the daily transfer limit of %s", u.Email), *l.Approval)
		return a.printApproval(*l.Approval)
	}
	a.say("set the daily transfer limit of user %d (%s) to %s in each currency", u.ID, u.Email, l.DailyTransferLimit)
	return a.print(l, []string{"ID", "EMAIL", "DAILY LIMIT", "DEFAULT"},
		[][]string{{strconv.FormatInt(u.ID, 10), u.Email, l.DailyTransferLimit.String(), yesNo(l.Default, "yes", "no")}})
}
