package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"meridian/pkg/db"
)

// An answer is always the truth (contract §5). These tests hold one
// account's row lock from outside, as another transaction would, while
// customers send money with short deadlines, and read every answer against
// the ledger.

// sentTransfer is one transfer the test sent and what it was answered.
type sentTransfer struct {
	token, key, from, to string
	amount               string
	status               int
	code                 string
	body                 []byte
}

// post sends a transfer through the real HTTP stack.
func postTransfer(t *testing.T, client *http.Client, base string, s *sentTransfer) (int, http.Header, []byte) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"account_id": s.from, "to_account_id": s.to, "amount": s.amount, "description": s.key})
	req, _ := http.NewRequest("POST", base+"/api/user/money-transfer", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Idempotency-Key", s.key)
	res, err := client.Do(req)
	if err != nil {
		t.Errorf("transfer %s: %v", s.key, err)
		return 0, nil, nil
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, b
}

// debits counts the DEBIT ledger rows of the transfer whose description is key.
func (e *testEnv) debits(key string) int {
	e.t.Helper()
	var n int
	if err := e.svc.DB().Get(&n, `SELECT count(*) FROM transactions WHERE transaction_type = 'DEBIT' AND description = $1`, key); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// TestCommittedTransferIsNeverAnsweredUndone is the experiment of issue 19:
// one account of the batches is held by another transaction past the
// requests' deadline, and many transfers, to it and between others, run with
// short deadlines. Every answer is read against the ledger: no 503 that says
// nothing changed may stand for a transfer whose DEBIT is there (only
// outcome_unknown may), and a retry under the same Idempotency-Key answers
// the transfer that committed, or makes it once.
func TestCommittedTransferIsNeverAnsweredUndone(t *testing.T) {
	t.Parallel()
	const deadline = 400 * time.Millisecond
	e := newEnvWithPool(t, db.Timeouts(deadline))
	const senders, perSender = 12, 30
	type party struct {
		u   user
		num string
	}
	var from, to []party
	for i := range senders {
		u := e.customer(fmt.Sprintf("Sam%d Sender", i))
		_, num := e.account(u, "1000.00")
		from = append(from, party{u, num})
		r := e.customer(fmt.Sprintf("Rita%d Receiver", i))
		_, rnum := e.account(r, "0")
		to = append(to, party{r, rnum})
	}
	victim := e.customer("Vic Locked")
	vid, vnum := e.account(victim, "0")
	e.withTimeout(deadline)
	base := e.listen()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

	// The lock is taken and let go again and again while the senders run,
	// each time held for three deadlines.
	stop := make(chan struct{})
	holder := make(chan struct{})
	go func() {
		defer close(holder)
		for {
			release := e.lockAccount(vid)
			select {
			case <-stop:
				release()
				return
			case <-time.After(3 * deadline):
			}
			release()
			time.Sleep(deadline / 4)
		}
	}()

	var sent []*sentTransfer
	var mu sync.Mutex
	var wg sync.WaitGroup
	var n atomic.Int64
	for g := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 19))
			for i := range perSender {
				s := &sentTransfer{token: from[g].u.Token, key: fmt.Sprintf("truth-%d-%d", g, i), from: from[g].num,
					to: to[r.IntN(senders)].num, amount: fmt.Sprintf("%d.%02d", 1+r.IntN(5), r.IntN(100))}
				if r.IntN(4) == 0 {
					s.to = vnum
				}
				status, _, body := postTransfer(t, client, base, s)
				s.status, s.body = status, body
				var m map[string]any
				if json.Unmarshal(body, &m) == nil {
					s.code, _ = m["code"].(string)
				}
				n.Add(1)
				mu.Lock()
				sent = append(sent, s)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-holder
	time.Sleep(200 * time.Millisecond) // anything still committing has committed

	lies, unknown, timeouts := 0, 0, 0
	for _, s := range sent {
		d := e.debits(s.key)
		switch {
		case s.status == 201:
			if d != 1 {
				t.Errorf("%s: answered 201, %d DEBIT rows", s.key, d)
			}
		case s.status == 503 && s.code == "outcome_unknown":
			unknown++
		case s.status == 503:
			timeouts++
			if d != 0 {
				lies++
				t.Errorf("%s: answered 503 %s (%s), yet its DEBIT is in the ledger", s.key, s.code, s.body)
			}
		case s.status >= 500:
			t.Errorf("%s: answered %d %s", s.key, s.status, s.body)
		default:
			if d != 0 {
				t.Errorf("%s: answered %d %s, yet its DEBIT is in the ledger", s.key, s.status, s.body)
			}
		}
		if s.status != 503 {
			continue
		}
		// The retry the message asks for, with the same key, tells the truth.
		status, h, body := postTransfer(t, client, base, s)
		if status != 201 {
			t.Errorf("%s: the retry answered %d %s", s.key, status, body)
			continue
		}
		if d == 1 && h.Get("Idempotent-Replayed") != "true" {
			t.Errorf("%s: committed, but the retry was not a replay: %s", s.key, body)
		}
		if got := e.debits(s.key); got != 1 {
			t.Errorf("%s: %d DEBIT rows after the retry", s.key, got)
		}
	}
	t.Logf("%d transfers: %d answered 503 timeout, %d outcome_unknown, %d of those 503s had committed", len(sent), timeouts, unknown, lies)
	if timeouts == 0 {
		t.Fatal("no transfer ran out of time: the test did not hold the lock past the deadline")
	}
}

// TestHeldLockStallsNobodyElse: while another transaction holds one
// account's row lock for 5 s and a transfer to that account waits for it,
// transfers between other customers and other accounts go through at once:
// every one of them is answered before the lock is let go (contract §5:
// requests that touch other accounts never wait behind a lock that one
// account's holder keeps). The transfer to the held account goes through
// once the lock is gone.
func TestHeldLockStallsNobodyElse(t *testing.T) {
	t.Parallel()
	e := newEnvWithPool(t, db.Timeouts(10*time.Second))
	victim := e.customer("Held Account")
	vid, vnum := e.account(victim, "0")
	payer := e.customer("Patient Payer")
	_, pnum := e.account(payer, "100.00")
	const others = 20
	type pair struct {
		u        user
		from, to string
	}
	var pairs []pair
	for i := range others {
		u := e.customer(fmt.Sprintf("Olga%d Other", i))
		_, f := e.account(u, "50.00")
		r := e.customer(fmt.Sprintf("Omar%d Other", i))
		_, to := e.account(r, "0")
		pairs = append(pairs, pair{u, f, to})
	}
	base := e.listen()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

	release := e.lockAccount(vid)
	var released atomic.Bool
	timer := time.AfterFunc(5*time.Second, func() { released.Store(true); release() })
	defer timer.Stop()

	waiting := make(chan int, 1)
	go func() {
		status, _, _ := postTransfer(t, client, base, &sentTransfer{token: payer.Token, key: "to-held", from: pnum, to: vnum, amount: "1.00"})
		waiting <- status
	}()
	time.Sleep(100 * time.Millisecond) // the transfer to the held account is in

	var wg sync.WaitGroup
	var late atomic.Int64
	for i, p := range pairs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, _, body := postTransfer(t, client, base, &sentTransfer{token: p.u.Token, key: fmt.Sprintf("other-%d", i), from: p.from, to: p.to, amount: "2.00"})
			if released.Load() {
				late.Add(1)
			}
			if status != 201 {
				t.Errorf("transfer %d between other accounts: %d %s", i, status, body)
			}
		}()
	}
	wg.Wait()
	if n := late.Load(); n > 0 {
		t.Fatalf("%d of %d transfers between other accounts were answered only after the held lock was let go", n, others)
	}
	if !released.Load() {
		timer.Stop()
		released.Store(true)
		release()
	}
	if status := <-waiting; status != 201 {
		t.Fatalf("the transfer to the held account: %d after the lock was let go", status)
	}
}
