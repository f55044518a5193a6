package bank

import "testing"

// TestLedgerBalances: the view ledger_balances (migrations/0010) is each
// account's credits minus its debits, 0 for an account without ledger rows,
// and it agrees with the balances the ledger writer kept.
func TestLedgerBalances(t *testing.T) {
	t.Parallel()
	s := newService(t)
	a, b := newCustomer(t, s, "Lena Ledger"), newCustomer(t, s, "Bert Books")
	from := openAccount(t, s, a, "100.00")
	to := openAccount(t, s, b, "0.00")
	empty := openAccount(t, s, b, "0.00")
	if _, err := s.Transfer(ctx, a, TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: amt(t, "30.25")}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Transfer(ctx, b, TransferInput{AccountID: to.AccountNumber, ToAccountID: from.AccountNumber, Amount: amt(t, "0.25")}, ""); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		acc  Account
		want string
	}{{from, "70.00"}, {to, "30.00"}, {empty, "0.00"}} {
		if got := ledgerSum(t, s, c.acc.ID); got != amt(t, c.want) {
			t.Errorf("%s: ledger %s, want %s", c.acc.AccountNumber, got, c.want)
		}
		if got := balanceOf(t, s, c.acc.ID); got != amt(t, c.want) {
			t.Errorf("%s: balance %s, want %s", c.acc.AccountNumber, got, c.want)
		}
	}
}
