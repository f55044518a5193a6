package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"meridian/pkg/bank"
)

// auditTailOptions are the options of `meridian audit-log tail`.
type auditTailOptions struct {
	lines  int
	follow bool
}

func (o auditTailOptions) validate() error {
	if o.lines < 1 || o.lines > 1000 {
		return usageError{fmt.Errorf("-n must be between 1 and 1000")}
	}
	return nil
}

func (a *app) auditTailCmd(run runner[auditTailOptions]) *cobra.Command {
	run = run.or(a.runAuditTail)
	o := &auditTailOptions{}
	cmd := &cobra.Command{
		Use:   "tail",
		Short: "Print the newest audit rows (-f: keep printing new rows as they commit)",
		Example: "  meridian audit-log tail -n 50\n" +
			"  meridian audit-log tail -f -o json   # one JSON object per line, in commit order",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return run(cmd.Context(), o)
		},
	}
	cmd.Flags().IntVarP(&o.lines, "lines", "n", 20, "how many of the newest rows to print")
	cmd.Flags().BoolVarP(&o.follow, "follow", "f", false, "keep printing new rows, in commit order, as they commit")
	return cmd
}

// runAuditTail prints the newest rows; with follow, then every row sealed
// after them, in commit order, until interrupted.
func (a *app) runAuditTail(ctx context.Context, o *auditTailOptions) error {
	e, err := a.open(ctx, true)
	if err != nil {
		return err
	}
	defer e.close()
	if !o.follow {
		rows, _, err := e.svc.AuditLogs(ctx, bank.CLIActor, bank.Page{Limit: o.lines})
		if err != nil {
			return err
		}
		for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
			rows[i], rows[j] = rows[j], rows[i]
		}
		return a.printAudit(rows, true)
	}
	rows, last, err := e.svc.AuditTail(ctx, bank.CLIActor, o.lines)
	if err != nil {
		return err
	}
	if err := a.printAudit(rows, true); err != nil {
		return err
	}
	err = e.svc.AuditFollow(ctx, bank.CLIActor, bank.FollowOptions{DSN: e.listenDSN, AfterSeq: last, Poll: e.cfg.SealInterval, Log: e.log},
		func(more []bank.AuditRow) error { return a.printAudit(more, false) })
	if ctx.Err() != nil {
		return nil
	}
	return err
}
