package bank

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
)

// The hot paths of the money service, one benchmark each, against a real
// PostgreSQL database, so that a change that makes one slower shows up in
// review (`go test ./pkg/bank -run '^$' -bench . -benchtime 2s`). Each
// reports the time of one call from one client; the load test (`make
// bench`) measures them under concurrency.

// benchPair returns two customers with an account each; the first holds
// enough money for every transfer the benchmark makes.
func benchPair(b *testing.B) (*Service, Actor, Account, Account) {
	b.Helper()
	s := newService(b)
	alice := newCustomer(b, s, "Alice Bench")
	bob := newCustomer(b, s, "Bob Bench")
	return s, alice, openAccount(b, s, alice, "100000000.00"), openAccount(b, s, bob, "0")
}

func BenchmarkTransfer(b *testing.B) {
	s, alice, from, to := benchPair(b)
	in := TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: 125, Description: "bench"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Transfer(ctx, alice, in, ""); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTransferWithIdempotencyKey(b *testing.B) {
	s, alice, from, to := benchPair(b)
	in := TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: 125, Description: "bench"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Transfer(ctx, alice, in, fmt.Sprintf("bench-%d", i)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTransferRefused(b *testing.B) {
	s, alice, _, to := benchPair(b)
	empty := openAccount(b, s, alice, "0")
	in := TransferInput{AccountID: empty.AccountNumber, ToAccountID: to.AccountNumber, Amount: 125}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Transfer(ctx, alice, in, fmt.Sprintf("bench-%d", i)); err != errInsufficientFunds {
			b.Fatal(err)
		}
	}
}

// benchToken signs a customer in and returns the token.
func benchToken(b *testing.B, s *Service) string {
	b.Helper()
	a := newCustomer(b, s, "Tom Token")
	u, err := s.getUser(ctx, s.db, a.UserID)
	if err != nil {
		b.Fatal(err)
	}
	res, err := s.Login(ctx, LoginInput{Email: u.Email, Password: testPassword})
	if err != nil {
		b.Fatal(err)
	}
	return res.Token
}

func BenchmarkAuthenticate(b *testing.B) {
	for _, feed := range []bool{false, true} {
		b.Run(map[bool]string{false: "database", true: "cached"}[feed], func(b *testing.B) {
			s := newService(b)
			tok := benchToken(b, s)
			s.SessionFeed(feed)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.Authenticate(ctx, tok); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchWithHistory is benchPair after 200 transfers, for the reads.
func benchWithHistory(b *testing.B) (*Service, Actor) {
	b.Helper()
	s, alice, from, to := benchPair(b)
	for range 200 {
		if _, err := s.Transfer(ctx, alice, TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: 100}, ""); err != nil {
			b.Fatal(err)
		}
	}
	return s, alice
}

func BenchmarkHistoryPage(b *testing.B) {
	s, alice := benchWithHistory(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := s.History(ctx, alice, HistoryQuery{Page: Page{Limit: 50}}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUserSummary(b *testing.B) {
	s, alice := benchWithHistory(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.UserSummary(ctx, alice); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSeal seals what one transfer wrote (a notification and an audit row).
func BenchmarkSeal(b *testing.B) {
	s, alice, from, to := benchPair(b)
	in := TransferInput{AccountID: from.AccountNumber, ToAccountID: to.AccountNumber, Amount: 100}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if _, err := s.Transfer(ctx, alice, in, ""); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := s.Seal(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTransferConcurrent sends from 32 clients at once, as the load
// test does, so the transfers go in batches (postings.go); ns/op is the
// time per transfer, and transfers/batch the mean batch.
func BenchmarkTransferConcurrent(b *testing.B) {
	s := newService(b)
	const clients = 32
	actors := make([]Actor, clients)
	accs := make([]Account, clients)
	for i := range clients {
		actors[i] = newCustomer(b, s, fmt.Sprintf("Cal%d Concurrent", i))
		accs[i] = openAccount(b, s, actors[i], "100000000.00")
	}
	var next atomic.Int64
	b.SetParallelism((clients + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := int(next.Add(1)-1) % clients
		in := TransferInput{AccountID: accs[i].AccountNumber, ToAccountID: accs[(i+1)%clients].AccountNumber, Amount: 125}
		for pb.Next() {
			if _, err := s.Transfer(ctx, actors[i], in, ""); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	if st := s.PostingStats(); st.Batches > 0 {
		b.ReportMetric(float64(st.Postings)/float64(st.Batches), "transfers/batch")
	}
}
