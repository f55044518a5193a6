package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"meridian/pkg/bank"
)

// statementOptions are the options of meridian statement.
type statementOptions struct {
	Number   string
	From, To string // YYYY-MM-DD, UTC, both included
	Format   string // csv or pdf
	File     string // empty: stdout
}

func (a *app) statementCmd(run runner[statementOptions]) *cobra.Command {
	run = run.or(a.runStatement)
	var o statementOptions
	cmd := &cobra.Command{
		Use:   "statement <account-number> --from YYYY-MM-DD --to YYYY-MM-DD",
		Short: "Write an account's statement (CSV or PDF) for a period",
		Long: "Write the statement of any customer's account for a period of whole days in UTC (both included, at most 366 days):\n" +
			"the opening balance, every ledger row with its running balance, and the closing balance.\n" +
			"It goes to stdout, or to the file given with -o (written whole or not at all).",
		Example: "  meridian statement 100200300 --from 2026-01-01 --to 2026-01-31 > january.csv\n" +
			"  meridian statement 100200300 --from 2026-01-01 --to 2026-03-31 --format pdf -o q1.pdf",
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, as []string) error {
			o.Number = as[0]
			if o.From == "" || o.To == "" {
				return usageError{fmt.Errorf("give the period with --from and --to (YYYY-MM-DD)")}
			}
			o.Format = strings.ToLower(o.Format)
			if o.Format != bank.StatementCSV && o.Format != bank.StatementPDF {
				return usageError{fmt.Errorf("--format must be csv or pdf, not %q", o.Format)}
			}
			return run(cmd.Context(), &o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.From, "from", "", "first day, YYYY-MM-DD (UTC)")
	f.StringVar(&o.To, "to", "", "last day, YYYY-MM-DD (UTC), included")
	f.StringVar(&o.Format, "format", bank.StatementCSV, "csv or pdf")
	// -o names the file here; it stands in for the global --output (table
	// or json), which a statement has no use for.
	f.StringVarP(&o.File, "output", "o", "", "write to this file instead of stdout")
	return cmd
}

// runStatement writes the statement as the operator, who may read any
// account.
func (a *app) runStatement(ctx context.Context, o *statementOptions) error {
	e, err := a.open(ctx, true)
	if err != nil {
		return err
	}
	defer e.close()
	st, err := e.svc.AdminStatement(ctx, bank.CLIActor, bank.StatementQuery{AccountNumber: o.Number, From: o.From, To: o.To, Format: o.Format})
	if err != nil {
		return err
	}
	defer st.Close()
	if o.File == "" {
		return st.Render(a.stdout)
	}
	if err := writeFileAtomically(o.File, st.Render); err != nil {
		return err
	}
	a.say("statement of %s, %s to %s, written to %s", st.AccountNumber, o.From, o.To, o.File)
	return nil
}

// writeFileAtomically writes name through a temporary file beside it,
// renamed over name only once write succeeded: a statement that fails
// half way leaves no partial file.
func writeFileAtomically(name string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after the rename, there is nothing left to remove
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), name)
}
