package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"meridian/pkg/bank"
)

// The bank's books from the command line (contract §8): exchange rates,
// reversals, approvals, interest and account types' rates. Each command
// calls the pkg/bank service the API calls.

// printApproval prints an approval an action became (it waits for a second
// administrator) or was decided as. Exit 0: asking is what the command did.
func (a *app) printApproval(ap bank.Approval) error {
	return a.print(ap, []string{"APPROVAL", "KIND", "STATUS", "SUMMARY", "REQUESTED", "EXPIRES"},
		[][]string{{strconv.FormatInt(ap.ID, 10), ap.Kind, ap.Status, ap.Summary, ts(ap.RequestedAt), ts(ap.ExpiresAt)}})
}

// waitingApproval reads a 202 answer's {approval}: the action waits for a
// second administrator (nil: the answer is something else).
func waitingApproval(body []byte) *bank.Approval {
	var waits struct {
		Approval *bank.Approval `json:"approval"`
	}
	if json.Unmarshal(body, &waits) != nil {
		return nil
	}
	return waits.Approval
}

// postedAnswer is what a money call's answer says of its key.
func postedAnswer(body []byte, h http.Header) bank.Posted {
	return bank.Posted{Key: h.Get("Idempotency-Key"), Replayed: h.Get("Idempotent-Replayed") == "true", Body: body}
}

// sayApproval tells that an action waits for a second administrator.
func (a *app) sayApproval(what string, ap bank.Approval) {
	a.say("%s is at or over approval_threshold: it waits for a second administrator (approval %d; meridian --server ... approvals approve %d)",
		what, ap.ID, ap.ID)
}

func (a *app) fxCmd() *cobra.Command {
	return group("fx", "Exchange rates between currencies",
		"  meridian fx set EUR USD 1.0842\n  meridian fx list", a.fxSetCmd(nil), a.fxListCmd(nil))
}

// fxSetOptions are the options of `meridian fx set`.
type fxSetOptions struct {
	Base, Quote string
	Rate        bank.Rate
}

func (a *app) fxSetCmd(run runner[fxSetOptions]) *cobra.Command {
	run = run.or(a.runFXSet)
	return &cobra.Command{
		Use:     "set <BASE> <QUOTE> <rate>",
		Short:   "Set the rate that converts BASE into QUOTE (the inverse pair is derived; audited)",
		Example: "  meridian fx set EUR USD 1.0842",
		Args:    args(cobra.ExactArgs(3)),
		RunE: func(cmd *cobra.Command, as []string) error {
			return run(cmd.Context(), &fxSetOptions{Base: strings.ToUpper(as[0]), Quote: strings.ToUpper(as[1]), Rate: bank.Rate(as[2])})
		},
	}
}

func (a *app) runFXSet(ctx context.Context, o *fxSetOptions) error {
	t, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer t.close()
	r, err := run(ctx, t, call[bank.FXRate]{
		Local: func(ctx context.Context, svc *bank.Service) (bank.FXRate, error) {
			return svc.SetFXRate(ctx, bank.CLIActor, o.Base, o.Quote, o.Rate)
		},
		Method: http.MethodPut, Path: "/api/admin/fx-rates/" + url.PathEscape(o.Base) + "/" + url.PathEscape(o.Quote),
		Body: bank.FXRateInput{Rate: o.Rate},
	})
	if err != nil {
		return err
	}
	a.say("1 %s = %s %s", r.Base, r.Rate, r.Quote)
	return a.printRates([]bank.FXRate{r})
}

// fxListOptions are the options of `meridian fx list` (none of its own).
type fxListOptions struct{}

func (a *app) fxListCmd(run runner[fxListOptions]) *cobra.Command {
	run = run.or(a.runFXList)
	return &cobra.Command{
		Use:     "list",
		Short:   "List the exchange rates administrators set",
		Example: "  meridian fx list -o json",
		Args:    args(cobra.NoArgs),
		RunE:    func(cmd *cobra.Command, _ []string) error { return run(cmd.Context(), &fxListOptions{}) },
	}
}

func (a *app) runFXList(ctx context.Context, _ *fxListOptions) error {
	t, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer t.close()
	rows, err := run(ctx, t, call[[]bank.FXRate]{
		Local: func(ctx context.Context, svc *bank.Service) ([]bank.FXRate, error) {
			return svc.FXRates(ctx, bank.CLIActor)
		},
		Method: http.MethodGet, Path: "/api/fx-rates",
	})
	if err != nil {
		return err
	}
	return a.printRates(rows)
}

func (a *app) printRates(rows []bank.FXRate) error {
	table := make([][]string, len(rows))
	for i, r := range rows {
		table[i] = []string{r.Base, r.Quote, string(r.Rate), ts(r.UpdatedAt)}
	}
	return a.print(rows, []string{"BASE", "QUOTE", "RATE", "UPDATED"}, table)
}

func (a *app) transactionCmd() *cobra.Command {
	return group("transaction", "Correct the ledger",
		`  meridian transaction reverse 1042 --reason "Sent to the wrong account by our clerk"`, a.reverseCmd(nil))
}

// reverseOptions are the options of `meridian transaction reverse`.
type reverseOptions struct {
	ID     int64
	Reason string
	Key    string
}

func (a *app) reverseCmd(run runner[reverseOptions]) *cobra.Command {
	run = run.or(a.runReverse)
	var reason, key string
	cmd := &cobra.Command{
		Use:   "reverse <transaction-id> --reason <sentence>",
		Short: "Reverse a transaction with a new posting the other way (at most once; audited, both parties told)",
		Example: `  meridian transaction reverse 1042 --reason "Sent to the wrong account by our clerk"` + "\n" +
			"  (at or over approval_threshold it waits for a second administrator)",
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, as []string) error {
			id, err := strconv.ParseInt(as[0], 10, 64)
			if err != nil || id <= 0 {
				return usageError{fmt.Errorf("%q is not a transaction id", as[0])}
			}
			if strings.TrimSpace(reason) == "" {
				return usageError{fmt.Errorf("--reason is required: a sentence saying why the transaction is reversed")}
			}
			return run(cmd.Context(), &reverseOptions{ID: id, Reason: reason, Key: key})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why the transaction is reversed (required; the ledger rows and the audit say it)")
	cmd.Flags().StringVar(&key, "idempotency-key", "", "makes a retry safe: the same key again answers the first result and moves nothing")
	return cmd
}

func (a *app) runReverse(ctx context.Context, o *reverseOptions) error {
	t, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer t.close()
	in := bank.ReverseInput{Reason: o.Reason}
	res, err := run(ctx, t, call[bank.ReversalResult]{
		Local: func(ctx context.Context, svc *bank.Service) (bank.ReversalResult, error) {
			return svc.ReverseTransaction(ctx, bank.CLIActor, o.ID, in, o.Key)
		},
		Method: http.MethodPost, Path: "/api/admin/transactions/" + strconv.FormatInt(o.ID, 10) + "/reverse", Body: in, Key: o.Key,
		Decode: func(body []byte, h http.Header) (bank.ReversalResult, error) {
			var res bank.ReversalResult
			if res.Approval = waitingApproval(body); res.Approval != nil {
				return res, nil
			}
			res.Posted = postedAnswer(body, h)
			err := json.Unmarshal(body, &res.Transaction)
			if res.Transaction.Reverses != nil {
				res.Reverses = *res.Transaction.Reverses
			}
			return res, err
		},
	})
	if err != nil {
		return err
	}
	if res.Approval != nil {
		a.sayApproval(fmt.Sprintf("reversing transaction %d", o.ID), *res.Approval)
		return a.printApproval(*res.Approval)
	}
	row := res.Transaction
	a.say("reversed transaction %d with transaction %d", res.Reverses, row.ID)
	return a.print(row, []string{"ID", "DATE", "TYPE", "AMOUNT", "ACCOUNT", "TO", "DESCRIPTION"},
		[][]string{{strconv.FormatInt(row.ID, 10), ts(row.TransactionDate), row.TransactionType, row.Amount.String(), row.AccountID, row.ToAccountID, row.Description}})
}

func (a *app) approvalsCmd() *cobra.Command {
	return group("approvals", "Actions waiting for a second administrator (four eyes)",
		"  meridian approvals list --status pending\n  meridian --server https://bank.example approvals approve 7",
		a.approvalsListCmd(nil), a.decideCmd(true, nil), a.decideCmd(false, nil))
}

// approvalsListOptions are the options of `meridian approvals list`.
type approvalsListOptions struct{ Status string }

func (a *app) approvalsListCmd(run runner[approvalsListOptions]) *cobra.Command {
	run = run.or(a.runApprovalsList)
	var status string
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List approvals, newest first",
		Example: "  meridian approvals list --status pending",
		Args:    args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), &approvalsListOptions{Status: status})
		},
	}
	cmd.Flags().StringVar(&status, "status", "", "only pending, approved, rejected or expired ones")
	return cmd
}

func (a *app) runApprovalsList(ctx context.Context, o *approvalsListOptions) error {
	t, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer t.close()
	rows, err := run(ctx, t, call[[]bank.Approval]{
		Local: func(ctx context.Context, svc *bank.Service) ([]bank.Approval, error) {
			return svc.Approvals(ctx, bank.CLIActor, o.Status)
		},
		Method: http.MethodGet, Path: "/api/admin/approvals?status=" + url.QueryEscape(o.Status),
	})
	if err != nil {
		return err
	}
	table := make([][]string, len(rows))
	for i, r := range rows {
		by := "command line"
		if r.RequestedBy != nil {
			by = *r.RequestedBy
		}
		table[i] = []string{strconv.FormatInt(r.ID, 10), r.Kind, r.Status, r.Summary, by, ts(r.RequestedAt)}
	}
	return a.print(rows, []string{"ID", "KIND", "STATUS", "SUMMARY", "REQUESTED BY", "REQUESTED"}, table)
}

// decideOptions are the options of `meridian approvals approve|reject`.
type decideOptions struct {
	Approve bool
	ID      int64
	Reason  string
}

func (a *app) decideCmd(approve bool, run runner[decideOptions]) *cobra.Command {
	run = run.or(a.runDecide)
	use, short := "approve", "Approve an approval: its action runs, once"
	if !approve {
		use, short = "reject", "Reject an approval with a reason: nothing runs"
	}
	var reason string
	cmd := &cobra.Command{
		Use:   use + " <approval-id>",
		Short: short + " (a second administrator, signed in: meridian login, then --server)",
		Example: "  meridian --server https://bank.example approvals " + use + " 7" +
			map[bool]string{true: "", false: ` --reason "No such instruction from the customer"`}[approve],
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, as []string) error {
			id, err := strconv.ParseInt(as[0], 10, 64)
			if err != nil || id <= 0 {
				return usageError{fmt.Errorf("%q is not an approval id", as[0])}
			}
			if !approve && strings.TrimSpace(reason) == "" {
				return usageError{fmt.Errorf("--reason is required")}
			}
			return run(cmd.Context(), &decideOptions{Approve: approve, ID: id, Reason: reason})
		},
	}
	if !approve {
		cmd.Flags().StringVar(&reason, "reason", "", "why it is rejected (required)")
	}
	return cmd
}

func (a *app) runDecide(ctx context.Context, o *decideOptions) error {
	t, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer t.close()
	in := bank.RejectInput{Reason: o.Reason}
	path, body := "/api/admin/approvals/"+strconv.FormatInt(o.ID, 10)+"/approve", any(nil)
	if !o.Approve {
		path, body = "/api/admin/approvals/"+strconv.FormatInt(o.ID, 10)+"/reject", in
	}
	d, err := run(ctx, t, call[bank.ApprovalDecision]{
		// Against the database the operator is nobody signed in, and a
		// decision needs a second administrator: the service refuses it
		// (approver_signed_in), pointing to --server.
		Local: func(ctx context.Context, svc *bank.Service) (bank.ApprovalDecision, error) {
			if o.Approve {
				return svc.ApproveApproval(ctx, bank.CLIActor, o.ID)
			}
			return svc.RejectApproval(ctx, bank.CLIActor, o.ID, in)
		},
		Method: http.MethodPost, Path: path, Body: body,
	})
	if err != nil {
		return err
	}
	return a.printApproval(d.Approval)
}

func (a *app) interestCmd() *cobra.Command {
	return group("interest", "Interest on accounts of a type with a rate",
		"  meridian interest run --through 2026-11-30", a.interestRunCmd(nil))
}

// interestRunOptions are the options of `meridian interest run`.
type interestRunOptions struct{ Through time.Time }

func (a *app) interestRunCmd(run runner[interestRunOptions]) *cobra.Command {
	run = run.or(a.runInterest)
	var through string
	cmd := &cobra.Command{
		Use:   "run [--through YYYY-MM-DD]",
		Short: "Accrue interest day by day through a date and pay each month on its 1st (idempotent; serve does it hourly)",
		Example: "  meridian interest run                       # through yesterday (UTC)\n" +
			"  meridian interest run --through 2026-12-01  # pays November on December 1st",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o := interestRunOptions{Through: time.Now().UTC().AddDate(0, 0, -1)}
			if through != "" {
				d, err := time.Parse(time.DateOnly, through)
				if err != nil {
					return usageError{fmt.Errorf("--through %q is not a date: give YYYY-MM-DD", through)}
				}
				o.Through = d
			}
			return run(cmd.Context(), &o)
		},
	}
	cmd.Flags().StringVar(&through, "through", "", "the last UTC day to accrue (default: yesterday); a future date runs every day up to it")
	return cmd
}

func (a *app) runInterest(ctx context.Context, o *interestRunOptions) error {
	e, err := a.open(ctx, true)
	if err != nil {
		return err
	}
	defer e.close()
	r, err := e.svc.RunInterest(ctx, bank.CLIActor, o.Through)
	if err != nil {
		return err
	}
	a.say("interest accrued through %s: %d accounts, %d account-days, %d monthly payments", r.Through, r.Accounts, r.Days, r.Payments)
	return a.print(r, []string{"THROUGH", "ACCOUNTS", "DAYS", "PAYMENTS", "SKIPPED"},
		[][]string{{r.Through, strconv.Itoa(r.Accounts), strconv.Itoa(r.Days), strconv.Itoa(r.Payments), strconv.Itoa(r.Skipped)}})
}

func (a *app) accountTypeCmd() *cobra.Command {
	return group("account-type", "Account types and their interest rates",
		"  meridian account-type list\n  meridian account-type rate 2 2.25", a.accountTypeListCmd(nil), a.accountTypeRateCmd(nil))
}

// accountTypeListOptions are the options of `meridian account-type list`.
type accountTypeListOptions struct{}

func (a *app) accountTypeListCmd(run runner[accountTypeListOptions]) *cobra.Command {
	run = run.or(a.runAccountTypeList)
	return &cobra.Command{
		Use:     "list",
		Short:   "List the account types with their interest rates",
		Example: "  meridian account-type list -o json",
		Args:    args(cobra.NoArgs),
		RunE:    func(cmd *cobra.Command, _ []string) error { return run(cmd.Context(), &accountTypeListOptions{}) },
	}
}

func (a *app) runAccountTypeList(ctx context.Context, _ *accountTypeListOptions) error {
	t, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer t.close()
	rows, err := run(ctx, t, call[[]bank.AccountTypeRate]{
		Local: func(ctx context.Context, svc *bank.Service) ([]bank.AccountTypeRate, error) {
			return svc.AccountTypeRates(ctx, bank.CLIActor)
		},
		Method: http.MethodGet, Path: "/api/admin/account-types",
	})
	if err != nil {
		return err
	}
	return a.printTypes(rows)
}

func (a *app) printTypes(rows []bank.AccountTypeRate) error {
	table := make([][]string, len(rows))
	for i, r := range rows {
		table[i] = []string{strconv.Itoa(int(r.ID)), r.TypeName, r.Currency, string(r.InterestRate)}
	}
	return a.print(rows, []string{"ID", "TYPE", "CURRENCY", "INTEREST RATE %"}, table)
}

// accountTypeRateOptions are the options of `meridian account-type rate`.
type accountTypeRateOptions struct {
	ID   int64
	Rate bank.Rate
}

func (a *app) accountTypeRateCmd(run runner[accountTypeRateOptions]) *cobra.Command {
	run = run.or(a.runAccountTypeRate)
	return &cobra.Command{
		Use:     "rate <type-id> <annual-rate-percent>",
		Short:   "Set an account type's annual interest rate (percent, up to 4 decimals; audited)",
		Example: "  meridian account-type rate 2 2.25   # Savings pays 2.25 % a year",
		Args:    args(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, as []string) error {
			id, err := strconv.ParseInt(as[0], 10, 64)
			if err != nil || id <= 0 {
				return usageError{fmt.Errorf("%q is not an account type id (meridian account-type list)", as[0])}
			}
			return run(cmd.Context(), &accountTypeRateOptions{ID: id, Rate: bank.Rate(as[1])})
		},
	}
}

func (a *app) runAccountTypeRate(ctx context.Context, o *accountTypeRateOptions) error {
	t, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer t.close()
	in := bank.InterestRateInput{InterestRate: o.Rate}
	r, err := run(ctx, t, call[bank.AccountTypeRate]{
		Local: func(ctx context.Context, svc *bank.Service) (bank.AccountTypeRate, error) {
			return svc.SetInterestRate(ctx, bank.CLIActor, o.ID, in)
		},
		Method: http.MethodPut, Path: "/api/admin/account-types/" + strconv.FormatInt(o.ID, 10), Body: in,
	})
	if err != nil {
		return err
	}
	a.say("%s (%s) pays %s %% a year", r.TypeName, r.Currency, r.InterestRate)
	return a.printTypes([]bank.AccountTypeRate{r})
}
