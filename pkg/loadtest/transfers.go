package loadtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"meridian/pkg/money"
)

// Report is the outcome of a run of requests.
type Report struct {
	Mode        string        `json:"mode"`
	Concurrency int           `json:"concurrency"`
	Elapsed     time.Duration `json:"elapsed_ns"`
	// Requests is every request sent (answered or not).
	Requests int `json:"requests"`
	// PerSecond is Requests per second of Elapsed.
	PerSecond float64 `json:"per_second"`
	// Transfers answered 201, Refused answered 422 (transfer runs only).
	Transfers          int     `json:"transfers"`
	TransfersPerSecond float64 `json:"transfers_per_second"`
	Refused            int     `json:"refused"`
	// Errors is every other outcome: a network error, any 5xx, an
	// unexpected 4xx.
	Errors int `json:"errors"`
	// Uncertain counts the errors after which the transfer may have
	// committed (network errors and 5xx); Resolve settles them.
	Uncertain int `json:"uncertain"`
	// Status counts answers by HTTP status ("201", "422", "500", ...) and
	// "network" for requests that got no answer.
	Status map[string]int `json:"status"`
	// Latency is over every answered request.
	Latency Latency `json:"latency"`
	// ByEndpoint splits Latency per endpoint (read runs).
	ByEndpoint   map[string]Latency `json:"by_endpoint,omitempty"`
	ErrorSamples []string           `json:"error_samples,omitempty"`
}

// overdraftBase is far above any seeded balance (bulk balances are at most
// 10,000.00 plus what they receive).
const overdraftBase money.Amount = 1_000_000_00

// RunTransfers makes random transfers until opts.Duration has passed or
// opts.Count requests were sent, with opts.Concurrency in flight. Each
// request has a unique Idempotency-Key. Cancelling ctx aborts the run
// (requests in flight then count as network errors).
func (d *Driver) RunTransfers(ctx context.Context) (*Report, error) {
	if len(d.sessions) == 0 {
		return nil, errors.New("loadtest: sign in first (Login)")
	}
	if len(d.accounts) < 2 {
		return nil, errors.New("loadtest: at least two accounts are needed for transfers")
	}
	if d.opts.HotAccount && (len(d.sessions) < 2 || len(d.sessions[0].Accounts) == 0 || d.sessions[0].Accounts[0] != d.accounts[0]) {
		return nil, errors.New("loadtest: a hot-account run needs at least two customers, the first holding the merchant account")
	}
	if d.opts.Duration <= 0 && d.opts.Count <= 0 {
		return nil, errors.New("loadtest: set a duration or a count")
	}
	url := d.base + "/api/user/money-transfer"
	n := d.opts.Concurrency
	recs := make([]*recorder, n)
	committed := make([][]Committed, n)
	uncertain := make([][]pending, n)
	var issued atomic.Int64
	start := time.Now()
	var stopAt time.Time
	if d.opts.Duration > 0 {
		stopAt = start.Add(d.opts.Duration)
	}
	var wg sync.WaitGroup
	for w := range n {
		recs[w] = newRecorder()
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := recs[w]
			rng := rand.New(rand.NewPCG(d.opts.Seed, uint64(w)+1))
			for {
				if ctx.Err() != nil || d.stopped() || (!stopAt.IsZero() && !time.Now().Before(stopAt)) {
					return
				}
				if d.opts.Count > 0 && issued.Add(1) > int64(d.opts.Count) {
					return
				}
				si := rng.IntN(len(d.sessions))
				if d.opts.HotAccount {
					si = 1 + rng.IntN(len(d.sessions)-1) // the merchant (session 0) never sends
				}
				s := d.sessions[si]
				if len(s.Accounts) == 0 {
					continue
				}
				b := transferBody{AccountID: s.Accounts[rng.IntN(len(s.Accounts))], Description: "load test"}
				for !d.opts.HotAccount {
					b.ToAccountID = d.accounts[rng.IntN(len(d.accounts))]
					if b.ToAccountID != b.AccountID {
						break
					}
				}
				if d.opts.HotAccount {
					b.ToAccountID = d.accounts[0]
				}
				if rng.IntN(100) < d.opts.OverdraftPercent {
					b.Amount = overdraftBase + money.Amount(rng.IntN(100_00))
				} else {
					b.Amount = 1_00 + money.Amount(rng.Int64N(int64(d.opts.MaxAmount-1_00)+1))
				}
				key := "lt-" + uuid.NewString()
				body, _ := json.Marshal(b)
				t0 := time.Now()
				status, resp, err := do(ctx, d.client, http.MethodPost, url, s.token, key, body)
				lat := time.Since(t0)
				p := pending{session: si, key: key, body: b, sent: t0}
				switch {
				case err != nil:
					rec.status["network"]++
					rec.errorSample("network: " + err.Error())
					uncertain[w] = append(uncertain[w], p)
					d.pause(ctx)
					continue
				case status == http.StatusCreated:
					d.ok201.Add(1)
					id, perr := transactionID(resp)
					if perr != nil {
						// It committed, but we cannot tell its id: let Resolve replay it.
						rec.errorSample("201 without a transaction id: " + snippet(resp))
						uncertain[w] = append(uncertain[w], p)
					} else {
						committed[w] = append(committed[w], Committed{ID: id, From: b.AccountID, To: b.ToAccountID, Amount: b.Amount, Key: key,
							Sent: t0, Answered: t0.Add(lat)})
					}
				case status >= 500:
					rec.errorSample(fmt.Sprintf("HTTP %d: %s", status, snippet(resp)))
					p.saidUndone = saysUndone(resp)
					uncertain[w] = append(uncertain[w], p)
				case status != http.StatusUnprocessableEntity:
					rec.errorSample(fmt.Sprintf("HTTP %d: %s", status, snippet(resp)))
				}
				rec.status[strconv.Itoa(status)]++
				rec.lat = append(rec.lat, lat)
				if status >= 500 {
					d.pause(ctx)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	all := merge(recs)
	r := &Report{Mode: "transfers", Concurrency: n, Elapsed: elapsed, Status: all.status, ErrorSamples: all.errs}
	for k, v := range all.status {
		r.Requests += v
		switch k {
		case "201":
			r.Transfers += v
		case "422":
			r.Refused += v
		default:
			r.Errors += v
		}
	}
	d.mu.Lock()
	for w := range n {
		d.committed = append(d.committed, committed[w]...)
		d.uncertain = append(d.uncertain, uncertain[w]...)
		r.Uncertain += len(uncertain[w])
	}
	d.mu.Unlock()
	// A 201 whose body lacked an id was counted as 201 above and is also uncertain.
	r.Latency = Summarize(all.lat)
	if secs := elapsed.Seconds(); secs > 0 {
		r.PerSecond = float64(r.Requests) / secs
		r.TransfersPerSecond = float64(r.Transfers) / secs
	}
	return r, nil
}

// pause waits ErrorBackoff, or less if the run is stopped.
func (d *Driver) pause(ctx context.Context) {
	t := time.NewTimer(d.opts.ErrorBackoff)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-d.stop:
	case <-t.C:
	}
}

// transactionID reads the DEBIT row's id from a 201 answer
// {"message": ..., "transaction": {"id": ...}}.
func transactionID(body []byte) (int64, error) {
	var out struct {
		Transaction struct {
			ID int64 `json:"id"`
		} `json:"transaction"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return 0, err
	}
	if out.Transaction.ID <= 0 {
		return 0, errors.New("no transaction id")
	}
	return out.Transaction.ID, nil
}

// Resolution tells how Resolve settled the transfers whose outcome was
// unknown.
type Resolution struct {
	// Uncertain is how many there were.
	Uncertain int `json:"uncertain"`
	// Replayed: the retry answered the stored reply (Idempotent-Replayed):
	// the first attempt had committed although its answer was lost.
	Replayed int `json:"replayed"`
	// Committed now: the retry made the transfer (the first had not).
	CommittedNow int `json:"committed_now"`
	// Refused: the retry answered 422 (nothing moved).
	Refused int `json:"refused"`
	// Other: another 4xx, e.g. a 409 idempotency_key_reused (a bug: the
	// body is the same).
	Other        int      `json:"other"`
	OtherSamples []string `json:"other_samples,omitempty"`
	// Unresolved: still no definite answer when ctx ended.
	Unresolved int `json:"unresolved"`
	// Lies: replayed, so committed, although the first answer said that
	// nothing had changed (503 timeout or database_unavailable). Contract
	// §5 allows none: a client that believed it would pay twice.
	Lies       int      `json:"lies"`
	LieSamples []string `json:"lie_samples,omitempty"`
}

// Resolve repeats every transfer whose outcome is unknown with its own
// Idempotency-Key and body until the server answers 201 or a 4xx, or ctx
// ends. A replayed 201 proves the first attempt committed; a fresh 201 that
// it had not. Either way the transfer is then in Committed exactly once.
func (d *Driver) Resolve(ctx context.Context) (*Resolution, error) {
	d.mu.Lock()
	todo := d.uncertain
	d.uncertain = nil
	d.mu.Unlock()
	res := &Resolution{Uncertain: len(todo)}
	url := d.base + "/api/user/money-transfer"
	var left []pending
	for _, p := range todo {
		body, _ := json.Marshal(p.body)
		settled := false
		for !settled {
			if ctx.Err() != nil {
				break
			}
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytesReader(body))
			if err != nil {
				return res, err
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+d.sessions[p.session].token)
			req.Header.Set("Idempotency-Key", p.key)
			status, replayed, resp, err := doReq(d.client, req)
			switch {
			case err != nil || status >= 500:
				sleepCtx(ctx, 200*time.Millisecond)
				continue
			case status == http.StatusCreated:
				id, perr := transactionID(resp)
				if perr != nil {
					res.Other++
					res.OtherSamples = append(res.OtherSamples, "201 without id: "+snippet(resp))
				} else {
					if replayed {
						res.Replayed++
						if p.saidUndone {
							res.Lies++
							if len(res.LieSamples) < maxErrorSamples {
								res.LieSamples = append(res.LieSamples, fmt.Sprintf("key %s: answered that nothing changed, yet transaction %d had committed", p.key, id))
							}
						}
					} else {
						res.CommittedNow++
					}
					d.mu.Lock()
					d.committed = append(d.committed, Committed{ID: id, From: p.body.AccountID, To: p.body.ToAccountID, Amount: p.body.Amount, Key: p.key,
						Sent: p.sent, Answered: time.Now()})
					d.mu.Unlock()
				}
			case status == http.StatusUnprocessableEntity:
				res.Refused++
			default:
				res.Other++
				if len(res.OtherSamples) < maxErrorSamples {
					res.OtherSamples = append(res.OtherSamples, fmt.Sprintf("HTTP %d: %s", status, snippet(resp)))
				}
			}
			settled = true
		}
		if !settled {
			left = append(left, p)
		}
	}
	res.Unresolved = len(left)
	if len(left) > 0 {
		d.mu.Lock()
		d.uncertain = append(d.uncertain, left...)
		d.mu.Unlock()
	}
	return res, nil
}

// Committed returns the transfers known to have committed, one per
// transaction id, in id order.
func (d *Driver) Committed() []Committed {
	d.mu.Lock()
	defer d.mu.Unlock()
	seen := map[int64]bool{}
	out := make([]Committed, 0, len(d.committed))
	for _, c := range d.committed {
		if !seen[c.ID] {
			seen[c.ID] = true
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Unresolved is how many transfers still have an unknown outcome.
func (d *Driver) Unresolved() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.uncertain)
}
