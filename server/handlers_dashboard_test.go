package server

import (
	"encoding/json"
	"testing"

	"meridian/pkg/money"
)

// Both summaries carry by_currency; the top-level amounts are dollars only.
func TestSummariesByCurrency(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.customer("Cleo Coin"), e.customer("Dirk Dime")
	open := func(u user, number string, typ int, balance string) {
		e.want(e.do("POST", "/api/user/accounts", u.Token, map[string]any{"account_number": number, "balance": balance, "account_type_id": typ}), 201, "open "+number)
	}
	open(a, "CLEOUSD001", 1, "100")
	open(a, "CLEOEUR001", 3, "200")
	open(b, "DIRKEUR001", 3, "0")
	e.want(e.do("POST", "/api/user/money-transfer", a.Token, map[string]any{"account_id": "CLEOEUR001", "to_account_id": "DIRKEUR001", "amount": 20}), 201, "euro transfer")

	type totals struct {
		Currency      string       `json:"currency"`
		TotalBalance  money.Amount `json:"total_balance"`
		TotalSent     money.Amount `json:"total_sent_amount"`
		TotalReceived money.Amount `json:"total_received_amount"`
	}
	var sum struct {
		Data struct {
			TotalSent  money.Amount `json:"total_sent_amount"`
			ByCurrency []totals     `json:"by_currency"`
		} `json:"data"`
	}
	if err := json.Unmarshal(e.want(e.do("GET", "/api/user/dashboard/transactions-summary", a.Token, nil), 200, "user summary").Body, &sum); err != nil {
		t.Fatal(err)
	}
	want := []totals{{"USD", 10000, 0, 0}, {"EUR", 18000, 2000, 0}} // cents
	if sum.Data.TotalSent != 0 || len(sum.Data.ByCurrency) != 2 || sum.Data.ByCurrency[0] != want[0] || sum.Data.ByCurrency[1] != want[1] {
		t.Fatalf("user summary %+v", sum)
	}
	var adm struct {
		Data struct {
			TotalBalance money.Amount `json:"total_balance"`
			ByCurrency   []totals     `json:"by_currency"`
		} `json:"data"`
	}
	if err := json.Unmarshal(e.want(e.do("GET", "/api/admin/admindashboard/transactions-summary", e.admin().Token, nil), 200, "admin summary").Body, &adm); err != nil {
		t.Fatal(err)
	}
	if adm.Data.TotalBalance != 10000 || len(adm.Data.ByCurrency) != 3 || adm.Data.ByCurrency[1] != (totals{"EUR", 20000, 2000, 2000}) ||
		adm.Data.ByCurrency[2] != (totals{Currency: "GBP"}) {
		t.Fatalf("admin summary %+v", adm)
	}
}
