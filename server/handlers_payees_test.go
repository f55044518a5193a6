package server

import (
	"encoding/json"
	"testing"
)

// jsonArray decodes a bare array answer.
func jsonArray(t *testing.T, r resp) []map[string]any {
	t.Helper()
	var rows []map[string]any
	if err := json.Unmarshal(r.Body, &rows); err != nil {
		t.Fatalf("body is not a JSON array: %s", r.Body)
	}
	return rows
}

func TestPayeesAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	alice, bob, eve := e.customer("Alice Payer"), e.customer("Bob Payee"), e.customer("Eve Other")
	_, mine := e.account(alice, 0)
	_, bobNum := e.account(bob, 0)

	if rows := jsonArray(t, e.want(e.do("GET", "/api/user/payees", alice.Token, nil), 200, "empty list")); len(rows) != 0 {
		t.Fatalf("payees %v", rows)
	}
	m := e.want(e.do("POST", "/api/user/payees", alice.Token, map[string]any{"nickname": "Bob", "account_number": bobNum}), 201, "create").JSON(t)
	if m["nickname"] != "Bob" || m["account_number"] != bobNum || m["holder_name"] != "Bob Payee" || m["id"] == nil || m["created_at"] == nil || len(m) != 5 {
		t.Fatalf("payee %v", m)
	}
	id := itoa(int64(m["id"].(float64)))
	rows := jsonArray(t, e.want(e.do("GET", "/api/user/payees", alice.Token, nil), 200, "list"))
	if len(rows) != 1 || rows[0]["holder_name"] != "Bob Payee" {
		t.Fatalf("payees %v", rows)
	}

	for _, c := range []struct {
		body   any
		status int
		code   string
	}{
		{map[string]any{"nickname": "Bob again", "account_number": bobNum}, 409, "payee_exists"},
		{map[string]any{"nickname": "Me", "account_number": mine}, 422, "own_account"},
		{map[string]any{"nickname": "Nobody", "account_number": "NOSUCH00001"}, 404, "account_not_found"},
		{map[string]any{"nickname": "", "account_number": bobNum}, 400, "invalid_input"},
		{map[string]any{"nickname": "Bob\u0007", "account_number": bobNum}, 400, "invalid_input"},
		{map[string]any{"nickname": "Bob", "account_number": bobNum, "user_id": bob.ID}, 403, "forbidden"},
		{"{", 400, "invalid_json"},
	} {
		r := e.want(e.do("POST", "/api/user/payees", alice.Token, c.body), c.status, "refusal")
		if got := r.JSON(t)["code"]; got != c.code {
			t.Errorf("%v: code %v, want %s", c.body, got, c.code)
		}
	}

	e.want(e.do("DELETE", "/api/user/payees/"+id, eve.Token, nil), 404, "another customer's payee")
	e.want(e.do("DELETE", "/api/user/payees/abc", alice.Token, nil), 404, "not an id")
	e.want(e.do("DELETE", "/api/user/payees/99999999999999999999", alice.Token, nil), 404, "past bigint")
	e.want(e.do("DELETE", "/api/user/payees/"+id, alice.Token, nil), 204, "delete")
	e.want(e.do("DELETE", "/api/user/payees/"+id, alice.Token, nil), 404, "deleted already")
	e.want(e.do("GET", "/api/user/payees", "", nil), 401, "no token")
	adm := e.admin()
	e.want(e.do("GET", "/api/user/payees", adm.Token, nil), 403, "an admin")
	e.want(e.do("PUT", "/api/user/payees", alice.Token, nil), 405, "PUT")
}
