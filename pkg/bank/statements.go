package bank

import (
	"context"
	"database/sql"
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// Statements: one account's ledger over a period of whole days (UTC), as CSV
// or PDF. A statement is read in one REPEATABLE READ, read-only transaction,
// so its opening balance and its rows come from the same snapshot, and its
// rows are read through a cursor and written out one by one: a CSV
// statement holds one row in memory, however long the period.
//
// The balances come from the ledger (the view ledger_entries,
// migrations/0015: a CREDIT adds, a DEBIT subtracts, said once): the
// opening balance is the sum of the account's entries dated before the
// first day, each row's balance the opening plus the entries up to it, the
// closing balance the opening plus all of the period's entries.

// Statement formats.
const (
	StatementCSV = "csv"
	StatementPDF = "pdf"
)

// MaxStatementDays is the longest period of one statement, in days, both
// ends included: a leap year.
const MaxStatementDays = 366

// MaxPDFStatementRows is the most ledger rows a PDF statement holds. A PDF
// is built in memory before its first byte goes out (10,000 rows: about
// 200 pages, 0.5 MB, and a heap that peaks near 80 MB while fpdf compresses
// the pages; see BenchmarkStatement10k); a longer period is refused with
// statement_too_large (CSV streams any length).
const MaxPDFStatementRows = 10_000

// statementDay is how the query writes a day, and the CSV a row's date.
const statementDay = "2006-01-02"

// The first and last day a statement may name.
var (
	firstStatementDay = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	lastStatementDay  = time.Date(9998, 12, 31, 0, 0, 0, 0, time.UTC)
)

// StatementQuery asks for one account's statement. From and To are days,
// YYYY-MM-DD, both included, in UTC: the statement holds the rows dated
// from From 00:00:00 up to, not including, the day after To 00:00:00.
// Format is csv (the default when empty) or pdf.
type StatementQuery struct {
	AccountNumber string
	From, To      string
	Format        string
}

// Statement is an open statement: its account, period and opening
// balance, and the read-only transaction its rows are read in. Write it
// (Render, RenderCSV, RenderPDF; each may be called more than once and reads
// the same snapshot), then Close it. The transaction lives in the context
// the statement was opened with: cancelling it ends the statement.
type Statement struct {
	AccountNumber string
	Holder        string
	TypeName      string
	Currency      string
	Format        string
	From, To      time.Time    // the first and the last day, 00:00 UTC
	Opening       money.Amount // the balance at From 00:00:00 UTC

	ctx       context.Context
	tx        *sqlx.Tx
	accountID int64
}

// StatementLine is one ledger row of a statement. Amount is signed (a
// DEBIT is negative); Balance is the running balance after the row;
// Counterparty is the other account of a transfer or a paid request
// ("200300400 (Bob Stone)"), or the bank (BankName) for money that came in
// or went out at the bank: an opening balance, a balance adjustment, a
// deposit, a withdrawal, interest, an exchange.
type StatementLine struct {
	Date          time.Time    `db:"created_at"`
	Type          string       `db:"transaction_type"`
	Amount        money.Amount `db:"signed_amount"`
	Description   string       `db:"description"`
	CounterNumber *string      `db:"counter_number"`
	CounterName   *string      `db:"counter_name"`
	// Bank: the other end is the bank itself (a deposit, a withdrawal, an
	// opening balance, an adjustment, interest, an exchange).
	Bank         bool         `db:"bank"`
	Balance      money.Amount `db:"-"`
	Counterparty string       `db:"-"`
}

// StatementTotals sums a statement's rows.
type StatementTotals struct {
	Credits, Debits         money.Amount // Debits is negative (or 0)
	CreditCount, DebitCount int
	Closing                 money.Amount
}

var (
	errPeriodTooLong  = periodError("to", fmt.Sprintf("A statement covers at most %d days; ask for a shorter period", MaxStatementDays))
	errStatementLarge = &errs.Error{Kind: errs.Unprocessable, Code: "statement_too_large",
		Message: fmt.Sprintf("A PDF statement holds at most %d transactions; download it as CSV or ask for a shorter period", MaxPDFStatementRows),
		Fields:  map[string]string{"format": "Too many transactions for a PDF; use csv or a shorter period"}}
)

func periodError(field, msg string) *errs.Error {
	return &errs.Error{Kind: errs.Unprocessable, Code: "invalid_period", Message: msg, Fields: map[string]string{field: msg}}
}

// normalize checks the query before any query: the account number's
// characters and length, the two days, their order and the format (400
// invalid_input, every bad field at once: a period that ends before it
// begins is no period), then the period's length, a rule of the bank (422
// invalid_period).
func (q *StatementQuery) normalize() (from, to time.Time, err error) {
	bad := map[string]string{}
	var first string
	fail := func(field, msg string) {
		if first == "" {
			first = msg
		}
		bad[field] = msg
	}
	if q.AccountNumber, err = cleanAccountRef("account_id", q.AccountNumber, true); err != nil {
		fail("account_id", errs.As(err).Message)
	}
	day := func(field, v string) time.Time {
		if v == "" {
			fail(field, field+" is required, as YYYY-MM-DD")
			return time.Time{}
		}
		d, err := time.Parse(statementDay, v)
		if err != nil || len(v) != len(statementDay) {
			fail(field, field+" must be a date written YYYY-MM-DD")
			return time.Time{}
		}
		if d.Before(firstStatementDay) || d.After(lastStatementDay) {
			fail(field, field+" must be a date between 1970-01-01 and 9998-12-31")
		}
		return d
	}
	from, to = day("from", q.From), day("to", q.To)
	if bad["from"] == "" && bad["to"] == "" && to.Before(from) {
		fail("to", "to must not be before from")
	}
	switch q.Format = strings.ToLower(q.Format); q.Format {
	case "":
		q.Format = StatementCSV
	case StatementCSV, StatementPDF:
	default:
		fail("format", "format must be csv or pdf")
	}
	if len(bad) > 0 {
		return from, to, &errs.Error{Kind: errs.Invalid, Code: "invalid_input", Message: first, Fields: bad}
	}
	if to.Sub(from) >= MaxStatementDays*24*time.Hour {
		return from, to, errPeriodTooLong
	}
	return from, to, nil
}

// Statement opens the statement of one of the caller's accounts (open or
// closed). Another customer's account answers 404, as a missing one does.
// Close the statement when done.
//
// Returns customer_only (403), invalid_input (400: account_id, from, to (or
// to before from) or format), invalid_period (422: more than
// MaxStatementDays), account_not_found (404) or statement_too_large (422: a
// PDF of more than MaxPDFStatementRows rows).
func (s *Service) Statement(ctx context.Context, a Actor, q StatementQuery) (*Statement, error) {
	if err := requireCustomer(a); err != nil {
		return nil, err
	}
	return s.openStatement(ctx, a.UserID, q)
}

// AdminStatement is Statement over any customer's account, for the
// operator at the command line (and administrators).
//
// Returns admin_only (403), and otherwise as Statement.
func (s *Service) AdminStatement(ctx context.Context, a Actor, q StatementQuery) (*Statement, error) {
	if err := requireAdmin(a); err != nil {
		return nil, err
	}
	return s.openStatement(ctx, 0, q)
}

// openStatement opens the statement of an account of owner (0: anyone's),
// on a read replica when there are any (one that has replayed the caller's
// last write, see Service.reader).
func (s *Service) openStatement(ctx context.Context, owner int64, q StatementQuery) (*Statement, error) {
	from, to, err := q.normalize()
	if err != nil {
		return nil, err
	}
	tx, err := s.reader(ctx).BeginTxx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return nil, errs.Wrap(err, "begin statement")
	}
	st := &Statement{Format: q.Format, From: from, To: to, ctx: ctx, tx: tx}
	var acct struct {
		ID       int64  `db:"id"`
		Number   string `db:"account_number"`
		Holder   string `db:"full_name"`
		TypeName string `db:"type_name"`
		Currency string `db:"currency"`
	}
	err = tx.GetContext(ctx, &acct, `SELECT a.id, a.account_number, u.full_name, t.type_name, a.currency
		FROM accounts a JOIN users u ON u.id = a.user_id JOIN account_types t ON t.id = a.account_type_id
		WHERE a.account_number = $1 AND ($2::bigint = 0 OR a.user_id = $2)`, q.AccountNumber, owner)
	if err != nil {
		tx.Rollback()
		if notFound(err) {
			return nil, errs.ErrAccountNotFound
		}
		return nil, errs.Wrap(err, "statement account")
	}
	st.accountID, st.AccountNumber, st.Holder, st.TypeName, st.Currency = acct.ID, acct.Number, acct.Holder, acct.TypeName, strings.TrimSpace(acct.Currency)
	if err := tx.GetContext(ctx, &st.Opening, `SELECT COALESCE(sum(signed_amount), 0) FROM ledger_entries
		WHERE account_id = $1 AND created_at < $2`, st.accountID, st.From); err != nil {
		tx.Rollback()
		return nil, errs.Wrap(err, "opening balance")
	}
	if limit := s.pdfRows; st.Format == StatementPDF {
		if limit <= 0 {
			limit = MaxPDFStatementRows
		}
		var n int
		if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM (SELECT 1 FROM ledger_entries
			WHERE account_id = $1 AND created_at >= $2 AND created_at < $3 LIMIT $4) r`,
			st.accountID, st.From, st.end(), limit+1); err != nil {
			tx.Rollback()
			return nil, errs.Wrap(err, "statement size")
		}
		if n > limit {
			tx.Rollback()
			return nil, errStatementLarge
		}
	}
	return st, nil
}

// Close ends the statement's transaction (it wrote nothing).
func (st *Statement) Close() error {
	err := st.tx.Rollback()
	if err == sql.ErrTxDone {
		return nil
	}
	return err
}

// end is the first moment after the period: the day after To, 00:00 UTC.
func (st *Statement) end() time.Time { return st.To.AddDate(0, 0, 1) }

// FileName is the name a download of the statement is saved under:
// meridian-<account>-<from>-<to>.<format>.
func (st *Statement) FileName() string {
	return fmt.Sprintf("meridian-%s-%s-%s.%s", st.AccountNumber, st.From.Format(statementDay), st.To.Format(statementDay), st.Format)
}

// ContentType is the statement's media type.
func (st *Statement) ContentType() string {
	if st.Format == StatementPDF {
		return "application/pdf"
	}
	return "text/csv; charset=utf-8"
}

// Render writes the statement in its format.
func (st *Statement) Render(w io.Writer) error {
	if st.Format == StatementPDF {
		return st.RenderPDF(w)
	}
	return st.RenderCSV(w)
}

// each reads the period's ledger rows, oldest first (by date, then id),
// through a cursor, and calls fn with each, its running balance and its
// counterparty filled in. It returns the totals. The line passed to fn is
// reused: fn must not keep it.
func (st *Statement) each(fn func(l *StatementLine) error) (StatementTotals, error) {
	t := StatementTotals{Closing: st.Opening}
	// The counterparty is the other account of a transfer or a request, or
	// the bank: the other end of money that came in or went out at the bank
	// (one of the bank's own accounts, migrations/0018; before double entry
	// such a row named the account itself at both ends).
	rows, err := st.tx.QueryxContext(st.ctx, `SELECT e.created_at, e.transaction_type, e.signed_amount, e.description,
			CASE WHEN o.class = 'customer' THEN o.account_number END AS counter_number, ou.full_name AS counter_name,
			coalesce(o.class <> 'customer', e.from_account_id = e.to_account_id) AS bank
		FROM ledger_entries e
		LEFT JOIN accounts o ON o.id = CASE WHEN e.from_account_id = e.account_id THEN e.to_account_id ELSE e.from_account_id END
			AND o.id <> e.account_id
		LEFT JOIN users ou ON ou.id = o.user_id
		WHERE e.account_id = $1 AND e.created_at >= $2 AND e.created_at < $3
		ORDER BY e.created_at, e.id`, st.accountID, st.From, st.end())
	if err != nil {
		return t, errs.Wrap(err, "statement rows")
	}
	defer rows.Close()
	var l StatementLine
	for rows.Next() {
		l.CounterNumber, l.CounterName, l.Bank = nil, nil, false
		if err := rows.StructScan(&l); err != nil {
			return t, errs.Wrap(err, "statement row")
		}
		t.Closing += l.Amount
		l.Balance = t.Closing
		if l.Amount < 0 {
			t.Debits += l.Amount
			t.DebitCount++
		} else {
			t.Credits += l.Amount
			t.CreditCount++
		}
		l.Counterparty = ""
		if l.Bank {
			l.Counterparty = BankName
		}
		if l.CounterNumber != nil {
			l.Counterparty = *l.CounterNumber
			if l.CounterName != nil {
				l.Counterparty += " (" + *l.CounterName + ")"
			}
		}
		if err := fn(&l); err != nil {
			return t, err
		}
	}
	return t, errs.Wrap(rows.Err(), "statement rows")
}

// StatementCSVHeader is the first line of a CSV statement.
var StatementCSVHeader = []string{"date", "description", "type", "amount", "balance", "counterparty"}

// RenderCSV writes the statement as CSV (RFC 4180: CRLF line ends; UTF-8): the header
// line, an "Opening balance" row dated From, one row per ledger row
// (date YYYY-MM-DD in UTC, description, CREDIT or DEBIT, the signed amount,
// the balance after it, the counterparty), and a "Closing balance" row dated
// To. Amounts are plain decimals with two places ("-12.50"); the opening and
// closing rows leave type, amount and counterparty empty. A text cell that
// a spreadsheet would run as a formula (starting with = + - @, a tab or a
// carriage return) is written after a ' (CSV injection).
func (st *Statement) RenderCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	rec := make([]string, len(StatementCSVHeader))
	if err := cw.Write(StatementCSVHeader); err != nil {
		return err
	}
	if err := cw.Write([]string{st.From.Format(statementDay), "Opening balance", "", "", st.Opening.String(), ""}); err != nil {
		return err
	}
	t, err := st.each(func(l *StatementLine) error {
		rec[0] = l.Date.UTC().Format(statementDay)
		rec[1] = csvText(l.Description)
		rec[2] = l.Type
		rec[3] = l.Amount.String()
		rec[4] = l.Balance.String()
		rec[5] = csvText(l.Counterparty)
		return cw.Write(rec)
	})
	if err != nil {
		return err
	}
	if err := cw.Write([]string{st.To.Format(statementDay), "Closing balance", "", "", t.Closing.String(), ""}); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// csvText defuses a cell a spreadsheet would take for a formula.
func csvText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
