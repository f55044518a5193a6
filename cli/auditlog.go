package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"meridian/pkg/bank"
)

// auditTailOptions are the flags of `audit-log tail`.
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

func (a *app) auditLogCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "audit-log", Short: "Read and verify the audit log"}
	var o auditTailOptions
	tail := &cobra.Command{
		Use:   "tail",
		Short: "Print the newest audit rows (-f: keep printing new rows as they commit)",
		Example: "  meridian audit-log tail -n 50\n" +
			"  meridian audit-log tail -f -o json   # one JSON object per line, in commit order",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runAuditTail(cmd, o)
		},
	}
	tail.Flags().IntVarP(&o.lines, "lines", "n", 20, "how many of the newest rows to print")
	tail.Flags().BoolVarP(&o.follow, "follow", "f", false, "keep printing new rows, in commit order, as they commit")
	verify := &cobra.Command{
		Use:   "verify",
		Short: "Check the audit log's hash chain: exit 0 when intact, 1 naming the first changed or removed row",
		Example: "  meridian audit-log verify\n" +
			"  meridian audit-log verify -o json   # {\"ok\", \"verified_through\", \"first_bad_id\"}",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runAuditVerify(cmd) },
	}
	cmd.AddCommand(tail, verify)
	return cmd
}

// runAuditTail prints the newest rows; with follow, then every row sealed
// after them, in commit order, until interrupted.
func (a *app) runAuditTail(cmd *cobra.Command, o auditTailOptions) error {
	ctx := cmd.Context()
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
	err = e.svc.AuditFollow(ctx, bank.CLIActor, bank.FollowOptions{DSN: e.dsn, AfterSeq: last, Poll: e.cfg.SealInterval, Log: e.log},
		func(more []bank.AuditRow) error { return a.printAudit(more, false) })
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// runAuditVerify prints the outcome of the chain check; a broken chain is a
// failure (exit 1) whose sentence names the first bad row.
func (a *app) runAuditVerify(cmd *cobra.Command) error {
	e, err := a.open(cmd.Context(), true)
	if err != nil {
		return err
	}
	defer e.close()
	rep, err := e.svc.VerifyAuditChain(cmd.Context(), bank.CLIActor)
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
