package server

import "testing"

// The money-request list is a bare array (the first app reads only an
// array); the admin's stays {"data": [...]}.
func TestMoneyRequestListShapes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.customer("Ann Array"), e.customer("Ben Bare")
	_, an := e.account(a, 10)
	_, bn := e.account(b, 10)
	e.want(e.do("POST", "/api/user/money-request", a.Token, map[string]any{"requester_id": an, "recipient_id": bn, "amount": "2.50"}), 201, "request")
	for _, u := range []user{a, b} {
		var list []map[string]any
		mustUnmarshal(t, e.want(e.do("GET", "/api/user/transactions/money-request", u.Token, nil), 200, "list").Body, &list)
		if len(list) != 1 || list[0]["Amount"] != 2.5 || list[0]["requester_id"] != an {
			t.Fatalf("list %v", list)
		}
	}
	adm := e.admin()
	m := e.want(e.do("GET", "/api/admin/transactions/money-request", adm.Token, nil), 200, "admin list").JSON(t)
	if l, ok := m["data"].([]any); !ok || len(l) != 1 {
		t.Fatalf("admin list %v", m)
	}
}
