package bank

import (
	"math/rand"
	"testing"

	"meridian/pkg/money"
	"meridian/pkg/testdb"
)

// The transfer function writes amounts in SQL (money_text, migration 0008)
// and everything else in Go (money.Format): the two must agree to the
// character, for every size of amount and every kind of currency.
func TestMoneyTextMatchesFormat(t *testing.T) {
	t.Parallel()
	conn := testdb.New(t)
	amounts := []money.Amount{0, 1, 9, 10, 99, 100, 105, 1000, 99999, 100000, 123456, 100000000, 123456789, -1, -125050, 99999999999999999}
	r := rand.New(rand.NewSource(1))
	for range 200 {
		amounts = append(amounts, money.Amount(r.Int63n(1_000_000_000_00)))
	}
	for _, cur := range []string{"USD", "EUR", "GBP", "CHF", "usd", ""} {
		for _, a := range amounts {
			var got string
			if err := conn.Get(&got, `SELECT money_text($1::numeric, $2)`, a.String(), cur); err != nil {
				t.Fatal(err)
			}
			if want := money.Format(a, cur); got != want {
				t.Errorf("money_text(%s, %q) = %q, money.Format = %q", a, cur, got, want)
			}
		}
	}
}
