package loadtest

import (
	"encoding/json"
	"math"
	"slices"
	"time"
)

// Latency summarizes request latencies: exact percentiles over every
// recorded sample (nearest-rank on the sorted slice).
type Latency struct {
	Count int           `json:"count"`
	Mean  time.Duration `json:"mean"`
	P50   time.Duration `json:"p50"`
	P95   time.Duration `json:"p95"`
	P99   time.Duration `json:"p99"`
	Max   time.Duration `json:"max"`
}

// MarshalJSON writes the durations as milliseconds (numbers), easier for
// scripts than Go's nanoseconds.
func (l Latency) MarshalJSON() ([]byte, error) {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return json.Marshal(struct {
		Count  int     `json:"count"`
		MeanMS float64 `json:"mean_ms"`
		P50MS  float64 `json:"p50_ms"`
		P95MS  float64 `json:"p95_ms"`
		P99MS  float64 `json:"p99_ms"`
		MaxMS  float64 `json:"max_ms"`
	}{l.Count, ms(l.Mean), ms(l.P50), ms(l.P95), ms(l.P99), ms(l.Max)})
}

// Summarize computes the summary of samples. It sorts samples in place.
func Summarize(samples []time.Duration) Latency {
	if len(samples) == 0 {
		return Latency{}
	}
	slices.Sort(samples)
	var sum time.Duration
	for _, s := range samples {
		sum += s
	}
	return Latency{
		Count: len(samples),
		Mean:  sum / time.Duration(len(samples)),
		P50:   Percentile(samples, 50),
		P95:   Percentile(samples, 95),
		P99:   Percentile(samples, 99),
		Max:   samples[len(samples)-1],
	}
}

// Percentile returns the nearest-rank p-th percentile (0 < p <= 100) of
// sorted: the smallest sample such that at least p% of the samples are at
// most it.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	// rank = ceil(p/100 * n), in integers (hundredths of a percent) so that
	// 0.95*100 does not round up to rank 96.
	n := len(sorted)
	rank := (int(math.Round(p*100))*n + 9999) / 10000
	if rank < 1 {
		rank = 1
	}
	if rank > n {
		rank = n
	}
	return sorted[rank-1]
}

// recorder collects one worker's samples; workers merge at the end, so
// recording takes no lock.
type recorder struct {
	lat    []time.Duration
	status map[string]int
	errs   []string
}

func newRecorder() *recorder { return &recorder{status: map[string]int{}} }

const maxErrorSamples = 10

// errorSample keeps the first maxErrorSamples distinct error texts.
func (r *recorder) errorSample(s string) {
	if len(r.errs) >= maxErrorSamples || slices.Contains(r.errs, s) {
		return
	}
	r.errs = append(r.errs, s)
}

// merge folds the recorders into one.
func merge(rs []*recorder) *recorder {
	out := newRecorder()
	for _, r := range rs {
		out.lat = append(out.lat, r.lat...)
		for k, v := range r.status {
			out.status[k] += v
		}
		for _, e := range r.errs {
			out.errorSample(e)
		}
	}
	return out
}
