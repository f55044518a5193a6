package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"meridian/pkg/bank"
)

// auditVerifyOptions are the options of `meridian audit-log verify` (none
// of its own).
type auditVerifyOptions struct{}

func (a *app) auditVerifyCmd(run runner[auditVerifyOptions]) *cobra.Command {
	run = run.or(a.runAuditVerify)
	return &cobra.Command{
		Use:   "verify",
		Short: "Check the audit log's hash chain: exit 0 when intact, 1 naming the first changed or removed row",
		Example: "  meridian audit-log verify\n" +
			"  meridian audit-log verify -o json   # {\"ok\", \"verified_through\", \"first_bad_id\"}",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), &auditVerifyOptions{})
		},
	}
}

// runAuditVerify prints the outcome of the chain check; a broken chain is a
// failure (exit 1) whose sentence names the first bad row.
func (a *app) runAuditVerify(ctx context.Context, _ *auditVerifyOptions) error {
	e, err := a.open(ctx, true)
	if err != nil {
		return err
	}
	defer e.close()
	rep, err := e.svc.VerifyAuditChain(ctx, bank.CLIActor)
	if err != nil {
		return err
	}
	if a.output == "json" {
		if err := a.print(rep, nil, nil); err != nil {
			return err
		}
	} else if rep.OK {
		fmt.Fprintln(a.stdout, rep.Sentence())
	}
	if !rep.OK {
		return errors.New(rep.Sentence())
	}
	return nil
}
