package server

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"

	"meridian/pkg/bank"
)

func TestScheduledTransfersAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	alice := e.customer("Alice Plan")
	bob := e.customer("Bob Plan")
	_, from := e.account(alice, 100)
	_, to := e.account(bob, 0)
	runAt := time.Now().UTC().Add(time.Hour).Truncate(time.Second)
	body := map[string]any{"account_id": from, "to_account_id": to, "amount": "12.50", "description": "Rent",
		"run_at": runAt.Format(time.RFC3339), "frequency": "monthly"}

	created := e.want(e.do("POST", "/api/user/scheduled-transfers", alice.Token, body), 201, "create")
	m := created.JSON(t)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != "account_id,amount,created_at,currency,description,frequency,id,next_run_at,status,to_account_id,until" ||
		m["account_id"] != from || m["to_account_id"] != to || created.Amount(t, "amount") != 12_50 || m["status"] != "active" || m["until"] != nil ||
		m["next_run_at"] != runAt.Format(time.RFC3339) || m["frequency"] != "monthly" {
		t.Fatalf("created %v", m)
	}
	id := itoa(int64(m["id"].(float64)))

	list := e.want(e.do("GET", "/api/user/scheduled-transfers", alice.Token, nil), 200, "list")
	var rows []map[string]any
	if err := json.Unmarshal(list.Body, &rows); err != nil || len(rows) != 1 || rows[0]["id"] != m["id"] {
		t.Fatalf("list %s", list.Body)
	}
	if r := e.want(e.do("GET", "/api/user/scheduled-transfers/"+id+"/runs", alice.Token, nil), 200, "runs"); string(r.Body) != "[]" {
		t.Fatalf("runs before any %s", r.Body)
	}

	// The scheduler, an hour later.
	e.svc.SetClock(func() time.Time { return runAt.Add(time.Minute) })
	if tick, err := e.svc.RunDueScheduledTransfers(ctxBG); err != nil || tick.Succeeded != 1 {
		t.Fatalf("tick %+v %v", tick, err)
	}
	e.svc.SetClock(time.Now)
	r := e.want(e.do("GET", "/api/user/scheduled-transfers/"+id+"/runs", alice.Token, nil), 200, "runs")
	var runs []map[string]any
	if err := json.Unmarshal(r.Body, &runs); err != nil || len(runs) != 1 || runs[0]["status"] != "succeeded" || runs[0]["reason"] != nil ||
		runs[0]["transaction_id"] == nil || runs[0]["run_at"] != runAt.Format(time.RFC3339) || len(runs[0]) != 4 {
		t.Fatalf("runs %s", r.Body)
	}
	if n := e.want(e.do("GET", "/api/user/notifications", alice.Token, nil), 200, "notifications"); !strings.Contains(string(n.Body), "Scheduled transfer of $12.50 to account "+to+" succeeded") {
		t.Fatalf("notifications %s", n.Body)
	}
	if mt := e.want(e.do("GET", "/metrics", "", nil), 200, "metrics"); !strings.Contains(string(mt.Body), `meridian_scheduled_runs_total{status="succeeded"} 1`) {
		t.Fatalf("metrics lack the scheduler's figures")
	}

	// Refusals.
	past := map[string]any{"account_id": from, "to_account_id": to, "amount": 1, "run_at": "2020-01-01T00:00:00Z", "frequency": "once"}
	if r := e.want(e.do("POST", "/api/user/scheduled-transfers", alice.Token, past), 400, "past"); !strings.Contains(string(r.Body), `"run_at"`) {
		t.Fatalf("past run_at %s", r.Body)
	}
	bad := map[string]any{"account_id": from, "to_account_id": to, "amount": 1, "run_at": runAt.Format(time.RFC3339), "frequency": "hourly"}
	e.want(e.do("POST", "/api/user/scheduled-transfers", alice.Token, bad), 400, "frequency")
	e.want(e.do("POST", "/api/user/scheduled-transfers", bob.Token, body), 404, "another customer's account")
	adm := e.admin()
	e.want(e.do("GET", "/api/user/scheduled-transfers", adm.Token, nil), 403, "admin")
	e.want(e.do("GET", "/api/user/scheduled-transfers?limit=0", alice.Token, nil), 400, "limit")
	e.want(e.do("GET", "/api/user/scheduled-transfers/"+id+"/runs", bob.Token, nil), 404, "bob reads alice's runs")
	e.want(e.do("DELETE", "/api/user/scheduled-transfers/"+id, bob.Token, nil), 404, "bob cancels alice's")
	e.want(e.do("DELETE", "/api/user/scheduled-transfers/abc", alice.Token, nil), 404, "bad id")
	e.want(e.do("DELETE", "/api/user/scheduled-transfers/99999999999999999999", alice.Token, nil), 404, "id out of range")
	e.want(e.do("PUT", "/api/user/scheduled-transfers/"+id, alice.Token, nil), 405, "PUT")

	// Hostile input answers 400 (404 for a path id), never 500.
	hostile := func(field string, v any) map[string]any {
		m := map[string]any{"account_id": from, "to_account_id": to, "amount": "1.00", "run_at": runAt.Format(time.RFC3339), "frequency": "daily"}
		m[field] = v
		return m
	}
	for _, h := range []map[string]any{
		hostile("run_at", "2027-01-01T00:00:00Z\x00"), hostile("run_at", strings.Repeat("9", 65)), hostile("run_at", "2027-02-30T00:00:00Z"),
		hostile("run_at", 12), hostile("until", "\xff"), hostile("until", "2027-01-01T00:00:00+25:00"), hostile("frequency", "daily\x00"),
		hostile("frequency", strings.Repeat("d", 10000)), hostile("description", "rent\x1b[2J"), hostile("to_account_id", strings.Repeat("a", 35)),
		hostile("amount", "1e309"), hostile("user_id", -1), hostile("user_id", "99999999999999999999"),
	} {
		e.want(e.do("POST", "/api/user/scheduled-transfers", alice.Token, h), 400, "hostile input")
	}
	for _, bad := range []string{"0", "-1", "1e3", "%00", "%FF", "+1"} {
		e.want(e.do("GET", "/api/user/scheduled-transfers/"+bad+"/runs", alice.Token, nil), 404, "bad id "+bad)
		e.want(e.do("DELETE", "/api/user/scheduled-transfers/"+bad, alice.Token, nil), 404, "bad id "+bad)
	}

	e.want(e.do("DELETE", "/api/user/scheduled-transfers/"+id, alice.Token, nil), 204, "cancel")
	e.want(e.do("DELETE", "/api/user/scheduled-transfers/"+id, alice.Token, nil), 204, "cancel again")
	list = e.want(e.do("GET", "/api/user/scheduled-transfers", alice.Token, nil), 200, "list")
	if err := json.Unmarshal(list.Body, &rows); err != nil || len(rows) != 1 || rows[0]["status"] != "cancelled" || rows[0]["next_run_at"] != nil {
		t.Fatalf("after cancel %s", list.Body)
	}
}

// Over scheduled_max_active: 422 too_many_scheduled_transfers, with the
// sentence that says what to do.
func TestScheduledTransfersCap(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, bank.Settings{ScheduledMaxActive: 2}, Options{})
	alice := e.customer("Alice Cap")
	_, from := e.account(alice, 100)
	_, to := e.account(e.customer("Bob Cap"), 0)
	body := map[string]any{"account_id": from, "to_account_id": to, "amount": "1.00",
		"run_at": time.Now().UTC().Add(time.Hour).Format(time.RFC3339), "frequency": "daily"}
	e.want(e.do("POST", "/api/user/scheduled-transfers", alice.Token, body), 201, "first")
	e.want(e.do("POST", "/api/user/scheduled-transfers", alice.Token, body), 201, "second")
	m := e.want(e.do("POST", "/api/user/scheduled-transfers", alice.Token, body), 422, "third").JSON(t)
	if m["code"] != "too_many_scheduled_transfers" || m["error"] != "You already have 2 active scheduled transfers, the most allowed; cancel one before scheduling another" {
		t.Fatalf("over the cap: %v", m)
	}
}
