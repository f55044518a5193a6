package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"meridian/pkg/bank"
)

// auditVerifyOptions are the options of `meridian audit-log verify`.
type auditVerifyOptions struct {
	// Anchors is --anchors: a directory of checkpoints of the chain's head
	// (serve's anchor_dir, or a copy kept elsewhere) that the chain must
	// still extend.
	Anchors string
}

func (a *app) auditVerifyCmd(run runner[auditVerifyOptions]) *cobra.Command {
	run = run.or(a.runAuditVerify)
	var o auditVerifyOptions
	cmd := &cobra.Command{
		Use: "verify",
		Short: "Check the audit log's hash chain (and, with --anchors, that it extends every checkpoint): " +
			"exit 0 when intact, 1 naming the first changed or removed row",
		Example: "  meridian audit-log verify\n" +
			"  meridian audit-log verify --anchors /mnt/other-disk/meridian-anchors\n" +
			"  meridian audit-log verify -o json   # {\"ok\", \"verified_through\", \"first_bad_id\", \"head\", \"anchors\"}",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), &o)
		},
	}
	cmd.Flags().StringVar(&o.Anchors, "anchors", "", "a directory of signed checkpoints (anchor_dir, or a copy) the chain must still extend")
	return cmd
}

// runAuditVerify prints the outcome of the chain check; a broken chain is a
// failure (exit 1) whose sentence names the first bad row.
func (a *app) runAuditVerify(ctx context.Context, o *auditVerifyOptions) error {
	e, err := a.open(ctx, true)
	if err != nil {
		return err
	}
	defer e.close()
	rep, err := e.svc.VerifyAuditLog(ctx, bank.CLIActor, o.Anchors, o.Anchors != "")
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
