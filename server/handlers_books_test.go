package server

import (
	"fmt"
	"strings"
	"testing"

	"meridian/pkg/bank"
)

// typedAccount opens an account of a type (4: Euro Checking) and returns
// its id and number.
func (e *testEnv) typedAccount(u user, typeID int, balance any) (int64, string) {
	e.t.Helper()
	num := fmt.Sprintf("AC%08d", seq.Add(1))
	m := e.want(e.do("POST", "/api/user/accounts", u.Token, map[string]any{"account_number": num, "balance": balance, "account_type_id": typeID}), 201, "create account").JSON(e.t)
	return int64(m["id"].(float64)), num
}

// Exchange over the API: rates set by an admin and read by anyone signed
// in, a quote, the exchange, and its refusals as the contract words them.
func TestExchangeAPI(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, bank.Settings{FXSpreadBps: 50}, Options{})
	adm, c := e.admin(), e.customer("Xena Exchange")
	_, usd := e.account(c, "500.00")
	_, eur := e.typedAccount(c, 4, 0)

	e.want(e.do("PUT", "/api/admin/fx-rates/EUR/USD", c.Token, map[string]any{"rate": 1.0842}), 403, "a customer sets a rate")
	r := e.want(e.do("PUT", "/api/admin/fx-rates/EUR/USD", adm.Token, map[string]any{"rate": 1.0842}), 200, "set rate")
	if m := r.JSON(t); m["base"] != "EUR" || m["quote"] != "USD" || m["rate"] != 1.0842 {
		t.Fatalf("rate %s", r.Body)
	}
	e.want(e.do("PUT", "/api/admin/fx-rates/EUR/USD", adm.Token, map[string]any{"rate": "1.123456789"}), 400, "nine decimals")
	e.want(e.do("PUT", "/api/admin/fx-rates/EUR/XXX", adm.Token, map[string]any{"rate": 1}), 404, "unknown currency")
	e.want(e.do("PUT", "/api/admin/fx-rates/EUR/USD", adm.Token, map[string]any{"rate": 1, "spread": 2}), 400, "unknown field")
	if r := e.want(e.do("GET", "/api/fx-rates", c.Token, nil), 200, "rates"); !strings.Contains(string(r.Body), `"rate":1.0842`) {
		t.Fatalf("rates %s", r.Body)
	}
	e.want(e.do("GET", "/api/fx-rates", "", nil), 401, "rates without a token")

	q := e.want(e.do("POST", "/api/user/fx-quotes", c.Token, map[string]any{"from_account_id": usd, "to_account_id": eur, "amount": 100}), 201, "quote").JSON(t)
	// 100 x 0.92233905 x 0.995 = 91.7727... -> 91.77
	if q["converted_amount"] != 91.77 || q["rate"] != 0.92233905 || q["from_currency"] != "USD" || q["to_currency"] != "EUR" {
		t.Fatalf("quote %v", q)
	}
	x := e.want(e.do("POST", "/api/user/fx-transfers", c.Token, map[string]any{"quote_id": q["id"], "description": "Trip"}, "Idempotency-Key", "x-1"), 201, "exchange")
	if m := x.JSON(t); m["message"] != "Exchange successful" || x.Header.Get("Idempotency-Key") != "x-1" {
		t.Fatalf("exchange %s", x.Body)
	}
	if r := e.want(e.do("POST", "/api/user/fx-transfers", c.Token, map[string]any{"quote_id": q["id"]}), 409, "used quote"); r.JSON(t)["code"] != "quote_used" {
		t.Fatalf("used: %s", r.Body)
	}
	e.want(e.do("POST", "/api/user/fx-quotes", c.Token, map[string]any{"from_account_id": usd, "to_account_id": usd, "amount": 1}), 422, "same account")
	e.want(e.do("POST", "/api/user/fx-quotes", adm.Token, map[string]any{"from_account_id": usd, "to_account_id": eur, "amount": 10}), 403, "an admin quotes")
	e.want(e.do("POST", "/api/user/money-transfer", c.Token, map[string]any{"account_id": usd, "to_account_id": eur, "amount": 1}), 422, "a plain transfer across currencies")

	// The dashboard in the home currency.
	e.want(e.do("PUT", "/api/user/preferences", c.Token, map[string]any{"home_currency": "EUR"}), 200, "home currency")
	e.want(e.do("PUT", "/api/user/preferences", c.Token, map[string]any{"home_currency": "XYZ"}), 400, "unknown currency")
	sum := e.want(e.do("GET", "/api/user/dashboard/transactions-summary", c.Token, nil), 200, "summary").JSON(t)["data"].(map[string]any)
	// 400.00 USD / 1.0842 -> 368.93 (x 0.92233905 = 368.935620) + 91.77 EUR = 460.71
	if sum["home_currency"] != "EUR" || sum["total_balance_home"] != 460.71 {
		t.Fatalf("summary %v", sum)
	}
	hist := e.want(e.do("GET", "/api/user/transactions/history", c.Token, nil), 200, "history")
	if !strings.Contains(string(hist.Body), `"kind":"exchange"`) {
		t.Fatalf("history %s", hist.Body)
	}
}

// Reversal and four eyes over the API: 201 under the threshold, 202 with
// the approval at or over it, decided by another admin once.
func TestReversalAndApprovalsAPI(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, bank.Settings{ApprovalThreshold: 1000_00}, Options{})
	maker, checker, c, d := e.admin(), e.admin(), e.customer("Rita Reverse"), e.customer("Dan Payee")
	_, from := e.account(c, "300.00")
	_, to := e.account(d, 0)
	tx := e.want(e.do("POST", "/api/user/money-transfer", c.Token, map[string]any{"account_id": from, "to_account_id": to, "amount": 50}), 201, "transfer").JSON(t)
	id := int64(tx["transaction"].(map[string]any)["id"].(float64))
	path := fmt.Sprintf("/api/admin/transactions/%d/reverse", id)
	e.want(e.do("POST", path, maker.Token, map[string]any{}), 400, "no reason")
	e.want(e.do("POST", path, c.Token, map[string]any{"reason": "mine"}), 403, "a customer reverses")
	r := e.want(e.do("POST", path, maker.Token, map[string]any{"reason": "Wrong payee"}), 201, "reverse")
	if m := r.JSON(t); m["message"] != "Transaction reversed" || m["reverses"] != float64(id) {
		t.Fatalf("reversal %s", r.Body)
	}
	if r := e.want(e.do("POST", path, maker.Token, map[string]any{"reason": "Again"}), 409, "twice"); r.JSON(t)["code"] != "already_reversed" {
		t.Fatalf("twice: %s", r.Body)
	}

	dep := e.want(e.do("POST", "/api/admin/accounts/"+to+"/deposit", maker.Token, map[string]any{"amount": 1000}), 202, "a deposit at the threshold")
	ap := dep.JSON(t)["approval"].(map[string]any)
	if ap["kind"] != "deposit" || ap["status"] != "pending" || ap["requested_by"] != maker.Email {
		t.Fatalf("approval %s", dep.Body)
	}
	apPath := fmt.Sprintf("/api/admin/approvals/%d", int64(ap["id"].(float64)))
	if r := e.want(e.do("POST", apPath+"/approve", maker.Token, nil), 403, "the maker approves"); r.JSON(t)["code"] != "same_admin" {
		t.Fatalf("maker: %s", r.Body)
	}
	if list := e.want(e.do("GET", "/api/admin/approvals?status=pending", checker.Token, nil), 200, "pending"); !strings.Contains(string(list.Body), `"status":"pending"`) {
		t.Fatalf("pending %s", list.Body)
	}
	e.want(e.do("GET", "/api/admin/approvals?status=nope", checker.Token, nil), 400, "a bad status")
	ok := e.want(e.do("POST", apPath+"/approve", checker.Token, nil), 200, "approve").JSON(t)
	if ok["approval"].(map[string]any)["status"] != "approved" || ok["result"].(map[string]any)["transaction_type"] != "CREDIT" {
		t.Fatalf("approved %v", ok)
	}
	e.want(e.do("POST", apPath+"/reject", checker.Token, map[string]any{"reason": "No"}), 409, "decided")

	lim := e.want(e.do("PUT", fmt.Sprintf("/api/admin/users/%d/limits", d.ID), maker.Token, map[string]any{"daily_transfer_limit": 20000}), 202, "a raise")
	if lim.JSON(t)["approval"].(map[string]any)["kind"] != "limit_raise" {
		t.Fatalf("raise %s", lim.Body)
	}
	e.want(e.do("PUT", fmt.Sprintf("/api/admin/users/%d/limits", d.ID), maker.Token, map[string]any{"daily_transfer_limit": 50}), 200, "a cut")
}

// Interest over the API: the rate per account type, set by an admin; an
// account's accrual for its owner.
func TestInterestAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	adm, c := e.admin(), e.customer("Ivy Interest")
	id, _ := e.typedAccount(c, 2, "100.00")
	if r := e.want(e.do("GET", fmt.Sprintf("/api/user/accounts/%d/interest", id), c.Token, nil), 200, "interest"); r.JSON(t)["rate"] != float64(2) || r.JSON(t)["accrued"] != float64(0) {
		t.Fatalf("interest %s", r.Body)
	}
	e.want(e.do("GET", fmt.Sprintf("/api/user/accounts/%d/interest", id), e.customer("Other").Token, nil), 404, "another's account")
	r := e.want(e.do("PUT", "/api/admin/account-types/2", adm.Token, map[string]any{"interest_rate": 2.25}), 200, "set rate")
	if r.JSON(t)["interest_rate"] != 2.25 {
		t.Fatalf("rate %s", r.Body)
	}
	e.want(e.do("PUT", "/api/admin/account-types/2", adm.Token, map[string]any{"interest_rate": 101}), 400, "over 100")
	e.want(e.do("PUT", "/api/admin/account-types/2", c.Token, map[string]any{"interest_rate": 1}), 403, "a customer")
	if r := e.want(e.do("GET", "/api/admin/account-types", adm.Token, nil), 200, "types"); !strings.Contains(string(r.Body), `"interest_rate":2.25`) {
		t.Fatalf("types %s", r.Body)
	}
}
