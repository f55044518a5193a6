package bank

import (
	"io"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// BenchmarkStatement10k writes the statement of an account with 10,000
// ledger rows in its period, as CSV and as PDF, from opening the statement
// (checks, snapshot, opening balance) to its last byte (into io.Discard).
// Besides ns/op it reports:
//   - peak-MB: the most heap the Go objects took while the statement was
//     written, above what was live before it (sampled every 200 µs from
//     runtime/metrics, so garbage not yet collected counts too);
//   - out-KB: the size of the statement.
//
// make bench runs it (scripts/bench.sh); alone:
// go test ./pkg/bank -run '^$' -bench '^BenchmarkStatement10k$' -benchtime 3x
func BenchmarkStatement10k(b *testing.B) {
	s := newService(b)
	alice, bob := newCustomer(b, s, "Alice Statement"), newCustomer(b, s, "Bob Statement")
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// Opened the day before the period: their opening rows are in the
	// statement's opening balance, and the period holds exactly 10,000 rows
	// (MaxPDFStatementRows).
	a := openAccountAt(b, s, alice, "BENCH00001", "1000.00", start.Add(-time.Hour))
	o := openAccountAt(b, s, bob, "BENCH00002", "1000000.00", start.Add(-time.Hour))
	// 10,000 transfers between the two accounts, one every 30 minutes from
	// 2026-01-01 (two thirds paid to Alice), written as the ledger writes
	// them (a row on each side), in one statement: through Transfer they
	// would take a minute to set up. The balances are then the ledger's.
	if _, err := s.db.Exec(`
		WITH p AS (SELECT $1::bigint AS a, $2::bigint AS au, $3::bigint AS o, $5::bigint AS ou),
		g AS (SELECT g, CASE WHEN g % 3 = 0 THEN 'DEBIT' ELSE 'CREDIT' END AS typ,
				((g % 5000) + 1) * 0.01 AS amt, $4::timestamptz + g * interval '30 minutes' AS at
			FROM generate_series(1, 10000) g)
		INSERT INTO transactions (account_id, user_id, transaction_type, kind, amount, from_account_id, to_account_id, description, created_at)
		SELECT p.a, p.au, typ, 'transfer', amt, CASE typ WHEN 'DEBIT' THEN p.a ELSE p.o END, CASE typ WHEN 'DEBIT' THEN p.o ELSE p.a END, 'Payment ' || g, at FROM g, p
		UNION ALL
		SELECT p.o, p.ou, CASE typ WHEN 'DEBIT' THEN 'CREDIT' ELSE 'DEBIT' END, 'transfer', amt,
			CASE typ WHEN 'DEBIT' THEN p.a ELSE p.o END, CASE typ WHEN 'DEBIT' THEN p.o ELSE p.a END, 'Payment ' || g, at FROM g, p`,
		a.ID, alice.UserID, o.ID, start, bob.UserID); err != nil {
		b.Fatal(err)
	}
	if _, err := s.db.Exec(`UPDATE accounts x SET balance = l.balance FROM ledger_balances l WHERE l.account_id = x.id AND x.id IN ($1, $2)`, a.ID, o.ID); err != nil {
		b.Fatal(err)
	}
	if _, err := s.db.Exec(`VACUUM ANALYZE transactions`); err != nil {
		b.Fatal(err)
	}
	q := StatementQuery{AccountNumber: a.AccountNumber, From: "2026-01-01", To: "2026-12-31"}
	for _, format := range []string{StatementCSV, StatementPDF} {
		b.Run(format, func(b *testing.B) {
			q.Format = format
			var peak uint64
			var out countingWriter
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				runtime.GC()
				base := heapObjects()
				stop := sampleHeap()
				out = 0
				b.StartTimer()
				st, err := s.Statement(ctx, alice, q)
				if err != nil {
					b.Fatal(err)
				}
				if err := st.Render(&out); err != nil {
					b.Fatal(err)
				}
				st.Close()
				b.StopTimer()
				if p := stop(); p > base && p-base > peak {
					peak = p - base
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
			b.ReportMetric(float64(out)/1024, "out-KB")
		})
	}
}

// countingWriter discards what it is given and counts it.
type countingWriter int64

func (w *countingWriter) Write(p []byte) (int, error) {
	*w += countingWriter(len(p))
	return io.Discard.Write(p)
}

// heapObjects is the bytes of heap the Go objects occupy now (live and
// not yet collected).
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sampleHeap samples heapObjects every 200 µs until the returned function
// is called, which returns the highest sample.
func sampleHeap() func() uint64 {
	var mu sync.Mutex
	peak := heapObjects()
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				h := heapObjects()
				mu.Lock()
				if h > peak {
					peak = h
				}
				mu.Unlock()
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-stopped
		h := heapObjects()
		mu.Lock()
		defer mu.Unlock()
		if h > peak {
			peak = h
		}
		return peak
	}
}
