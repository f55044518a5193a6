package bank

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math/rand"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// day is 00:00 UTC of a YYYY-MM-DD day.
func day(t testing.TB, s string) time.Time {
	t.Helper()
	d, err := time.Parse("2006-01-02", s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// openAccountAt opens a USD checking account numbered number, its opening
// balance dated at.
func openAccountAt(t testing.TB, s *Service, a Actor, number, balance string, at time.Time) Account {
	t.Helper()
	b, err := money.Parse(balance)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := s.CreateAccount(backdated(ctx, at), a, AccountInput{AccountNumber: number, Balance: b, AccountTypeID: 1})
	if err != nil {
		t.Fatalf("open account %s: %v", number, err)
	}
	return acc
}

// renderStatement opens a statement as the actor, writes it in its format
// and closes it.
func renderStatement(t testing.TB, s *Service, a Actor, q StatementQuery) []byte {
	t.Helper()
	open := s.Statement
	if a.IsAdmin() {
		open = s.AdminStatement
	}
	st, err := open(ctx, a, q)
	if err != nil {
		t.Fatalf("statement %+v: %v", q, err)
	}
	defer st.Close()
	var b bytes.Buffer
	if err := st.Render(&b); err != nil {
		t.Fatalf("render %+v: %v", q, err)
	}
	return b.Bytes()
}

// csvStatement is a parsed CSV statement.
type csvStatement struct {
	opening, closing money.Amount
	rows             [][]string // the ledger rows, without the opening and closing lines
}

// parseCSVStatement reads a CSV statement and checks its frame: the header,
// the opening line first, the closing line last, and every row's balance
// the one before it plus its amount.
func parseCSVStatement(t testing.TB, b []byte) csvStatement {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatalf("CSV: %v\n%s", err, b)
	}
	if len(recs) < 3 || strings.Join(recs[0], ",") != "date,description,type,amount,balance,counterparty" {
		t.Fatalf("CSV frame: %q", recs)
	}
	amount := func(s string) money.Amount {
		t.Helper()
		neg := strings.HasPrefix(s, "-")
		a, err := money.Parse(strings.TrimPrefix(s, "-"))
		if err != nil || !strings.Contains(s, ".") || len(s)-strings.Index(s, ".") != 3 {
			t.Fatalf("amount %q is not a decimal with two places", s)
		}
		if neg {
			return -a
		}
		return a
	}
	first, last := recs[1], recs[len(recs)-1]
	if first[1] != "Opening balance" || first[2] != "" || first[3] != "" || last[1] != "Closing balance" || last[2] != "" || last[3] != "" {
		t.Fatalf("opening/closing lines: %q / %q", first, last)
	}
	out := csvStatement{opening: amount(first[4]), closing: amount(last[4]), rows: recs[2 : len(recs)-1]}
	running := out.opening
	prevDate := first[0]
	for _, r := range out.rows {
		a := amount(r[3])
		if (r[2] == "CREDIT") != (a > 0) || (r[2] != "CREDIT" && r[2] != "DEBIT") {
			t.Fatalf("row %q: type and sign disagree", r)
		}
		running += a
		if amount(r[4]) != running {
			t.Fatalf("row %q: balance %s, want %s", r, r[4], running)
		}
		if r[0] < prevDate {
			t.Fatalf("row %q before the one above it (%s)", r, prevDate)
		}
		prevDate = r[0]
	}
	if running != out.closing {
		t.Fatalf("opening %s + rows = %s, closing line says %s", out.opening, running, out.closing)
	}
	return out
}

// ledgerUntil sums an account's ledger rows dated before at, read from
// the table itself (not through ledger_entries), to check the statement
// against.
func ledgerUntil(t testing.TB, s *Service, acct int64, at time.Time) (money.Amount, int) {
	t.Helper()
	var rows []struct {
		Type   string       `db:"transaction_type"`
		Amount money.Amount `db:"amount"`
	}
	if err := s.db.Select(&rows, `SELECT transaction_type, amount FROM transactions WHERE account_id = $1 AND created_at < $2`, acct, at); err != nil {
		t.Fatal(err)
	}
	var sum money.Amount
	for _, r := range rows {
		if r.Type == "CREDIT" {
			sum += r.Amount
		} else {
			sum -= r.Amount
		}
	}
	return sum, len(rows)
}

// Random transfers (both ways, between one customer's own accounts too),
// deposits and withdrawals, dated out of id order over three weeks: every
// statement's running balances follow the ledger, its last balance is the
// account's balance, and two statements that meet agree on the balance
// between them.
func TestStatementBalancesFollowTheLedger(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice, bob := newCustomer(t, s, "Alice Ledger"), newCustomer(t, s, "Bob Ledger")
	start := day(t, "2026-03-01")
	a1 := openAccountAt(t, s, alice, "STMA000001", "500.00", start.Add(-time.Hour))
	a2 := openAccountAt(t, s, alice, "STMA000002", "0", start.Add(-time.Hour))
	b1 := openAccountAt(t, s, bob, "STMB000001", "500.00", start.Add(-time.Hour))
	rng := rand.New(rand.NewSource(7))
	moved := 0
	for i := 0; i < 200; i++ {
		at := start.Add(time.Duration(rng.Int63n(int64(21 * 24 * time.Hour))))
		c := backdated(ctx, at)
		amt := money.Amount(1 + rng.Int63n(9000))
		var err error
		switch rng.Intn(5) {
		case 0:
			_, err = s.Transfer(c, alice, TransferInput{AccountID: a1.AccountNumber, ToAccountID: b1.AccountNumber, Amount: amt, Description: "to Bob"}, "")
		case 1:
			_, err = s.Transfer(c, bob, TransferInput{AccountID: b1.AccountNumber, ToAccountID: a1.AccountNumber, Amount: amt, Description: "from Bob"}, "")
		case 2:
			_, err = s.Transfer(c, alice, TransferInput{AccountID: a1.AccountNumber, ToAccountID: a2.AccountNumber, Amount: amt, Description: "to savings"}, "")
		case 3:
			_, err = s.Deposit(c, CLIActor, a1.AccountNumber, FundsInput{Amount: amt}, "")
		case 4:
			_, err = s.Withdraw(c, CLIActor, a1.AccountNumber, FundsInput{Amount: amt}, "")
		}
		if err != nil && errs.As(err).Code != "insufficient_funds" {
			t.Fatal(err)
		}
		if err == nil {
			moved++
		}
	}
	if moved < 100 {
		t.Fatalf("only %d of 200 movements went through", moved)
	}

	for _, acc := range []Account{a1, a2, b1} {
		owner := alice
		if acc.ID == b1.ID {
			owner = bob
		}
		whole := parseCSVStatement(t, renderStatement(t, s, owner, StatementQuery{AccountNumber: acc.AccountNumber, From: "2026-02-28", To: "2026-03-31"}))
		_, n := ledgerUntil(t, s, acc.ID, day(t, "2026-12-31"))
		if whole.opening != 0 || len(whole.rows) != n {
			t.Fatalf("%s: opening %s, %d rows; want 0 and the ledger's %d", acc.AccountNumber, whole.opening, len(whole.rows), n)
		}
		if bal := balanceOf(t, s, acc.ID); whole.closing != bal || ledgerSum(t, s, acc.ID) != bal {
			t.Fatalf("%s: closing %s, account balance %s, ledger %s", acc.AccountNumber, whole.closing, bal, ledgerSum(t, s, acc.ID))
		}
		// Two statements that meet on 2026-03-11.
		first := parseCSVStatement(t, renderStatement(t, s, owner, StatementQuery{AccountNumber: acc.AccountNumber, From: "2026-02-28", To: "2026-03-10"}))
		second := parseCSVStatement(t, renderStatement(t, s, CLIActor, StatementQuery{AccountNumber: acc.AccountNumber, From: "2026-03-11", To: "2026-03-31"}))
		want, before := ledgerUntil(t, s, acc.ID, day(t, "2026-03-11"))
		if first.closing != second.opening || second.opening != want || len(first.rows) != before || len(first.rows)+len(second.rows) != n {
			t.Fatalf("%s: first closes at %s (%d rows), second opens at %s (%d rows); the ledger before 03-11: %s (%d rows)",
				acc.AccountNumber, first.closing, len(first.rows), second.opening, len(second.rows), want, before)
		}
	}
}

// The period is whole UTC days, both included: a row at 23:59:59.999999
// of the last day is in, one at 00:00 of the day after is out, one at
// 23:59:59 of the day before the first counts in the opening balance.
func TestStatementPeriodBoundaries(t *testing.T) {
	t.Parallel()
	s := newService(t)
	c := newCustomer(t, s, "Bea Boundary")
	acc := openAccountAt(t, s, c, "EDGE000001", "0", day(t, "2026-05-01"))
	deposit := func(at time.Time, amount money.Amount, desc string) {
		t.Helper()
		if _, err := s.Deposit(backdated(ctx, at), CLIActor, acc.AccountNumber, FundsInput{Amount: amount, Description: desc}, ""); err != nil {
			t.Fatal(err)
		}
	}
	deposit(day(t, "2026-05-10").Add(-time.Second), 100, "before the first day")
	deposit(day(t, "2026-05-10"), 200, "first moment")
	deposit(day(t, "2026-05-13").Add(-time.Microsecond), 400, "last moment")
	deposit(day(t, "2026-05-13"), 800, "day after")
	// 23:30 in New York on the last day is 04:30 UTC the day after: out.
	ny := time.FixedZone("EST", -5*3600)
	deposit(time.Date(2026, 5, 12, 23, 30, 0, 0, ny), 1600, "late in New York")

	st := parseCSVStatement(t, renderStatement(t, s, c, StatementQuery{AccountNumber: acc.AccountNumber, From: "2026-05-10", To: "2026-05-12"}))
	var descs []string
	for _, r := range st.rows {
		descs = append(descs, r[0]+" "+r[1])
	}
	if got := strings.Join(descs, "; "); got != "2026-05-10 first moment; 2026-05-12 last moment" {
		t.Fatalf("rows: %s", got)
	}
	if st.opening != 100 || st.closing != 700 {
		t.Fatalf("opening %s, closing %s; want 1.00 and 7.00", st.opening, st.closing)
	}
	// One day: the first moment only.
	one := parseCSVStatement(t, renderStatement(t, s, c, StatementQuery{AccountNumber: acc.AccountNumber, From: "2026-05-10", To: "2026-05-10"}))
	if len(one.rows) != 1 || one.opening != 100 || one.closing != 300 {
		t.Fatalf("one day: %d rows, %s to %s", len(one.rows), one.opening, one.closing)
	}
}

// goldenFixture is a small account history with a description a
// spreadsheet would run, one with a comma and quotes, a deposit and a
// withdrawal, and a row after the period.
func goldenFixture(t testing.TB, s *Service) (Actor, Account) {
	t.Helper()
	alice, bob := newCustomer(t, s, "Alice Golden"), newCustomer(t, s, "Bob Golden")
	a := openAccountAt(t, s, alice, "GOLD000001", "100.00", day(t, "2026-01-01").Add(9*time.Hour))
	b := openAccountAt(t, s, bob, "GOLD000002", "50.00", day(t, "2026-01-01").Add(9*time.Hour))
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Transfer(backdated(ctx, day(t, "2026-01-02").Add(12*time.Hour)), alice, TransferInput{AccountID: a.AccountNumber, ToAccountID: b.AccountNumber, Amount: 1250, Description: `Lunch, "tapas"`}, ""))
	must(s.Transfer(backdated(ctx, day(t, "2026-01-03").Add(8*time.Hour)), bob, TransferInput{AccountID: b.AccountNumber, ToAccountID: a.AccountNumber, Amount: 500, Description: "=SUM(A1:A2)"}, ""))
	must(s.Deposit(backdated(ctx, day(t, "2026-01-04")), CLIActor, a.AccountNumber, FundsInput{Amount: 1_000_00}, ""))
	must(s.Withdraw(backdated(ctx, day(t, "2026-01-05").Add(23*time.Hour)), CLIActor, a.AccountNumber, FundsInput{Amount: 1, Description: "-1 fee"}, ""))
	must(s.Deposit(backdated(ctx, day(t, "2026-02-01")), CLIActor, a.AccountNumber, FundsInput{Amount: 7}, ""))
	return alice, a
}

// The CSV, byte for byte.
func TestStatementCSVGolden(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice, a := goldenFixture(t, s)
	got := string(renderStatement(t, s, alice, StatementQuery{AccountNumber: a.AccountNumber, From: "2026-01-01", To: "2026-01-31"}))
	want := strings.ReplaceAll(`date,description,type,amount,balance,counterparty
2026-01-01,Opening balance,,,0.00,
2026-01-01,Opening balance,CREDIT,100.00,100.00,Meridian
2026-01-02,"Lunch, ""tapas""",DEBIT,-12.50,87.50,GOLD000002 (Bob Golden)
2026-01-03,'=SUM(A1:A2),CREDIT,5.00,92.50,GOLD000002 (Bob Golden)
2026-01-04,Deposit,CREDIT,1000.00,1092.50,Meridian
2026-01-05,'-1 fee,DEBIT,-0.01,1092.49,Meridian
2026-01-31,Closing balance,,,1092.49,
`, "\n", "\r\n")
	if got != want {
		t.Fatalf("CSV statement:\n%s\nwant:\n%s", got, want)
	}
	st, err := s.Statement(ctx, alice, StatementQuery{AccountNumber: a.AccountNumber, From: "2026-01-01", To: "2026-01-31", Format: "PDF"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.FileName() != "meridian-GOLD000001-2026-01-01-2026-01-31.pdf" || st.ContentType() != "application/pdf" {
		t.Fatalf("file %q, type %q", st.FileName(), st.ContentType())
	}
}

func TestCSVTextDefusesFormulas(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"=1+1": "'=1+1", "+1": "'+1", "-1": "'-1", "@SUM(1)": "'@SUM(1)", "\tx": "'\tx", "\rx": "'\rx",
		"Lunch": "Lunch", "": "", "a=b": "a=b", "100200300 (Bob)": "100200300 (Bob)"} {
		if got := csvText(in); got != want {
			t.Errorf("csvText(%q) = %q, want %q", in, got, want)
		}
	}
}

// pdfText is the text pdftotext -layout reads from a PDF. poppler-utils
// is a dependency of the tests (make deps): missing, the test fails.
func pdfText(t testing.TB, pdf []byte) string {
	t.Helper()
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Fatalf("pdftotext not found: install poppler-utils (make deps does): %v", err)
	}
	cmd := exec.Command(bin, "-layout", "-", "-")
	cmd.Stdin = bytes.NewReader(pdf)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}

// The PDF holds what the CSV holds: the holder, the account, the period,
// the same opening and closing balances and the totals of the CSV's
// credits and debits, in the account's currency.
func TestStatementPDFMatchesCSV(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice, a := goldenFixture(t, s)
	q := StatementQuery{AccountNumber: a.AccountNumber, From: "2026-01-01", To: "2026-01-31"}
	c := parseCSVStatement(t, renderStatement(t, s, alice, q))
	q.Format = "pdf"
	pdf := renderStatement(t, s, alice, q)
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Fatalf("not a PDF: %q", pdf[:min(len(pdf), 20)])
	}
	text := pdfText(t, pdf)
	var credits, debits money.Amount
	var nc, nd int
	for _, r := range c.rows {
		a, _ := money.Parse(strings.TrimPrefix(r[3], "-"))
		if r[2] == "CREDIT" {
			credits, nc = credits+a, nc+1
		} else {
			debits, nd = debits-a, nd+1
		}
	}
	for _, want := range []string{"Meridian", "Alice Golden", "GOLD000001 (Checking)", "USD", "2026-01-01 to 2026-01-31 (UTC)",
		"Opening balance", "Closing balance", "Page 1 of 1", `Lunch, "tapas"`, "=SUM(A1:A2)", "GOLD000002 (Bob Golden)",
		"$1,092.49", "-$12.50", "$0.00",
		fmt.Sprintf("Total credits (%d)", nc), money.Format(credits, "USD"),
		fmt.Sprintf("Total debits (%d)", nd), money.Format(debits, "USD"), money.Format(c.closing, "USD")} {
		if !strings.Contains(text, want) {
			t.Errorf("the PDF's text lacks %q:\n%s", want, text)
		}
	}
	// The totals sit on their lines.
	for _, line := range []string{
		fmt.Sprintf("Total credits (%d)", nc) + " " + money.Format(credits, "USD"),
		fmt.Sprintf("Total debits (%d)", nd) + " " + money.Format(debits, "USD"),
		"Closing balance " + money.Format(c.closing, "USD"),
	} {
		if !strings.Contains(squeeze(text), line) {
			t.Errorf("the PDF has no line %q:\n%s", line, text)
		}
	}
	if credits != 1105_00 || debits != -12_51 || c.opening+credits+debits != c.closing {
		t.Fatalf("CSV totals: credits %s, debits %s, %s to %s", credits, debits, c.opening, c.closing)
	}
}

// squeeze folds runs of spaces into one.
func squeeze(s string) string {
	for strings.Contains(s, "  ") {
		s = strings.ReplaceAll(s, "  ", " ")
	}
	return s
}

// A long statement runs over pages, each with the bank's header and the
// table's, numbered "Page n of N".
func TestStatementPDFPages(t *testing.T) {
	t.Parallel()
	s := newService(t)
	c := newCustomer(t, s, "Pia Pages")
	acc := openAccountAt(t, s, c, "PAGE000001", "0", day(t, "2026-04-01"))
	for i := 0; i < 120; i++ {
		if _, err := s.Deposit(backdated(ctx, day(t, "2026-04-02").Add(time.Duration(i)*time.Minute)), CLIActor, acc.AccountNumber, FundsInput{Amount: 100, Description: fmt.Sprintf("Deposit %03d", i)}, ""); err != nil {
			t.Fatal(err)
		}
	}
	long := "Quarterly rent " + strings.Repeat("and service charges ", 10)
	if _, err := s.Deposit(backdated(ctx, day(t, "2026-04-03")), CLIActor, acc.AccountNumber, FundsInput{Amount: 100, Description: long}, ""); err != nil {
		t.Fatal(err)
	}
	text := pdfText(t, renderStatement(t, s, c, StatementQuery{AccountNumber: acc.AccountNumber, From: "2026-04-01", To: "2026-04-30", Format: "pdf"}))
	if !strings.Contains(text, "Quarterly rent and service") || !strings.Contains(text, "...") || strings.Contains(text, long) {
		t.Errorf("a description longer than its column is not cut with ...:\n%s", text)
	}
	pages := strings.Split(text, "\f")
	if len(pages) > 0 && strings.TrimSpace(pages[len(pages)-1]) == "" {
		pages = pages[:len(pages)-1]
	}
	if len(pages) < 3 {
		t.Fatalf("%d pages for 120 rows", len(pages))
	}
	for i, p := range pages {
		for _, want := range []string{"Meridian", "Pia Pages", "PAGE000001", "Description", "Counterparty", fmt.Sprintf("Page %d of %d", i+1, len(pages))} {
			if !strings.Contains(p, want) {
				t.Errorf("page %d lacks %q:\n%s", i+1, want, p)
			}
		}
	}
	for _, want := range []string{"Deposit 000", "Deposit 119", "Total credits (121)", "$121.00"} {
		if !strings.Contains(text, want) {
			t.Errorf("the PDF lacks %q", want)
		}
	}
}

// Refusals: each rule, and the answer just inside it.
func TestStatementRefusals(t *testing.T) {
	t.Parallel()
	s := newService(t)
	alice, bob := newCustomer(t, s, "Alice Refused"), newCustomer(t, s, "Bob Refused")
	acc := openAccountAt(t, s, alice, "REFU000001", "10.00", day(t, "2026-01-01"))
	openAccountAt(t, s, bob, "REFU000002", "10.00", day(t, "2026-01-01"))
	ok := func(a Actor, q StatementQuery) {
		t.Helper()
		st, err := s.Statement(ctx, a, q)
		if a.IsAdmin() {
			st, err = s.AdminStatement(ctx, a, q)
		}
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		st.Close()
	}
	refused := func(a Actor, q StatementQuery, kind errs.Kind, code, field string) {
		t.Helper()
		_, err := s.Statement(ctx, a, q)
		if a.IsAdmin() {
			_, err = s.AdminStatement(ctx, a, q)
		}
		wantKind(t, err, kind, code)
		if field != "" && errs.As(err).Fields[field] == "" {
			t.Fatalf("%+v: no message for %s: %v", q, field, errs.As(err).Fields)
		}
	}
	q := func(number, from, to, format string) StatementQuery {
		return StatementQuery{AccountNumber: number, From: from, To: to, Format: format}
	}
	ok(alice, q(acc.AccountNumber, "2024-01-01", "2024-12-31", "")) // 366 days
	ok(alice, q(acc.AccountNumber, "2026-01-01", "2026-01-01", "CSV"))
	ok(CLIActor, q("REFU000002", "2026-01-01", "2026-01-31", "pdf")) // the operator reads anyone's
	refused(alice, q(acc.AccountNumber, "2024-01-01", "2025-01-01", ""), errs.Unprocessable, "invalid_period", "to")
	// from after to is bad input, not a business rule: 400 (issue 20), with the other bad fields.
	refused(alice, q(acc.AccountNumber, "2026-02-01", "2026-01-31", ""), errs.Invalid, "invalid_input", "to")
	refused(alice, q(acc.AccountNumber, "2026-02-01", "2026-01-31", "xls"), errs.Invalid, "invalid_input", "format")
	if f := func() map[string]string {
		_, err := s.Statement(ctx, alice, q(acc.AccountNumber, "2026-02-01", "2026-01-31", "xls"))
		return errs.As(err).Fields
	}(); f["to"] == "" || f["format"] == "" {
		t.Fatalf("both bad fields at once: %v", f)
	}
	for _, bad := range []struct{ from, to, format, field string }{
		{"", "2026-01-31", "", "from"},
		{"2026-1-5", "2026-01-31", "", "from"},
		{"2026-01-01", "2026-02-30", "", "to"},
		{"2026-01-01", "2026-01-31T00:00:00Z", "", "to"},
		{"20260101", "2026-01-31", "", "from"},
		{"1969-12-31", "1970-01-01", "", "from"},
		{"9999-01-01", "9999-01-02", "", "to"},
		{"2026-01-01", "2026-01-31", "xls", "format"},
		{"2026-01-01", "2026-01-31", "pdf\x00", "format"},
		{"\xff", "2026-01-31", "", "from"},
	} {
		refused(alice, q(acc.AccountNumber, bad.from, bad.to, bad.format), errs.Invalid, "invalid_input", bad.field)
	}
	refused(alice, q("", "2026-01-01", "2026-01-31", ""), errs.Invalid, "invalid_input", "account_id")
	refused(alice, q(strings.Repeat("9", 35), "2026-01-01", "2026-01-31", ""), errs.Invalid, "invalid_input", "account_id")
	refused(alice, q("REFU\x00001", "2026-01-01", "2026-01-31", ""), errs.Invalid, "invalid_input", "account_id")
	refused(alice, q("REFU000002", "2026-01-01", "2026-01-31", ""), errs.NotFound, "account_not_found", "") // Bob's
	refused(alice, q("NOSUCH0001", "2026-01-01", "2026-01-31", ""), errs.NotFound, "account_not_found", "")
	if _, err := s.Statement(ctx, newAdmin(t, s), q(acc.AccountNumber, "2026-01-01", "2026-01-31", "")); errs.As(err).Code != "customer_only" {
		t.Fatalf("an administrator's Statement: %v", err) // statements are a customer's, as history
	}
	if _, err := s.AdminStatement(ctx, alice, q(acc.AccountNumber, "2026-01-01", "2026-01-31", "")); errs.As(err).Code != "admin_only" {
		t.Fatalf("a customer's AdminStatement: %v", err)
	}
	if _, err := s.Statement(ctx, CLIActor, q(acc.AccountNumber, "2026-01-01", "2026-01-31", "")); errs.As(err).Code != "customer_only" {
		t.Fatalf("the CLI's Statement: %v", err)
	}

	// A PDF holds at most pdfRows rows; the CSV any number.
	s.pdfRows = 1
	ok(alice, q(acc.AccountNumber, "2026-01-01", "2026-01-31", "pdf")) // one row: the opening balance
	if _, err := s.Deposit(backdated(ctx, day(t, "2026-01-02")), CLIActor, acc.AccountNumber, FundsInput{Amount: 1}, ""); err != nil {
		t.Fatal(err)
	}
	refused(alice, q(acc.AccountNumber, "2026-01-01", "2026-01-31", "pdf"), errs.Unprocessable, "statement_too_large", "format")
	ok(alice, q(acc.AccountNumber, "2026-01-01", "2026-01-31", "csv"))
}

// A statement reads one snapshot: while writers commit, each in one
// transaction, a row before the period and a row inside it, every
// statement sees as many rows before the period (its opening balance) as
// inside it. Read in two snapshots, a writer committing between the
// opening balance and the rows would show one more row than the opening
// counts.
func TestStatementIsOneSnapshot(t *testing.T) {
	t.Parallel()
	s := newService(t)
	c := newCustomer(t, s, "Sam Snapshot")
	acc := openAccountAt(t, s, c, "SNAP000001", "0", day(t, "2026-06-01"))
	before, inside := day(t, "2026-06-09").Add(12*time.Hour), day(t, "2026-06-10").Add(12*time.Hour)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				err := s.inTx(ctx, func(tx *sqlx.Tx) error {
					if _, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance + 2 WHERE id = $1`, acc.ID); err != nil {
						return err
					}
					// Two ledger rows written directly, as the test's
					// superuser may (the runtime role may not).
					_, err := tx.ExecContext(ctx, `INSERT INTO transactions (account_id, user_id, transaction_type, kind, amount, from_account_id, to_account_id, description, created_at)
						VALUES ($1, $2, 'CREDIT', 'deposit', 0.01, $1, $1, 'before', $3), ($1, $2, 'CREDIT', 'deposit', 0.01, $1, $1, 'inside', $4)`,
						acc.ID, c.UserID, before, inside)
					return err
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := 0; i < 150; i++ {
		st := parseCSVStatement(t, renderStatement(t, s, c, StatementQuery{AccountNumber: acc.AccountNumber, From: "2026-06-10", To: "2026-06-10"}))
		if money.Amount(len(st.rows)) != st.opening {
			close(stop)
			wg.Wait()
			t.Fatalf("statement %d: opening %s (cents: rows before the period), %d rows inside", i, st.opening, len(st.rows))
		}
	}
	close(stop)
	wg.Wait()
}

// At most GOMAXPROCS PDFs are built at once in a process: with every slot
// taken, a PDF statement waits, and gives up when its context ends (the
// request's deadline), while a CSV does not wait; many PDFs at once all
// come out and give their slots back. (Not parallel: it holds the
// process's slots.)
func TestStatementPDFSlots(t *testing.T) {
	s := newService(t)
	c := newCustomer(t, s, "Sol Slots")
	acc := openAccountAt(t, s, c, "SLOT000001", "10.00", day(t, "2026-01-01"))
	q := StatementQuery{AccountNumber: acc.AccountNumber, From: "2026-01-01", To: "2026-01-31", Format: "pdf"}
	release := HoldPDFSlots()
	defer release()
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	st, err := s.Statement(short, c, q)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := st.Render(&b); err == nil || b.Len() != 0 {
		t.Fatalf("a PDF built with every slot taken: %v, %d bytes", err, b.Len())
	}
	st.Close()
	renderStatement(t, s, c, StatementQuery{AccountNumber: acc.AccountNumber, From: "2026-01-01", To: "2026-01-31"}) // CSV
	release()

	var wg sync.WaitGroup
	for i := 0; i < 3*cap(pdfSlots)+1; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := s.Statement(ctx, c, q)
			if err != nil {
				t.Error(err)
				return
			}
			defer st.Close()
			var b bytes.Buffer
			if err := st.Render(&b); err != nil || !bytes.HasPrefix(b.Bytes(), []byte("%PDF-")) {
				t.Errorf("PDF: %v", err)
			}
		}()
	}
	wg.Wait()
	if len(pdfSlots) != 0 {
		t.Fatalf("%d slots still taken", len(pdfSlots))
	}
}
