package server

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"meridian/pkg/bank"
)

func TestStatementDownload(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	alice, bob := e.customer("Alice Statement"), e.customer("Bob Statement")
	_, mine := e.account(alice, "100.00")
	_, theirs := e.account(bob, 5)
	e.want(e.do("POST", "/api/user/money-transfer", alice.Token, map[string]any{"account_id": mine, "to_account_id": theirs, "amount": "12.50", "description": "=HYPERLINK(\"x\")"}), 201, "transfer")
	today := time.Now().UTC().Format("2006-01-02")
	base := "/api/user/statements?account_id=" + mine + "&from=" + today + "&to=" + today

	r := e.want(e.do("GET", base+"&format=csv", alice.Token, nil), 200, "CSV")
	if r.Header.Get("Content-Type") != "text/csv; charset=utf-8" ||
		r.Header.Get("Content-Disposition") != `attachment; filename="meridian-`+mine+`-`+today+`-`+today+`.csv"` {
		t.Fatalf("CSV headers: %v", r.Header)
	}
	recs, err := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
	if err != nil || len(recs) != 5 {
		t.Fatalf("CSV: %v\n%s", err, r.Body)
	}
	if got := strings.Join(recs[3], "|"); got != today+`|'=HYPERLINK("x")|DEBIT|-12.50|87.50|`+theirs+` (Bob Statement)` {
		t.Fatalf("transfer row: %s", got)
	}
	if recs[1][1] != "Opening balance" || recs[1][4] != "0.00" || recs[4][1] != "Closing balance" || recs[4][4] != "87.50" {
		t.Fatalf("opening and closing: %q %q", recs[1], recs[4])
	}
	// format defaults to csv
	if r := e.want(e.do("GET", base, alice.Token, nil), 200, "no format"); !bytes.Equal(r.Body, e.do("GET", base+"&format=csv", alice.Token, nil).Body) {
		t.Fatal("no format is not the CSV")
	}

	r = e.want(e.do("GET", base+"&format=pdf", alice.Token, nil), 200, "PDF")
	if r.Header.Get("Content-Type") != "application/pdf" ||
		r.Header.Get("Content-Disposition") != `attachment; filename="meridian-`+mine+`-`+today+`-`+today+`.pdf"` ||
		!bytes.HasPrefix(r.Body, []byte("%PDF-")) || !bytes.Contains(r.Body, []byte("%%EOF")) {
		t.Fatalf("PDF: %v %q", r.Header, r.Body[:min(len(r.Body), 16)])
	}

	// Refusals, all JSON and before any byte of a statement.
	wantCode := func(r resp, code, field string) {
		t.Helper()
		m := r.JSON(t)
		if m["code"] != code {
			t.Fatalf("code %v, want %s: %s", m["code"], code, r.Body)
		}
		if field != "" {
			if f, _ := m["fields"].(map[string]any); f[field] == nil {
				t.Fatalf("no field %s: %s", field, r.Body)
			}
		}
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || r.Header.Get("Content-Disposition") != "" {
			t.Fatalf("an error answered as a download: %v", r.Header)
		}
	}
	e.want(e.do("GET", base, "", nil), 401, "no token")
	e.want(e.do("GET", base, "not-a-token", nil), 401, "bad token")
	wantCode(e.want(e.do("GET", "/api/user/statements?account_id="+theirs+"&from="+today+"&to="+today, alice.Token, nil), 404, "Bob's account"), "account_not_found", "")
	wantCode(e.want(e.do("GET", "/api/user/statements?account_id=NOSUCH0001&from="+today+"&to="+today, alice.Token, nil), 404, "no account"), "account_not_found", "")
	wantCode(e.want(e.do("GET", "/api/user/statements?account_id="+mine+"&from=2026-02-01&to=2026-01-01", alice.Token, nil), 400, "to before from"), "invalid_input", "to")
	wantCode(e.want(e.do("GET", "/api/user/statements?account_id="+mine+"&from=2024-01-01&to=2025-01-01", alice.Token, nil), 422, "367 days"), "invalid_period", "to")
	wantCode(e.want(e.do("GET", "/api/user/statements?account_id="+mine+"&from=2026-13-01&to=2026-01-01", alice.Token, nil), 400, "month 13"), "invalid_input", "from")
	wantCode(e.want(e.do("GET", "/api/user/statements?account_id="+mine+"&from="+today, alice.Token, nil), 400, "no to"), "invalid_input", "to")
	wantCode(e.want(e.do("GET", base+"&format=xlsx", alice.Token, nil), 400, "format"), "invalid_input", "format")
	wantCode(e.want(e.do("GET", "/api/user/statements?from="+today+"&to="+today, alice.Token, nil), 400, "no account"), "invalid_input", "account_id")
	adm := e.admin()
	e.want(e.do("GET", base, adm.Token, nil), 403, "an admin")
	e.want(e.do("POST", base, alice.Token, nil), 405, "POST")
}

// A PDF that cannot be built within the request's deadline (every slot to
// build one is taken) answers 503 timeout with Retry-After, as any request
// past its deadline, not a 200 download of nothing. (Not parallel: it holds
// the process's PDF slots.)
func TestStatementPDFPastDeadline(t *testing.T) {
	e := newEnvWith(t, bank.Settings{}, Options{RequestTimeout: 300 * time.Millisecond})
	alice := e.customer("Alice Slow")
	_, mine := e.account(alice, "10.00")
	today := time.Now().UTC().Format("2006-01-02")
	url := "/api/user/statements?account_id=" + mine + "&from=" + today + "&to=" + today + "&format=pdf"

	release := bank.HoldPDFSlots()
	defer release()
	r := e.want(e.do("GET", url, alice.Token, nil), 503, "a PDF past its deadline")
	if code := r.JSON(t)["code"]; code != "timeout" || r.Header.Get("Retry-After") == "" || r.Header.Get("Content-Disposition") != "" {
		t.Fatalf("got %v, Retry-After %q, Content-Disposition %q", code, r.Header.Get("Retry-After"), r.Header.Get("Content-Disposition"))
	}
	release()
	if r := e.want(e.do("GET", url, alice.Token, nil), 200, "the PDF once a slot is free"); !bytes.HasPrefix(r.Body, []byte("%PDF-")) {
		t.Fatalf("not a PDF: %.20q", r.Body)
	}
}
