package cli

import (
	"encoding/json"
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"meridian/pkg/bank"
)

func (a *app) auditLogCmd() *cobra.Command {
	return group("audit-log", "Read and verify the audit log",
		"  meridian audit-log tail -n 50\n  meridian audit-log verify --anchors /mnt/other-disk/meridian-anchors",
		a.auditTailCmd(nil), a.auditVerifyCmd(nil), a.auditAnchorCmd(nil))
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
