package bank

import (
	"fmt"
	"io"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/go-pdf/fpdf"

	"meridian/pkg/errs"
	"meridian/pkg/money"
)

// BankName heads every statement.
const BankName = "Meridian"

// The PDF statement's table: A4 portrait, 15 mm margins (180 mm of
// width), one line per ledger row. Descriptions and counterparties longer
// than their column are cut with "..." (the CSV holds them whole).
var pdfColumns = []struct {
	title string
	width float64
	align string
}{
	{"Date", 18, "L"},
	{"Description", 48, "L"},
	{"Type", 13, "L"},
	{"Amount", 28, "R"},
	{"Balance", 30, "R"},
	{"Counterparty", 43, "L"},
}

const (
	pdfRowHeight  = 5.0
	pdfCellMargin = 1.5 // within each cell, left and right
)

// pdfSlots holds one token per PDF statement being built in this process:
// at most GOMAXPROCS at once (RenderPDF).
var pdfSlots = make(chan struct{}, runtime.GOMAXPROCS(0))

// HoldPDFSlots takes every slot for building PDFs in this process, so that
// a PDF statement has to wait (tests of the transport's answer to that),
// until release is called.
func HoldPDFSlots() (release func()) {
	for range cap(pdfSlots) {
		pdfSlots <- struct{}{}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			for range cap(pdfSlots) {
				<-pdfSlots
			}
		})
	}
}

// RenderPDF writes the statement as a PDF: on every page the bank's name,
// the holder, the account, its currency and the period, then the table's
// header; the rows as in the CSV, between an "Opening balance" and a
// "Closing balance" line, amounts in the account's currency ("$1,250.50",
// "-€3.00"); after them the totals of credits and debits; "Page n of N" at
// the foot of each page. Text is set in Helvetica (Windows-1252): a
// character outside it prints as "?".
//
// fpdf builds the whole document in memory before writing it. The rows go
// from the cursor straight into the page content (about 0.27 KB a row,
// uncompressed) and no row is kept, but compressing the pages makes
// garbage: about 2 MB per page (a zlib writer each), so a 10,000-row
// statement peaks near 80 MB of heap (BenchmarkStatement10k).
// MaxPDFStatementRows bounds one PDF, and at most GOMAXPROCS PDFs are built
// at once in a process (one per core: it is CPU work anyway); more wait for
// a slot, within the statement's context.
func (st *Statement) RenderPDF(w io.Writer) error {
	select {
	case pdfSlots <- struct{}{}:
		defer func() { <-pdfSlots }()
	case <-st.ctx.Done():
		return errs.Wrap(st.ctx.Err(), "waiting to build a PDF statement")
	}
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetMargins(15, 15, 15)
	pdf.SetCellMargin(pdfCellMargin)
	pdf.SetAutoPageBreak(true, 15)
	pdf.SetCreationDate(time.Unix(0, 0).UTC())
	pdf.SetModificationDate(time.Unix(0, 0).UTC())
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	period := st.From.Format(statementDay) + " to " + st.To.Format(statementDay) + " (UTC)"
	pdf.SetTitle(tr("Statement "+st.AccountNumber+", "+period), false)
	pdf.SetAuthor(BankName, false)
	pdf.AliasNbPages("{nb}")
	amount := func(a money.Amount) string { return tr(money.Format(a, st.Currency)) }

	tableHeader := func() {
		pdf.SetFont("Helvetica", "B", 8)
		pdf.SetFillColor(230, 230, 230)
		for _, c := range pdfColumns {
			pdf.CellFormat(c.width, 6, c.title, "B", 0, c.align, true, 0, "")
		}
		pdf.Ln(-1)
		pdf.SetFont("Helvetica", "", 8)
	}
	pdf.SetHeaderFunc(func() {
		pdf.SetFont("Helvetica", "B", 16)
		pdf.CellFormat(90, 8, BankName, "", 0, "L", false, 0, "")
		pdf.SetFont("Helvetica", "", 10)
		pdf.CellFormat(90, 8, "Account statement", "", 1, "R", false, 0, "")
		pdf.SetFont("Helvetica", "", 9)
		line := func(label, value string) {
			pdf.CellFormat(28, 5, label, "", 0, "L", false, 0, "")
			pdf.CellFormat(152, 5, tr(value), "", 1, "L", false, 0, "")
		}
		line("Holder", st.Holder)
		line("Account", st.AccountNumber+" ("+st.TypeName+")")
		line("Currency", st.Currency)
		line("Period", period)
		pdf.Ln(3)
		tableHeader()
	})
	pdf.SetFooterFunc(func() {
		pdf.SetY(-12)
		pdf.SetFont("Helvetica", "", 8)
		pdf.CellFormat(0, 5, "Page "+strconv.Itoa(pdf.PageNo())+" of {nb}", "", 0, "C", false, 0, "")
	})
	pdf.AddPage()

	fit := func(s string, width float64) string {
		s = tr(s)
		width -= 2 * pdfCellMargin
		if pdf.GetStringWidth(s) <= width {
			return s
		}
		for len(s) > 0 && pdf.GetStringWidth(s+"...") > width {
			s = s[:len(s)-1]
		}
		return s + "..."
	}
	row := func(cells ...string) {
		for i, c := range pdfColumns {
			pdf.CellFormat(c.width, pdfRowHeight, cells[i], "", 0, c.align, false, 0, "")
		}
		pdf.Ln(-1)
	}
	bold := func(cells ...string) {
		pdf.SetFont("Helvetica", "B", 8)
		row(cells...)
		pdf.SetFont("Helvetica", "", 8)
	}

	bold(st.From.Format(statementDay), "Opening balance", "", "", amount(st.Opening), "")
	t, err := st.each(func(l *StatementLine) error {
		row(l.Date.UTC().Format(statementDay), fit(l.Description, pdfColumns[1].width), l.Type,
			amount(l.Amount), amount(l.Balance), fit(l.Counterparty, pdfColumns[5].width))
		return pdf.Error()
	})
	if err != nil {
		return err
	}
	bold(st.To.Format(statementDay), "Closing balance", "", "", amount(t.Closing), "")

	pdf.Ln(4)
	pdf.SetFont("Helvetica", "B", 9)
	pdf.CellFormat(0, 6, "Totals", "B", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 9)
	total := func(label, value string) {
		pdf.CellFormat(60, 5, label, "", 0, "L", false, 0, "")
		pdf.CellFormat(40, 5, value, "", 1, "R", false, 0, "")
	}
	total("Opening balance", amount(st.Opening))
	total(fmt.Sprintf("Total credits (%d)", t.CreditCount), amount(t.Credits))
	total(fmt.Sprintf("Total debits (%d)", t.DebitCount), amount(t.Debits))
	total("Closing balance", amount(t.Closing))
	return pdf.Output(w)
}
