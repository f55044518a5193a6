package fault

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"meridian/pkg/loadtest"
)

// TestBooksUnderCrash kills, with SIGKILL, a `meridian interest run` in the
// middle of its work and `meridian serve` in the middle of exchanges
// between currencies, then checks that every posting happened exactly
// once: each account accrued each day once and was paid each month once
// (one interest posting per payment, no payment without its posting), every
// exchange answered 201 is in the ledger once (four legs) and no other
// exchange is, every used quote was used by one exchange, and the books
// balance in every currency.
func TestBooksUnderCrash(t *testing.T) {
	bin := binary(t)
	pgctl := findPgCtl(t)
	dir, err := os.MkdirTemp("/tmp", "mbks")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, bin: bin, pgctl: pgctl, dir: dir, port: freePort(t)}
	t.Cleanup(h.cleanup)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	h.startServe()
	h.waitReady(ctx, "first start")
	dbx := h.openDB(ctx)
	customers, mark := h.seedCustomers(ctx, dbx, 60, 8, "--accounts-per-user", "2") // the second a Savings account
	h.run("fx", "set", "EUR", "USD", "1.0842")

	// 1. Interest: a run through a day far ahead (a long catch-up for every
	// savings account), killed part way.
	through := time.Now().UTC().AddDate(0, 0, 360).Format(time.DateOnly)
	var savings int
	if err := dbx.GetContext(ctx, &savings, `SELECT count(*) FROM interest_cursors`); err != nil {
		t.Fatal(err)
	}
	want := savings * 361 // every cursor starts yesterday: 361 days to accrue through `through`
	cmd := exec.Command(bin, "interest", "run", "--through", through, "--data-dir", dir, "--log-level", "warn")
	cmd.Env = h.env()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	accrued := func() int {
		var n int
		if err := dbx.GetContext(ctx, &n, `SELECT count(*) FROM interest_accruals`); err != nil {
			t.Fatal(err)
		}
		return n
	}
	deadline := time.Now().Add(time.Minute)
	for accrued() < want/4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	atKill := accrued()
	t.Logf("killed `meridian interest run` (SIGKILL) at %d of %d account-days (%d savings accounts)", atKill, want, savings)
	if atKill == 0 || atKill >= want {
		t.Fatalf("the kill did not land part way: %d of %d account-days; output:\n%s", atKill, want, out.String())
	}
	h.run("interest", "run", "--through", through)

	// 2. Exchanges, with serve killed in the middle.
	client := loadtest.NewClient(16, 15*time.Second)
	type exchanger struct {
		token    string
		usd, eur string
	}
	people := make([]exchanger, 0, 16)
	for _, c := range customers[:16] {
		token, err := loadtest.SignIn(ctx, client, h.url(), c.Email, c.Password)
		if err != nil {
			t.Fatal(err)
		}
		eur := fmt.Sprintf("EU%08d", c.UserID)
		if st, body := call(ctx, client, h.url(), "POST", "/api/user/accounts", token, "", map[string]any{"account_number": eur, "balance": 0, "account_type_id": 4}); st != 201 {
			t.Fatalf("open a EUR account: %d %s", st, body)
		}
		people = append(people, exchanger{token, c.Accounts[0], eur})
	}
	var mu sync.Mutex
	confirmed := map[int64]bool{} // the source DEBIT row of every exchange answered 201
	var unknown, refused atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i, p := range people {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), 3))
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				st, body := call(ctx, client, h.url(), "POST", "/api/user/fx-quotes", p.token, "",
					map[string]any{"from_account_id": p.usd, "to_account_id": p.eur, "amount": 2 + r.IntN(300)})
				if st != 201 {
					time.Sleep(50 * time.Millisecond) // serve is down, or the account is empty
					continue
				}
				var q struct {
					ID int64 `json:"id"`
				}
				json.Unmarshal(body, &q)
				key := fmt.Sprintf("fx-%d-%d", i, n)
				// Until the answer is definite: the same key makes a retry safe.
				for attempt := 0; ; attempt++ {
					st, body = call(ctx, client, h.url(), "POST", "/api/user/fx-transfers", p.token, key, map[string]any{"quote_id": q.ID})
					if st == 201 {
						var res struct {
							Transaction struct {
								ID int64 `json:"id"`
							} `json:"transaction"`
						}
						json.Unmarshal(body, &res)
						mu.Lock()
						confirmed[res.Transaction.ID] = true
						mu.Unlock()
						break
					}
					if st >= 400 && st < 500 {
						refused.Add(1) // quote_expired after a long outage, insufficient_funds
						break
					}
					if attempt == 0 {
						unknown.Add(1)
					}
					if ctx.Err() != nil {
						return
					}
					time.Sleep(100 * time.Millisecond)
				}
			}
		}()
	}
	exchanges := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(confirmed)
	}
	deadline = time.Now().Add(time.Minute)
	for exchanges() < 50 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	h.killServe()
	t.Logf("killed serve (SIGKILL) after %d exchanges answered 201", exchanges())
	time.Sleep(500 * time.Millisecond)
	h.startServe()
	h.waitReady(ctx, "restart after SIGKILL")
	before := exchanges()
	deadline = time.Now().Add(time.Minute)
	for exchanges() < before+50 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	t.Logf("%d exchanges answered 201 (%d after the restart), %d had no answer at first and were sent again under their key, %d refused",
		exchanges(), exchanges()-before, unknown.Load(), refused.Load())
	if exchanges() <= before {
		t.Fatalf("no exchange after the restart; log:\n%s", h.serveLogTail())
	}

	// Exactly once, everywhere.
	var postings []struct {
		ID   int64 `db:"posting_id"`
		Legs int   `db:"legs"`
	}
	if err := dbx.SelectContext(ctx, &postings, `SELECT posting_id, count(*) AS legs FROM transactions
		WHERE kind = 'exchange' AND id > $1 GROUP BY posting_id`, mark.MaxTransactionID); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	for _, p := range postings {
		if p.Legs != 4 {
			t.Errorf("exchange %d has %d legs", p.ID, p.Legs)
		}
		if !confirmed[p.ID] {
			t.Errorf("exchange %d is in the ledger but was never answered 201", p.ID)
		}
	}
	if len(postings) != len(confirmed) {
		t.Errorf("%d exchanges answered 201, %d in the ledger", len(confirmed), len(postings))
	}
	mu.Unlock()
	var used int
	if err := dbx.GetContext(ctx, &used, `SELECT count(*) FROM fx_quotes WHERE used_at IS NOT NULL`); err != nil {
		t.Fatal(err)
	}
	if used != len(postings) {
		t.Errorf("%d quotes used, %d exchanges", used, len(postings))
	}
	var interest struct {
		Accruals  int `db:"accruals"`
		Payments  int `db:"payments"`
		Postings  int `db:"postings"`
		Orphans   int `db:"orphans"`
		Duplicate int `db:"duplicate"`
	}
	if err := dbx.GetContext(ctx, &interest, `SELECT
			(SELECT count(*) FROM interest_accruals) AS accruals,
			(SELECT count(*) FROM interest_payments WHERE posting_id IS NOT NULL) AS payments,
			(SELECT count(DISTINCT posting_id) FROM transactions WHERE kind = 'interest') AS postings,
			(SELECT count(*) FROM transactions t WHERE t.kind = 'interest' AND t.id = t.posting_id
				AND NOT EXISTS (SELECT 1 FROM interest_payments p WHERE p.posting_id = t.id)) AS orphans,
			(SELECT count(*) FROM (SELECT account_id, date_trunc('month', created_at) FROM transactions
				WHERE kind = 'interest' AND user_id IS NOT NULL GROUP BY 1, 2 HAVING count(*) > 1) d) AS duplicate`); err != nil {
		t.Fatal(err)
	}
	t.Logf("interest: %d account-days accrued, %d payments posted", interest.Accruals, interest.Payments)
	if interest.Accruals < want || interest.Payments != interest.Postings || interest.Orphans != 0 || interest.Duplicate != 0 || interest.Payments < savings*11 {
		t.Errorf("interest not exactly once: %+v (want %d accruals at least, %d savings accounts paid 12 months)", interest, want, savings)
	}
	inv, err := loadtest.CheckInvariants(ctx, dbx, loadtest.InvariantOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range inv.Problems {
		t.Errorf("invariant: %s", p)
	}
	if out, err := h.runErr("ledger", "trial-balance"); err != nil {
		t.Errorf("meridian ledger trial-balance: %v\n%s", err, out)
	}
}

// call sends a JSON request and returns the status and body; 0 when no
// answer came.
func call(ctx context.Context, client *http.Client, base, method, path, token, key string, body any) (int, []byte) {
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(base, "/")+path, bytes.NewReader(b))
	if err != nil {
		return 0, nil
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, nil
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, out
}
