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

	rows := jsonArray(t, e.want(e.do("GET", "/api/user/limits", alice.Token, nil), 200, "limits"))
	if len(rows) != 1 || rows[0]["daily_transfer_limit"] != 100.0 || rows[0]["used_today"] != 0.0 || rows[0]["currency"] != "USD" || len(rows[0]) != 3 {
		t.Fatalf("limits %v", rows)
	}
	send(60, 201)
	r := send(40.01, 422)
	if m := r.JSON(t); m["code"] != "daily_limit_exceeded" || m["error"] != "Daily transfer limit exceeded" {
		t.Fatalf("refusal %s", r.Body)
	}
	if rows := jsonArray(t, e.want(e.do("GET", "/api/user/limits", alice.Token, nil), 200, "limits")); rows[0]["used_today"] != 60.0 {
		t.Fatalf("limits %v", rows)
	}

	path := "/api/admin/users/" + itoa(alice.ID) + "/limits"
	e.want(e.do("PUT", path, alice.Token, map[string]any{"daily_transfer_limit": 500}), 403, "a customer sets a limit")
	m := e.want(e.do("PUT", path, adm.Token, map[string]any{"daily_transfer_limit": "200.50"}), 200, "set").JSON(t)
	if m["daily_transfer_limit"] != 200.5 || m["default"] != false || m["user_id"] != float64(alice.ID) {
		t.Fatalf("set %v", m)
	}
	send(140.5, 201)
	send(0.01, 422)
	m = e.want(e.do("PUT", path, adm.Token, map[string]any{"daily_transfer_limit": nil}), 200, "reset").JSON(t)
	if m["daily_transfer_limit"] != 100.0 || m["default"] != true {
		t.Fatalf("reset %v", m)
	}
	for _, body := range []any{map[string]any{}, map[string]any{"daily_transfer_limit": -1}, map[string]any{"daily_transfer_limit": "1.001"}, "[]"} {
		e.want(e.do("PUT", path, adm.Token, body), 400, "bad limit")
	}
	e.want(e.do("PUT", "/api/admin/users/999999/limits", adm.Token, map[string]any{"daily_transfer_limit": 1}), 404, "unknown user")
	e.want(e.do("PUT", "/api/admin/users/x/limits", adm.Token, map[string]any{"daily_transfer_limit": 1}), 404, "not an id")
	e.want(e.do("GET", "/api/user/limits", adm.Token, nil), 403, "an admin's limits")
	e.want(e.do("GET", path, adm.Token, nil), 405, "GET on limits")
}
