package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"meridian/pkg/bank"
)

func (a *app) ledgerCmd() *cobra.Command {
	return group("ledger", "Check the books", "  meridian ledger trial-balance", a.trialBalanceCmd(nil))
}

// trialBalanceOptions are the options of `meridian ledger trial-balance`
// (none of its own).
type trialBalanceOptions struct{}

func (a *app) trialBalanceCmd(run runner[trialBalanceOptions]) *cobra.Command {
	run = run.or(a.runTrialBalance)
	return &cobra.Command{
		Use:   "trial-balance",
		Short: "Print what each class of account holds per currency; exit 1 when a currency does not sum to zero",
		Example: "  meridian ledger trial-balance\n" +
			"  meridian ledger trial-balance -o json   # [{\"class\", \"currency\", \"balance\"}]",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), &trialBalanceOptions{})
		},
	}
}

// runTrialBalance prints the trial balance; books that do not balance are
// a failure (exit 1) naming each currency and its sum.
func (a *app) runTrialBalance(ctx context.Context, _ *trialBalanceOptions) error {
	e, err := a.open(ctx, true)
	if err != nil {
		return err
	}
	defer e.close()
	rows, err := e.svc.TrialBalance(ctx, bank.CLIActor)
	if err != nil {
		return err
	}
	table := make([][]string, len(rows))
	for i, r := range rows {
		table[i] = []string{r.Class, r.Currency, r.Balance.String()}
	}
	if err := a.print(rows, []string{"CLASS", "CURRENCY", "BALANCE"}, table); err != nil {
		return err
	}
	bad := bank.Unbalanced(rows)
	if len(bad) == 0 {
		a.say("the books balance: every currency sums to zero")
		return nil
	}
	var parts []string
	for c, v := range bad {
		parts = append(parts, fmt.Sprintf("%s sums to %s", c, v))
	}
	sort.Strings(parts)
	return fmt.Errorf("the books do not balance: %s", strings.Join(parts, "; "))
}
