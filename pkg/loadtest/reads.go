package loadtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// ReadEndpoints are the reads RunReads mixes, by name.
var ReadEndpoints = []struct{ Name, Path string }{
	{"history", "/api/user/transactions/history?limit=50"},
	{"dashboard", "/api/user/dashboard/transactions-summary"},
}

// RunReads sends the ReadEndpoints, chosen at random for random signed-in
// customers, with opts.Concurrency in flight, for duration. Any answer but
// 200 is an error.
func (d *Driver) RunReads(ctx context.Context, duration time.Duration) (*Report, error) {
	if len(d.sessions) == 0 {
		return nil, errors.New("loadtest: sign in first (Login)")
	}
	if duration <= 0 {
		return nil, errors.New("loadtest: set a duration for reads")
	}
	n := d.opts.Concurrency
	type workerRecs struct{ all, byEP []*recorder }
	recs := make([]workerRecs, n)
	start := time.Now()
	stopAt := start.Add(duration)
	var wg sync.WaitGroup
	for w := range n {
		recs[w] = workerRecs{all: []*recorder{newRecorder()}}
		for range ReadEndpoints {
			recs[w].byEP = append(recs[w].byEP, newRecorder())
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := recs[w].all[0]
			rng := rand.New(rand.NewPCG(d.opts.Seed+1_000_003, uint64(w)+1))
			for ctx.Err() == nil && !d.stopped() && time.Now().Before(stopAt) {
				s := d.sessions[rng.IntN(len(d.sessions))]
				ep := rng.IntN(len(ReadEndpoints))
				t0 := time.Now()
				status, resp, err := do(ctx, d.client, http.MethodGet, d.base+ReadEndpoints[ep].Path, s.token, "", nil)
				lat := time.Since(t0)
				if err != nil {
					rec.status["network"]++
					rec.errorSample("network: " + err.Error())
					d.pause(ctx)
					continue
				}
				rec.status[strconv.Itoa(status)]++
				if status != http.StatusOK {
					rec.errorSample(fmt.Sprintf("%s: HTTP %d: %s", ReadEndpoints[ep].Name, status, snippet(resp)))
				}
				rec.lat = append(rec.lat, lat)
				recs[w].byEP[ep].lat = append(recs[w].byEP[ep].lat, lat)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	var alls []*recorder
	for _, r := range recs {
		alls = append(alls, r.all...)
	}
	all := merge(alls)
	r := &Report{Mode: "reads", Concurrency: n, Elapsed: elapsed, Status: all.status, ErrorSamples: all.errs,
		ByEndpoint: map[string]Latency{}}
	for k, v := range all.status {
		r.Requests += v
		if k != "200" {
			r.Errors += v
		}
	}
	r.Latency = Summarize(all.lat)
	for i, ep := range ReadEndpoints {
		var per []*recorder
		for _, wr := range recs {
			per = append(per, wr.byEP[i])
		}
		r.ByEndpoint[ep.Name] = Summarize(merge(per).lat)
	}
	if secs := elapsed.Seconds(); secs > 0 {
		r.PerSecond = float64(r.Requests) / secs
	}
	return r, nil
}
