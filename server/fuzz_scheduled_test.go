package server

import (
	"strings"
	"testing"
	"time"
)

// FuzzScheduledTransfers drives the scheduled-transfer calls: every body
// field, the path id and the limit.
func FuzzScheduledTransfers(f *testing.F) {
	fe := newFuzzEnv(f)
	a, b := fe.aliceAcct.number, fe.bobAcct.number
	soon := time.Now().UTC().Add(time.Hour).Format(time.RFC3339)
	f.Add(a, b, "1.00", "Rent", soon, "monthly", "", "1", "10")
	f.Add(a, b, `"12.50"`, "", soon, "once", "2099-01-01T00:00:00Z", "0", "0")
	f.Add(a, a, "1", "\x00", "2020-01-01T00:00:00Z", "daily", soon, "-1", "-5")
	f.Add("\xff", "\x00", "1e309", strings.Repeat("d", 256), "9999-12-31T23:59:59Z", "weekly\x00", "\xff", "99999999999999999999", "1001")
	f.Add(b, a, "-1", "\u2028", "2027-02-30T00:00:00Z", "MONTHLY", "null", "abc", "x")
	f.Add(a, b, "0.001", "rent\tMarch", "+002027-01-01T00:00:00Z", "", "2027-01-01T00:00:00+25:00", "%00", "")
	f.Fuzz(func(t *testing.T, from, to, amount, desc, runAt, freq, until, id, limit string) {
		kv := []string{"account_id", str(from), "to_account_id", str(to), "amount", val(amount), "description", str(desc),
			"run_at", str(runAt), "frequency", str(freq)}
		if until != "" {
			kv = append(kv, "until", val(until), "until", str(until))
		}
		fe.send(t, "POST", "/api/user/scheduled-transfers", fe.alice.token, obj(kv...))
		fe.send(t, "GET", "/api/user/scheduled-transfers?"+qs("limit", limit), fe.alice.token, nil)
		fe.send(t, "GET", "/api/user/scheduled-transfers/"+seg(id)+"/runs?"+qs("limit", limit), fe.alice.token, nil)
		fe.send(t, "DELETE", "/api/user/scheduled-transfers/"+seg(id), fe.bob.token, nil)
		fe.send(t, "GET", "/api/user/scheduled-transfers", fe.admin.token, nil)
	})
}
