package bank

import (
	"sync"
	"time"
)

// RateLimiter allows each key at most n events per window (a sliding log).
// It is per process; with several instances each enforces its own share.
type RateLimiter struct {
	mu     sync.Mutex
	n      int
	window time.Duration
	events map[string][]time.Time
}

// NewRateLimiter returns a limiter of n events per window.
func NewRateLimiter(n int, window time.Duration) *RateLimiter {
	return &RateLimiter{n: n, window: window, events: map[string][]time.Time{}}
}

// Allow records an event for key at now and reports whether it is within the limit.
func (r *RateLimiter) Allow(key string, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	cut := now.Add(-r.window)
	ev := r.events[key]
	i := 0
	for i < len(ev) && !ev[i].After(cut) {
		i++
	}
	ev = ev[i:]
	if len(r.events) > 10_000 { // forget idle keys now and then
		for k, v := range r.events {
			if len(v) == 0 || !v[len(v)-1].After(cut) {
				delete(r.events, k)
			}
		}
	}
	if len(ev) >= r.n {
		r.events[key] = ev
		return false
	}
	r.events[key] = append(ev, now)
	return true
}
