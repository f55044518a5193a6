package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"meridian/pkg/bank"
	"meridian/pkg/money"
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
	t, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer t.close()
	rows, err := run(ctx, t, call[[]bank.TrialBalanceRow]{
		Local: func(ctx context.Context, svc *bank.Service) ([]bank.TrialBalanceRow, error) {
			return svc.TrialBalance(ctx, bank.CLIActor)
		},
		Method: http.MethodGet, Path: "/api/admin/ledger/trial-balance",
		Decode: decodeTrialBalance,
	})
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

// decodeTrialBalance reads the API's trial balance, whose balances may be
// negative (an answer's amounts, unlike a request's, may be).
func decodeTrialBalance(body []byte, _ http.Header) ([]bank.TrialBalanceRow, error) {
	var raw []struct {
		Class    string      `json:"class"`
		Currency string      `json:"currency"`
		Balance  json.Number `json:"balance"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, errBadAnswer(err)
	}
	rows := make([]bank.TrialBalanceRow, len(raw))
	for i, r := range raw {
		b, err := money.ParseSigned(r.Balance.String())
		if err != nil {
			return nil, errBadAnswer(err)
		}
		rows[i] = bank.TrialBalanceRow{Class: r.Class, Currency: r.Currency, Balance: b}
	}
	return rows, nil
}
