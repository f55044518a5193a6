package cli

import (
	"encoding/json"
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/lib/pq"
	"github.com/spf13/cobra"

	"meridian/pkg/bank"
)

func (a *app) auditLogCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "audit-log", Short: "Read the audit log"}
	var n int
	var follow bool
	tail := &cobra.Command{
		Use:   "tail",
		Short: "Print the newest audit rows (-f: keep printing new rows as they are written)",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if n < 1 || n > 1000 {
				return usageError{fmt.Errorf("-n must be between 1 and 1000")}
			}
			ctx := cmd.Context()
			e, err := a.open(ctx, true)
			if err != nil {
				return err
			}
			defer e.close()
			// Listen before reading, so no row written in between is missed.
			var l *pq.Listener
			if follow {
				l = pq.NewListener(e.dsn, 100*time.Millisecond, 10*time.Second, nil)
				defer l.Close()
				if err := l.Listen("meridian_audit"); err != nil {
					return err
				}
			}
			rows, _, err := e.svc.AuditLogs(ctx, bank.CLIActor, bank.Page{Limit: n})
			if err != nil {
				return err
			}
			for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
				rows[i], rows[j] = rows[j], rows[i]
			}
			last := int64(0)
			if len(rows) > 0 {
				last = rows[len(rows)-1].ID
			}
			if !follow {
				return a.printAudit(rows, true)
			}
			if err := a.printAudit(rows, true); err != nil {
				return err
			}
			for {
				select {
				case <-ctx.Done():
					return nil
				case <-l.Notify: // a new row, or a reconnect: read everything after the last one seen
				case <-time.After(30 * time.Second):
				}
				more, err := e.svc.AuditSince(ctx, last)
				if err != nil {
					if ctx.Err() != nil {
						return nil
					}
					return err
				}
				if len(more) > 0 {
					last = more[len(more)-1].ID
					if err := a.printAudit(more, false); err != nil {
						return err
					}
				}
			}
		},
	}
	tail.Flags().IntVarP(&n, "lines", "n", 20, "how many of the newest rows to print")
	tail.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing new rows as they are written")
	cmd.AddCommand(tail)
	return cmd
}

// printAudit prints rows oldest first: a table (header on the first batch),
// or one JSON object per line, so `tail -f` output streams.
func (a *app) printAudit(rows []bank.AuditRow, header bool) error {
	if a.output == "json" {
		enc := json.NewEncoder(a.stdout)
		for _, r := range rows {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	if header {
		fmt.Fprintln(w, "ID\tTIME\tUSER\tACTION\tTABLE\tACCOUNT\tDESCRIPTION")
	}
	for _, r := range rows {
		acct := "-"
		if r.AccountNumber != nil {
			acct = *r.AccountNumber
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", strconv.FormatInt(r.ID, 10), ts(r.ActionTimestamp), r.FullName, r.ActionType, r.TableName, acct, r.Description)
	}
	return w.Flush()
}
