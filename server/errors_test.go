package server

import (
	"strconv"
	"strings"
	"testing"

	"meridian/pkg/money"
)

// TestBodyFieldsMustBeKnown: a body holds only the fields its operation
// defines. One it does not define is refused (400 unknown_field) whatever
// its value, and nothing happens: issue 20 saw "currency":"EUR" on a
// deposit to a USD account answer 201 and credit $1.00. A field given twice
// (in any letter case) is refused too (400 duplicate_field): which one
// counts is not guessed. The first app's user_id is a defined field and
// stays accepted.
func TestBodyFieldsMustBeKnown(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	adm := e.admin()
	alice := e.customer("Alice Fields")
	_, usd := e.account(alice, 10)
	_, bobs := e.account(e.customer("Bob Fields"), 0)
	balance := func(number string) money.Amount {
		t.Helper()
		var rows []struct {
			Number  string       `json:"account_number"`
			Balance money.Amount `json:"balance"`
		}
		e.want(e.do("GET", "/api/admin/accounts", adm.Token, nil), 200, "accounts").Into(t, &rows)
		for _, r := range rows {
			if r.Number == number {
				return r.Balance
			}
		}
		t.Fatalf("no account %s", number)
		return 0
	}
	refused := func(r resp, code, field string) {
		t.Helper()
		m := r.JSON(t)
		fields, _ := m["fields"].(map[string]any)
		if m["code"] != code || fields[field] == nil || !strings.Contains(m["error"].(string), field) {
			t.Fatalf("want %s naming %s: %s", code, field, r.Body)
		}
	}

	deposit := "/api/admin/accounts/" + usd + "/deposit"
	refused(e.want(e.do("POST", deposit, adm.Token, map[string]any{"amount": 1, "currency": "EUR"}), 400, "a deposit in EUR to a USD account"), "unknown_field", "currency")
	refused(e.want(e.do("POST", deposit, adm.Token, map[string]any{"amount": 1, "currency": "USD"}), 400, "a currency field, even the account's"), "unknown_field", "currency")
	if b := balance(usd); b != 10_00 {
		t.Fatalf("balance %s after refused deposits; want 10.00", b)
	}
	e.want(e.do("POST", deposit, adm.Token, map[string]any{"amount": 1}), 201, "the same deposit without it")

	transfer := map[string]any{"account_id": usd, "to_account_id": bobs, "amount": "2.00", "description": "Lunch"}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for k, v := range transfer {
			m[k] = v
		}
		m[k] = v
		return m
	}
	refused(e.want(e.do("POST", "/api/user/money-transfer", alice.Token, with("fee", 0)), 400, "a fee"), "unknown_field", "fee")
	refused(e.want(e.do("POST", "/api/user/money-transfer", alice.Token, with("ammount", "2000.00")), 400, "a misspelt field"), "unknown_field", "ammount")
	refused(e.want(e.do("POST", "/api/user/money-transfer", alice.Token,
		`{"account_id":"`+usd+`","to_account_id":"`+bobs+`","amount":"2.00","amount":"9.00"}`), 400, "amount twice"), "duplicate_field", "amount")
	refused(e.want(e.do("POST", "/api/user/money-transfer", alice.Token,
		`{"account_id":"`+usd+`","to_account_id":"`+bobs+`","amount":"2.00","AMOUNT":"9.00"}`), 400, "amount twice, in capitals"), "duplicate_field", "AMOUNT")
	if b := balance(bobs); b != 0 {
		t.Fatalf("Bob has %s after refused transfers", b)
	}
	// The first app's field, and a field of another letter case (as
	// encoding/json has always matched them), are the operation's own.
	e.want(e.do("POST", "/api/user/money-transfer", alice.Token, with("user_id", alice.ID)), 201, "user_id, the caller's")
	e.want(e.do("POST", "/api/user/money-transer", alice.Token, with("user_id", alice.ID)), 201, "the first app's path and fields")
	e.want(e.do("POST", "/api/user/money-transfer", alice.Token, with("user_id", alice.ID+1000)), 403, "user_id, another's")
	e.want(e.do("POST", "/api/user/money-transfer", alice.Token, `{"Account_ID":"`+usd+`","to_account_id":"`+bobs+`","amount":1}`), 201, "another letter case")
	e.want(e.do("POST", "/api/user/accounts", alice.Token, map[string]any{"account_number": "FIELDS0001", "balance": 0, "account_type_id": 1, "user_id": alice.ID}), 201, "an account with user_id")
	e.want(e.do("POST", "/api/user/money-request", alice.Token, map[string]any{"requester_id": usd, "recipient_id": bobs, "amount": 1, "description": "Tea", "user_id": alice.ID}), 201, "a request with user_id")

	// Fields the server sets itself are no input.
	refused(e.want(e.do("POST", "/api/auth/register", "", map[string]any{"full_name": "Mallory", "email": "mallory@example.test", "phone_number": "+1 555 0100", "password": "password123", "role": "Admin"}), 400, "register as Admin"), "unknown_field", "role")
	e.want(e.do("POST", "/api/auth/login", "", map[string]any{"email": "mallory@example.test", "password": "password123"}), 401, "no user was made")
	refused(e.want(e.do("POST", "/api/auth/login", "", map[string]any{"email": alice.Email, "password": "password123", "ip": "10.0.0.1"}), 400, "login with an ip"), "unknown_field", "ip")
	refused(e.want(e.do("PUT", "/api/admin/users/"+strconv.FormatInt(alice.ID, 10)+"/status", adm.Token, map[string]any{"is_active": true, "role": "Admin"}), 400, "status and role"), "unknown_field", "role")

	// A hostile field name is not echoed whole.
	long := strings.Repeat("x", 5000)
	r := e.want(e.do("POST", deposit, adm.Token, map[string]any{"amount": 1, long: 1}), 400, "a long unknown field")
	if m := r.JSON(t); m["code"] != "unknown_field" || len(r.Body) > 500 {
		t.Fatalf("long field: %.300s", r.Body)
	}
	e.want(e.do("POST", deposit, adm.Token, `{"amount":1} {"amount":2}`), 400, "two objects")
}
