package server

import (
	"testing"

	"meridian/pkg/bank"
	"meridian/pkg/money"
)

func TestDailyLimitsAPI(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, bank.Settings{DailyTransferLimit: money.Amount(100_00)}, Options{})

	adm := e.admin()
	alice, bob := e.customer("Alice Limited"), e.customer("Bob Limited")
	_, from := e.account(alice, 500)
	_, to := e.account(bob, 0)
	send := func(amount any, status int) resp {
		t.Helper()
		return e.want(e.do("POST", "/api/user/money-transfer", alice.Token, map[string]any{"account_id": from, "to_account_id": to, "amount": amount}), status, "transfer")
	}

	limits := func() []bank.DailyLimit {
		t.Helper()
		r := e.want(e.do("GET", "/api/user/limits", alice.Token, nil), 200, "limits")
		if keys := jsonArray(t, r); len(keys) != 1 || len(keys[0]) != 3 {
			t.Fatalf("limits %s", r.Body)
		}
		var rows []bank.DailyLimit
		r.Into(t, &rows)
		return rows
	}
	if rows := limits(); rows[0] != (bank.DailyLimit{DailyTransferLimit: 100_00, UsedToday: 0, Currency: "USD"}) {
		t.Fatalf("limits %+v", rows)
	}
	send(60, 201)
	r := send(40.01, 422)
	if m := r.JSON(t); m["code"] != "daily_limit_exceeded" || m["error"] != "Daily transfer limit exceeded" {
		t.Fatalf("refusal %s", r.Body)
	}
	if rows := limits(); rows[0].UsedToday != 60_00 {
		t.Fatalf("limits %+v", rows)
	}

	path := "/api/admin/users/" + itoa(alice.ID) + "/limits"
	e.want(e.do("PUT", path, alice.Token, map[string]any{"daily_transfer_limit": 500}), 403, "a customer sets a limit")
	// A raise waits for a second administrator.
	wait := e.want(e.do("PUT", path, adm.Token, map[string]any{"daily_transfer_limit": "200.50"}), 202, "raise").JSON(t)
	ap := wait["approval"].(map[string]any)
	send(40.01, 422)
	e.want(e.do("POST", "/api/admin/approvals/"+itoa(int64(ap["id"].(float64)))+"/approve", e.admin().Token, nil), 200, "approve").JSON(t)
	if rows := limits(); rows[0].DailyTransferLimit != 200_50 {
		t.Fatalf("limits after the approval %+v", rows)
	}
	send(140.5, 201)
	send(0.01, 422)
	var reset bank.UserLimit
	e.want(e.do("PUT", path, adm.Token, map[string]any{"daily_transfer_limit": nil}), 200, "reset").Into(t, &reset)
	if reset != (bank.UserLimit{UserID: alice.ID, DailyTransferLimit: 100_00, Default: true}) {
		t.Fatalf("reset %+v", reset)
	}
	for _, body := range []any{map[string]any{}, map[string]any{"daily_transfer_limit": -1}, map[string]any{"daily_transfer_limit": "1.001"}, "[]"} {
		e.want(e.do("PUT", path, adm.Token, body), 400, "bad limit")
	}
	e.want(e.do("PUT", "/api/admin/users/999999/limits", adm.Token, map[string]any{"daily_transfer_limit": 1}), 404, "unknown user")
	e.want(e.do("PUT", "/api/admin/users/x/limits", adm.Token, map[string]any{"daily_transfer_limit": 1}), 404, "not an id")
	e.want(e.do("GET", "/api/user/limits", adm.Token, nil), 403, "an admin's limits")
	e.want(e.do("GET", path, adm.Token, nil), 405, "GET on limits")
}
