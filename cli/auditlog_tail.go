package cli

import (
	"context"
	"fmt"
	"net/http"
	"slices"

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
// after them, in commit order, until interrupted. With --server the rows
// come from the API (follow: over a WebSocket).
func (a *app) runAuditTail(ctx context.Context, o *auditTailOptions) error {
	t, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer t.close()
	if !o.follow {
		rows, err := run(ctx, t, call[[]bank.AuditRow]{
			Local: func(ctx context.Context, svc *bank.Service) ([]bank.AuditRow, error) {
				rows, _, err := svc.AuditLogs(ctx, bank.CLIActor, bank.Page{Limit: o.lines})
				return rows, err
			},
			Method: http.MethodGet, Path: fmt.Sprintf("/api/admin/audit-logs?limit=%d", o.lines), Field: "audit_logs",
		})
		if err != nil {
			return err
		}
		slices.Reverse(rows)
		return a.printAudit(rows, true)
	}
	header := true
	print := func(rows []bank.AuditRow) error {
		err := a.printAudit(rows, header)
		header = false
		return err
	}
	if t.Remote() {
		err = t.remote.follow(ctx, fmt.Sprintf("/api/admin/audit-logs/follow?n=%d", o.lines), print)
	} else {
		e := t.env
		var rows []bank.AuditRow
		var last int64
		if rows, last, err = e.svc.AuditTail(ctx, bank.CLIActor, o.lines); err != nil {
			return err
		}
		if err := print(rows); err != nil {
			return err
		}
		err = e.svc.AuditFollow(ctx, bank.CLIActor, bank.FollowOptions{DSN: e.listenDSN, AfterSeq: last, Poll: e.cfg.SealInterval, Log: e.log}, print)
	}
	if ctx.Err() != nil {
		return nil
	}
	return err
}
