package server

import (
	"testing"

	"meridian/pkg/bank"
	"meridian/pkg/money"
)

func TestPublicConfig(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if m := e.want(e.do("GET", "/api/config", "", nil), 200, "config").JSON(t); m["customer_funding"] != true || m["require_2fa_for_admins"] != false || m["lock_after_seconds"] != float64(300) || len(m) != 3 {
		t.Fatalf("config %v", m)
	}
}

func TestAdminDepositAndWithdraw(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	adm := e.admin()
	c := e.customer("Dot Deposit")
	_, num := e.account(c, 10)
	path := "/api/admin/accounts/" + num

	r := e.want(e.do("POST", path+"/deposit", adm.Token, map[string]any{"amount": "25.50"}), 201, "deposit")
	m := r.JSON(t)
	// From the bank's vault to the account (double entry).
	if m["transaction_type"] != "CREDIT" || r.Amount(t, "amount") != 25_50 || m["description"] != "Deposit" || m["account_id"] != "MERIDIANVAULTUSD" || m["to_account_id"] != num {
		t.Fatalf("deposit %v", m)
	}
	r = e.want(e.do("POST", path+"/withdraw", adm.Token, map[string]any{"amount": 5, "description": "Cash"}), 201, "withdraw")
	m = r.JSON(t)
	if m["transaction_type"] != "DEBIT" || r.Amount(t, "amount") != 5_00 || m["description"] != "Cash" {
		t.Fatalf("withdrawal %v", m)
	}
	accts := e.want(e.do("GET", "/api/user/accounts", c.Token, nil), 200, "accounts")
	var listed []struct {
		Balance money.Amount `json:"balance"`
	}
	if accts.Into(t, &listed); len(listed) != 1 || listed[0].Balance != 30_50 {
		t.Fatalf("balance after the bank's movements: %s", accts.Body)
	}

	r = e.want(e.do("POST", path+"/withdraw", adm.Token, map[string]any{"amount": 30.51}), 422, "overdraw")
	if m := r.JSON(t); m["code"] != "insufficient_funds" || m["error"] != "Insufficient funds" {
		t.Fatalf("overdraw: %s", r.Body)
	}
	e.want(e.do("POST", path+"/deposit", c.Token, map[string]any{"amount": 1}), 403, "a customer deposits")
	e.want(e.do("POST", "/api/admin/accounts/NOSUCH0001/deposit", adm.Token, map[string]any{"amount": 1}), 404, "unknown account")
	e.want(e.do("POST", "/api/admin/accounts/bad%20number/deposit", adm.Token, map[string]any{"amount": 1}), 404, "malformed number")
	e.want(e.do("POST", path+"/deposit", adm.Token, map[string]any{"amount": "1.234"}), 400, "three decimals")
	e.want(e.do("POST", path+"/deposit", adm.Token, map[string]any{"amount": 0}), 400, "zero")
	e.want(e.do("POST", path+"/deposit", adm.Token, ""), 400, "no body")
	e.want(e.do("GET", path+"/deposit", adm.Token, nil), 405, "GET on deposit")
}

// With customer_funding off, the API refuses an opening balance and a
// balance edit with 422 customer_funding_disabled, and says so in /api/config.
func TestCustomerFundingOff(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, bank.Settings{DisableCustomerFunding: true}, Options{})

	if m := e.want(e.do("GET", "/api/config", "", nil), 200, "config").JSON(t); m["customer_funding"] != false {
		t.Fatalf("config %v", m)
	}
	c := e.customer("Ned Nofund")
	r := e.want(e.do("POST", "/api/user/accounts", c.Token, map[string]any{"account_number": "NOFUND0002", "balance": 10, "account_type_id": 1}), 422, "opening balance")
	if m := r.JSON(t); m["code"] != "customer_funding_disabled" {
		t.Fatalf("opening balance: %s", r.Body)
	}
	id, num := e.account(c, 0)
	r = e.want(e.do("PUT", "/api/user/accounts/"+itoa(id), c.Token, map[string]any{"account_number": num, "balance": 10, "account_type_id": 1}), 422, "balance edit")
	if m := r.JSON(t); m["code"] != "customer_funding_disabled" {
		t.Fatalf("balance edit: %s", r.Body)
	}
	e.want(e.do("PUT", "/api/user/accounts/"+itoa(id), c.Token, map[string]any{"account_number": num, "balance": 0, "account_type_id": 2}), 200, "an edit that keeps the balance")
}
