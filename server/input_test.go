package server

import (
	"net/url"
	"strings"
	"testing"

	"meridian/pkg/bank"
)

// TestHostileInputsPerEndpoint: bytes PostgreSQL refuses (NUL, invalid
// UTF-8, control characters), over-long text and ids past their column
// answer 400 (404 for an id in the path) on every endpoint, never 500.
func TestHostileInputsPerEndpoint(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.customer("Hal Hostile")
	b := e.customer("Bo Target")
	adm := e.admin()
	_, anum := e.account(a, "100.00")
	_, bnum := e.account(b, "0")
	q := url.QueryEscape
	long := func(n int) string { return strings.Repeat("a", n) }
	type c struct {
		method, path, token string
		body                any
		status              int
		headers             []string
	}
	reg := func(field, v string) map[string]any {
		m := map[string]any{"full_name": "Eve Example", "email": "eve" + long(3) + "@x.test", "phone_number": "+1 555 0100", "password": "password123"}
		m[field] = v
		return m
	}
	transfer := func(field string, v any) map[string]any {
		m := map[string]any{"account_id": anum, "to_account_id": bnum, "amount": "1.00"}
		m[field] = v
		return m
	}
	request := func(field string, v any) map[string]any {
		m := map[string]any{"requester_id": anum, "recipient_id": bnum, "amount": "1.00"}
		m[field] = v
		return m
	}
	account := func(raw string) string { return `{"account_number":"HOST00001","balance":0,` + raw + `}` }
	cases := []c{
		// Authentication.
		{"POST", "/api/auth/register", "", reg("full_name", "Eve\x00"), 400, nil},
		{"POST", "/api/auth/register", "", reg("full_name", "Eve\x1b[2J"), 400, nil},
		{"POST", "/api/auth/register", "", reg("full_name", long(101)), 400, nil},
		{"POST", "/api/auth/register", "", reg("email", long(250)+"@x.test"), 400, nil},
		{"POST", "/api/auth/register", "", reg("email", "eve\x00@x.test"), 400, nil},
		{"POST", "/api/auth/register", "", reg("phone_number", strings.Repeat("5", 33)), 400, nil},
		{"POST", "/api/auth/register", "", reg("phone_number", "+1 555\x000100"), 400, nil},
		{"POST", "/api/auth/register", "", reg("password", long(73)), 400, nil},
		{"POST", "/api/auth/register", "", reg("password", "password\x00123"), 400, nil},
		{"POST", "/api/auth/login", "", map[string]any{"email": "a\x00@x.test", "password": "password123"}, 400, nil},
		{"POST", "/api/auth/login", "", map[string]any{"email": long(250) + "@x.test", "password": "password123"}, 400, nil},
		{"POST", "/api/auth/login", "", map[string]any{"email": a.Email, "password": long(73)}, 400, nil},
		{"POST", "/api/user/password-reset", a.Token, map[string]any{"old_password": long(73), "new_password": "password456"}, 400, nil},
		{"POST", "/api/user/password-reset", a.Token, map[string]any{"old_password": "password123", "new_password": "pass\x00word456"}, 400, nil},

		// Accounts.
		{"POST", "/api/user/accounts", a.Token, account(`"account_type_id":99999`), 400, nil},
		{"POST", "/api/user/accounts", a.Token, account(`"account_type_id":32768`), 400, nil},
		{"POST", "/api/user/accounts", a.Token, account(`"account_type_id":-1`), 400, nil},
		{"POST", "/api/user/accounts", a.Token, account(`"account_type_id":1e10`), 400, nil},
		{"POST", "/api/user/accounts", a.Token, account(`"account_type_id":99999999999999999999`), 400, nil},
		{"POST", "/api/user/accounts", a.Token, account(`"account_type_id":1,"user_id":-1`), 400, nil},
		{"POST", "/api/user/accounts", a.Token, account(`"account_type_id":1,"user_id":0`), 400, nil},
		{"POST", "/api/user/accounts", a.Token, account(`"account_type_id":1,"user_id":99999999999999999999`), 400, nil},
		{"POST", "/api/user/accounts", a.Token, `{"account_number":"HOST\u000000001","balance":0,"account_type_id":1}`, 400, nil},
		{"GET", "/api/user/account-details?account_number=" + q("ab\x00cdef"), a.Token, nil, 400, nil},
		{"GET", "/api/user/account-details?account_number=" + q("ab\xffcdef"), a.Token, nil, 400, nil},
		{"GET", "/api/user/account-details?account_number=" + long(35), a.Token, nil, 400, nil},
		{"GET", "/api/user/accounts?user_id=-1", a.Token, nil, 200, nil}, // the list takes no user_id query
		{"GET", "/api/user/transactions/money-request?user_id=-1", a.Token, nil, 400, nil},
		{"GET", "/api/user/transactions/money-request?user_id=99999999999999999999", a.Token, nil, 400, nil},
		{"GET", "/api/user/transactions/money-request?user_id=" + itoa(b.ID), a.Token, nil, 403, nil},

		// Money.
		{"POST", "/api/user/money-transfer", a.Token, transfer("to_account_id", "\x00"), 400, nil},
		{"POST", "/api/user/money-transfer", a.Token, transfer("to_account_id", long(35)), 400, nil},
		{"POST", "/api/user/money-transfer", a.Token, transfer("account_id", "\u0085"), 400, nil},
		{"POST", "/api/user/money-transfer", a.Token, transfer("description", "rent\x00"), 400, nil},
		{"POST", "/api/user/money-transfer", a.Token, transfer("description", long(256)), 400, nil},
		{"POST", "/api/user/money-transfer", a.Token, transfer("user_id", -7), 400, nil},
		{"POST", "/api/user/money-transfer", a.Token, transfer("amount", "1e309"), 400, nil},
		{"POST", "/api/user/money-transfer", a.Token, transfer("amount", 1e300), 400, nil},
		{"POST", "/api/user/money-transfer", a.Token, transfer("amount", "1.00"), 400, []string{"Idempotency-Key", "key\xff"}},
		{"POST", "/api/user/money-transfer", a.Token, transfer("amount", "1.00"), 400, []string{"Idempotency-Key", "key\tvalue"}},
		{"POST", "/api/user/money-transfer", a.Token, transfer("amount", "1.00"), 400, []string{"Idempotency-Key", long(256)}},
		{"POST", "/api/user/money-transfer", a.Token, transfer("description", "rent\tMarch\nthanks"), 201, []string{"Idempotency-Key", long(255)}},
		{"POST", "/api/user/money-request", a.Token, request("recipient_id", "\x00"), 400, nil},
		{"POST", "/api/user/money-request", a.Token, `{"requester_id":"\xff","recipient_id":"` + bnum + `","amount":"1.00"}`, 400, nil},
		{"POST", "/api/user/money-request", a.Token, request("requester_id", "\ufffd"), 404, nil}, // what encoding/json would have made of it
		{"POST", "/api/user/money-request", a.Token, request("description", "bell\a"), 400, nil},
		{"POST", "/api/user/money-request", a.Token, request("user_id", 0), 400, nil},
		{"GET", "/api/user/transactions/history?account_id=" + q("\x00"), a.Token, nil, 400, nil},
		{"GET", "/api/user/transactions/history?account_id=" + q("\xff"), a.Token, nil, 400, nil},
		{"GET", "/api/user/transactions/history?transaction_type=" + q("DEBIT\x00"), a.Token, nil, 400, nil},
		{"GET", "/api/user/transactions/history?limit=0", a.Token, nil, 400, nil},
		{"GET", "/api/user/transactions/history?limit=99999999999999999999", a.Token, nil, 400, nil},
		{"GET", "/api/user/transactions/history?before=garbage", a.Token, nil, 400, nil},
		{"GET", "/api/user/transactions/history?before=" + *bank.EncodeCursor(1 << 62), a.Token, nil, 200, nil},
		{"GET", "/api/user/transactions/history?user_id=abc", a.Token, nil, 400, nil},
		{"GET", "/api/user/transactions/history?user_id=-1", a.Token, nil, 400, nil},

		// Notifications.
		{"GET", "/api/user/notifications?filter=" + q("all\x00"), a.Token, nil, 400, nil},
		{"GET", "/api/user/notifications?limit=-5", a.Token, nil, 400, nil},
		{"GET", "/api/user/notifications?user_id=0", a.Token, nil, 400, nil},

		// Administration.
		{"POST", "/api/admin/assign-roles", adm.Token, map[string]any{"user_id": -1, "roles": []string{"Admin"}}, 400, nil},
		{"POST", "/api/admin/assign-roles", adm.Token, `{"user_id":99999999999999999999,"roles":["User"]}`, 400, nil},
		{"POST", "/api/admin/assign-roles", adm.Token, map[string]any{"user_id": b.ID, "roles": []string{"Admin\x00"}}, 400, nil},
		{"GET", "/api/admin/audit-logs?before=" + q("\x00\xff"), adm.Token, nil, 400, nil},
		{"GET", "/api/admin/audit-logs?before=aWQ6OTk5OTk5OTk5OTk5OTk5OTk5OTk5", adm.Token, nil, 400, nil}, // id:99999999999999999999
		{"GET", "/api/admin/audit-logs?before=" + *bank.EncodeCursor(9999999999), adm.Token, nil, 200, nil},
		{"GET", "/api/admin/transactions/history?account_id=" + q("\xff"), adm.Token, nil, 400, nil},
		{"GET", "/api/admin/transactions/history?before=" + q("id:5"), adm.Token, nil, 400, nil},
	}
	// Ids in a path: anything that cannot be an id names nothing.
	for _, id := range []string{"0", "-1", "abc", "1e3", "99999999999999999999", "%00", "%FF", "+1"} {
		cases = append(cases,
			c{"PUT", "/api/user/accounts/" + id, a.Token, account(`"account_type_id":1`), 404, nil},
			c{"DELETE", "/api/user/accounts/" + id, a.Token, nil, 404, nil},
			c{"GET", "/api/user/accounts/" + id, a.Token, nil, 404, nil},
			c{"PUT", "/api/user/accept-money-request/" + id, a.Token, nil, 404, nil},
			c{"PUT", "/api/user/decline-money-request/" + id, a.Token, nil, 404, nil},
			c{"PUT", "/api/user/notifications/" + id + "/read", a.Token, nil, 404, nil},
			c{"PUT", "/api/admin/users/" + id + "/status", adm.Token, map[string]any{"is_active": true}, 404, nil},
		)
	}
	for _, k := range cases {
		r := e.do(k.method, k.path, k.token, k.body, k.headers...)
		if r.Status >= 500 {
			t.Errorf("%s %s %v: %d %s", k.method, k.path, k.body, r.Status, r.Body)
			continue
		}
		if r.Status != k.status {
			t.Errorf("%s %s %v: status %d, want %d: %s", k.method, k.path, k.body, r.Status, k.status, r.Body)
			continue
		}
		e.want(r, k.status, k.method+" "+k.path)
	}
}
