package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/spf13/cobra"

	"meridian/pkg/bank"
	"meridian/pkg/money"
)

func (a *app) accountCmd() *cobra.Command {
	return group("account", "Move money into or out of a customer's account",
		"  meridian account deposit 100200300 250.00\n  meridian account withdraw 100200300 40",
		a.fundsCmd(true, nil), a.fundsCmd(false, nil))
}

// fundsOptions are the options of account deposit (Deposit) and account
// withdraw.
type fundsOptions struct {
	Deposit     bool
	Number      string
	Amount      money.Amount
	Description string
	// Key is --idempotency-key: the same key again answers the first
	// result and moves nothing (empty: one is made, and printed when the
	// outcome could not be confirmed).
	Key string
}

// parseFundsArgs reads <number> <amount>; an amount that is not one is a
// usage error (exit 2).
func parseFundsArgs(as []string, description, key string) (fundsOptions, error) {
	amount, err := money.Parse(as[1])
	if err != nil {
		return fundsOptions{}, usageError{fmt.Errorf("%q is not an amount: give a positive number with at most two decimals, like 250.00", as[1])}
	}
	return fundsOptions{Number: as[0], Amount: amount, Description: description, Key: key}, nil
}

func (a *app) fundsCmd(deposit bool, run runner[fundsOptions]) *cobra.Command {
	run = run.or(a.runFunds)
	use, short, example := "deposit", "Deposit money into an account (a CREDIT, audited; the holder is told)",
		"  meridian account deposit 100200300 250.00 --description \"Cash at the branch\""
	if !deposit {
		use, short, example = "withdraw", "Withdraw money from an account (a DEBIT, audited; the holder is told)",
			"  meridian account withdraw 100200300 40 -o json"
	}
	var description, key string
	cmd := &cobra.Command{
		Use:     use + " <account-number> <amount>",
		Short:   short,
		Example: example,
		Args:    args(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, as []string) error {
			o, err := parseFundsArgs(as, description, key)
			if err != nil {
				return err
			}
			o.Deposit = deposit
			return run(cmd.Context(), &o)
		},
	}
	cmd.Flags().StringVar(&description, "description", "", "what the ledger row says (default: Deposit or Withdrawal)")
	cmd.Flags().StringVar(&key, "idempotency-key", "", "makes a retry safe: the same key again answers the first result and moves nothing")
	return cmd
}

// runFunds deposits or withdraws (audited as done from the CLI) and prints
// the ledger row.
func (a *app) runFunds(ctx context.Context, o *fundsOptions) error {
	tr, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer tr.close()
	use := "deposit"
	if !o.Deposit {
		use = "withdraw"
	}
	in := bank.FundsInput{Amount: o.Amount, Description: o.Description}
	res, err := run(ctx, tr, call[bank.TransferResult]{
		Local: func(ctx context.Context, svc *bank.Service) (bank.TransferResult, error) {
			if o.Deposit {
				return svc.Deposit(ctx, bank.CLIActor, o.Number, in, o.Key)
			}
			return svc.Withdraw(ctx, bank.CLIActor, o.Number, in, o.Key)
		},
		Method: http.MethodPost, Path: "/api/admin/accounts/" + url.PathEscape(o.Number) + "/" + use, Body: in, Key: o.Key,
		Decode: func(body []byte, h http.Header) (bank.TransferResult, error) {
			if ap := waitingApproval(body); ap != nil {
				return bank.TransferResult{Approval: ap}, nil
			}
			res := bank.TransferResult{Posted: postedAnswer(body, h)}
			return res, json.Unmarshal(body, &res.Transaction)
		},
	})
	if err != nil {
		return err
	}
	if res.Approval != nil {
		a.sayApproval(fmt.Sprintf("this %s of %s", use, o.Amount), *res.Approval)
		return a.printApproval(*res.Approval)
	}
	t := res.Transaction
	if res.Replayed {
		use += " (already done under this --idempotency-key; nothing moved now)"
	}
	a.say("%s: transaction %d, %s %s on account %s", use, t.ID, t.TransactionType, t.Amount, t.AccountID)
	return a.print(t, []string{"ID", "DATE", "TYPE", "AMOUNT", "ACCOUNT", "DESCRIPTION"},
		[][]string{{strconv.FormatInt(t.ID, 10), ts(t.TransactionDate), t.TransactionType, t.Amount.String(), t.AccountID, t.Description}})
}
