package cli

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"meridian/pkg/db"
	"meridian/pkg/money"
)

func TestStatementOptions(t *testing.T) {
	t.Parallel()
	o, err := parse(t, (*app).statementCmd, "", "100200300", "--from", "2026-01-01", "--to", "2026-01-31", "--format", "PDF", "-o", "jan.pdf")
	if err != nil || *o != (statementOptions{Number: "100200300", From: "2026-01-01", To: "2026-01-31", Format: "pdf", File: "jan.pdf"}) {
		t.Fatalf("%+v %v", o, err)
	}
	o, err = parse(t, (*app).statementCmd, "", "100200300", "--from", "2026-01-01", "--to", "2026-01-31")
	if err != nil || o.Format != "csv" || o.File != "" {
		t.Fatalf("defaults: %+v %v", o, err)
	}
	for _, bad := range [][]string{
		{"100200300", "--to", "2026-01-31"},
		{"100200300", "--from", "2026-01-01"},
		{"100200300", "--from", "2026-01-01", "--to", "2026-01-31", "--format", "xlsx"},
		{"--from", "2026-01-01", "--to", "2026-01-31"},
		{"1", "2", "--from", "2026-01-01", "--to", "2026-01-31"},
	} {
		_, err := parse(t, (*app).statementCmd, "", bad...)
		wantUsage(t, err, strings.Join(bad, " "))
	}
}

// The operator writes any customer's statement, to stdout or to a file;
// its closing balance is the account's balance.
func TestStatementCommand(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.ok("seed", "--demo-seed", "true")
	today := time.Now().UTC()
	from, to := today.AddDate(0, 0, -365).Format("2006-01-02"), today.Format("2006-01-02")

	out := c.ok("statement", "100200300", "--from", from, "--to", to)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) < 4 || strings.Join(recs[0], ",") != "date,description,type,amount,balance,counterparty" {
		t.Fatalf("CSV: %v\n%s", err, out)
	}
	last := recs[len(recs)-1]
	conn, err := db.Open(context.Background(), c.base[1])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var balance money.Amount
	if err := conn.Get(&balance, `SELECT balance FROM accounts WHERE account_number = '100200300'`); err != nil {
		t.Fatal(err)
	}
	if last[1] != "Closing balance" || last[4] != balance.String() {
		t.Fatalf("closing line %q, balance %s", last, balance)
	}

	file := filepath.Join(t.TempDir(), "statement.pdf")
	code, stdout, stderr := c.run("", "statement", "200300400", "--from", from, "--to", to, "--format", "pdf", "-o", file)
	if code != 0 || stdout != "" || !strings.Contains(stderr, "written to "+file) {
		t.Fatalf("-o: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if b, err := os.ReadFile(file); err != nil || !strings.HasPrefix(string(b), "%PDF-") {
		t.Fatalf("%s: %v", file, err)
	}

	missing := filepath.Join(t.TempDir(), "none.csv")
	for _, bad := range [][]string{
		{"NOSUCH0001", "--from", from, "--to", to, "-o", missing},
		{"100200300", "--from", "2026-02-30", "--to", to, "-o", missing},
		{"100200300", "--from", to, "--to", from, "-o", missing},
	} {
		code, _, stderr := c.run("", append([]string{"statement"}, bad...)...)
		if code != 1 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, %q", bad, code, stderr)
		}
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Fatalf("a refused statement left %s: %v", missing, err)
	}
}
