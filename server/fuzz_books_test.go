package server

import (
	"strings"
	"testing"
)

// FuzzBooks drives the bank's books (contract §8) with any input: rates,
// quotes and exchanges, reversals, approvals and their decisions, account
// types' interest rates, the interest of an account, home currency. None
// may answer 5xx or without the JSON error shape.
func FuzzBooks(f *testing.F) {
	fe := newFuzzEnv(f)
	f.Add("EUR", "USD", "1.0842", "10.00", "1", "Clerk error", "2.25", "EUR")
	f.Add("usd", "usd", "0", "0", "0", "", "-1", "")
	f.Add("\x00", "€€€", "1e309", "NaN", "-1", "\xff", "1e-9", "\x1b[31m")
	f.Add(strings.Repeat("E", 300), "US", "99999999999999999999.99999", "99999999999999999999", "99999999999999999999", strings.Repeat("r", 3000), "100.00001", strings.Repeat("C", 40))
	f.Fuzz(func(t *testing.T, base, quote, rate, amount, id, reason, interest, currency string) {
		fe.send(t, "PUT", "/api/admin/fx-rates/"+seg(base)+"/"+seg(quote), fe.admin.token, obj("rate", val(rate)))
		fe.send(t, "PUT", "/api/admin/fx-rates/"+seg(base)+"/"+seg(quote), fe.admin.token, obj("rate", str(rate)))
		fe.send(t, "GET", "/api/fx-rates", fe.alice.token, nil)
		fe.send(t, "POST", "/api/user/fx-quotes", fe.alice.token, obj("from_account_id", str(fe.aliceAcct.number), "to_account_id", str(id), "amount", val(amount)))
		fe.send(t, "POST", "/api/user/fx-quotes", fe.alice.token, obj("from_account_id", val(id), "to_account_id", val(base), "amount", str(amount)))
		fe.send(t, "POST", "/api/user/fx-transfers", fe.alice.token, obj("quote_id", val(id), "description", str(reason)))
		fe.send(t, "POST", "/api/admin/transactions/"+seg(id)+"/reverse", fe.admin.token, obj("reason", str(reason)))
		fe.send(t, "POST", "/api/admin/transactions/"+seg(id)+"/reverse", fe.admin.token, obj("reason", val(reason)))
		fe.send(t, "GET", "/api/admin/approvals?status="+seg(reason), fe.admin.token, nil)
		fe.send(t, "POST", "/api/admin/approvals/"+seg(id)+"/approve", fe.admin.token, nil)
		fe.send(t, "POST", "/api/admin/approvals/"+seg(id)+"/reject", fe.admin.token, obj("reason", str(reason)))
		fe.send(t, "PUT", "/api/admin/account-types/"+seg(id), fe.admin.token, obj("interest_rate", val(interest)))
		fe.send(t, "GET", "/api/user/accounts/"+seg(id)+"/interest", fe.alice.token, nil)
		fe.send(t, "PUT", "/api/user/preferences", fe.alice.token, obj("home_currency", str(currency)))
		fe.send(t, "PUT", "/api/user/preferences", fe.alice.token, obj("home_currency", val(currency)))
		fe.send(t, "GET", "/api/admin/ledger/trial-balance", fe.admin.token, nil)
	})
}
