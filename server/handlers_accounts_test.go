package server

import (
	"encoding/json"
	"testing"
)

func mustUnmarshal(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("bad JSON %s: %v", b, err)
	}
}

func TestAccountsAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.customer("Gus Grant")
	b := e.customer("Hal Hart")

	var types []map[string]any
	mustUnmarshal(t, e.want(e.do("GET", "/api/user/account-types", a.Token, nil), 200, "types").Body, &types)
	if len(types) < 3 || types[0]["type_name"] != "Checking" {
		t.Fatal(types)
	}
	for _, ty := range types {
		if ty["ID"] == nil || ty["ID"] != ty["id"] {
			t.Fatalf("account type without ID = id (the first app reads ID): %v", ty)
		}
	}
	acc := e.want(e.do("POST", "/api/user/accounts", a.Token, map[string]any{"account_number": "GUS0000001", "balance": "1250.50", "account_type_id": 1, "user_id": a.ID}), 201, "create").JSON(t)
	if acc["balance"] != 1250.5 || acc["name"] != "Gus Grant" || acc["type_name"] != "Checking" || acc["currency"] != "USD" {
		t.Fatal(acc)
	}
	id := itoa(int64(acc["id"].(float64)))
	for what, body := range map[string]map[string]any{
		"3 decimals":     {"account_number": "GUS0000002", "balance": 1.234, "account_type_id": 1},
		"negative":       {"account_number": "GUS0000002", "balance": -5, "account_type_id": 1},
		"text":           {"account_number": "GUS0000002", "balance": "lots", "account_type_id": 1},
		"short number":   {"account_number": "12345", "balance": 1, "account_type_id": 1},
		"no type":        {"account_number": "GUS0000002", "balance": 1},
		"unknown type":   {"account_number": "GUS0000002", "balance": 1, "account_type_id": 42},
		"type as string": {"account_number": "GUS0000002", "balance": 1, "account_type_id": "one"},
		"too much":       {"account_number": "GUS0000002", "balance": "1000000000.01", "account_type_id": 1},
	} {
		e.want(e.do("POST", "/api/user/accounts", a.Token, body), 400, what)
	}
	e.want(e.do("POST", "/api/user/accounts", a.Token, `{"account_number":"GUS0000002","balance":1e3,"account_type_id":1}`), 400, "exponent")
	e.want(e.do("POST", "/api/user/accounts", a.Token, map[string]any{"account_number": "GUS0000002", "balance": 1, "account_type_id": 1, "user_id": b.ID}), 403, "someone else's user_id")
	e.want(e.do("POST", "/api/user/accounts", b.Token, map[string]any{"account_number": "GUS0000001", "balance": 1, "account_type_id": 1}), 409, "duplicate number")

	var list []map[string]any
	mustUnmarshal(t, e.want(e.do("GET", "/api/user/accounts/"+itoa(a.ID), a.Token, nil), 200, "list by user id").Body, &list)
	if len(list) != 1 {
		t.Fatal(list)
	}
	e.want(e.do("GET", "/api/user/accounts/"+itoa(b.ID), a.Token, nil), 403, "another user's list")
	mustUnmarshal(t, e.want(e.do("GET", "/api/user/accounts", b.Token, nil), 200, "b's list").Body, &list)
	if len(list) != 0 {
		t.Fatal("b sees a's account")
	}

	// Ownership: b cannot edit or close a's account; it answers as missing and stays unchanged.
	e.want(e.do("PUT", "/api/user/accounts/"+id, b.Token, map[string]any{"account_number": "HIJACK0001", "balance": 0, "account_type_id": 1}), 404, "edit someone else's")
	e.want(e.do("DELETE", "/api/user/accounts/"+id, b.Token, nil), 404, "close someone else's")
	up := e.want(e.do("PUT", "/api/user/accounts/"+id, a.Token, map[string]any{"account_number": "GUS0000001", "balance": 100, "account_type_id": 2}), 200, "update").JSON(t)
	if up["balance"] != 100.0 || up["type_name"] != "Savings" {
		t.Fatal(up)
	}
	r := e.want(e.do("DELETE", "/api/user/accounts/"+id, a.Token, nil), 422, "close with money")
	if r.JSON(t)["error"] != "Account balance must be zero to close it" {
		t.Fatal(string(r.Body))
	}
	e.want(e.do("PUT", "/api/user/accounts/"+id, a.Token, map[string]any{"account_number": "GUS0000001", "balance": 0, "account_type_id": 2}), 200, "empty it")
	if r := e.do("DELETE", "/api/user/accounts/"+id, a.Token, nil); r.Status != 204 {
		t.Fatalf("close: %d %s", r.Status, r.Body)
	}
	e.want(e.do("DELETE", "/api/user/accounts/"+id, a.Token, nil), 404, "close twice")

	// Lookup.
	_, num := e.account(b, 10)
	l := e.want(e.do("GET", "/api/user/account-details?account_number="+num, a.Token, nil), 200, "lookup").JSON(t)
	if l["full_name"] != "Hal Hart" || l["account_number"] != num {
		t.Fatal(l)
	}
	e.want(e.do("GET", "/api/user/account-details?account_number=NOPE999999", a.Token, nil), 404, "lookup unknown")
	e.want(e.do("GET", "/api/user/account-details", a.Token, nil), 400, "lookup without number")

	adm := e.admin()
	var all []map[string]any
	mustUnmarshal(t, e.want(e.do("GET", "/api/admin/accounts", adm.Token, nil), 200, "admin accounts").Body, &all)
	if len(all) != 1 {
		t.Fatalf("admin sees %d open accounts", len(all))
	}
}

// A number renamed away stays its holder's: another customer gets 409, the
// holder takes it back.
func TestAccountNumberNotReissuedAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.customer("Ida Own"), e.customer("Jay Want")
	id, num := e.account(a, 0)
	e.want(e.do("PUT", "/api/user/accounts/"+itoa(id), a.Token, map[string]any{"account_number": "IDARENAMED", "balance": 0, "account_type_id": 1}), 200, "rename away")
	r := e.want(e.do("POST", "/api/user/accounts", b.Token, map[string]any{"account_number": num, "balance": 0, "account_type_id": 1}), 409, "another customer")
	if m := r.JSON(t); m["error"] != "Account number already exists" || m["code"] != "account_number_taken" {
		t.Fatal(m)
	}
	e.want(e.do("POST", "/api/user/accounts", a.Token, map[string]any{"account_number": num, "balance": 0, "account_type_id": 1}), 201, "the holder takes it back")
}
