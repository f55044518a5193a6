package server

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v3"

	"meridian/pkg/bank"
)

// metrics counts requests for /metrics in the Prometheus text format.
type metrics struct {
	mu       sync.Mutex
	requests map[[3]string]uint64 // method, route, status
	buckets  map[[2]string][]uint64
	sums     map[[2]string]float64
	wsConns  atomic.Int64
	pushes   atomic.Uint64
	drops    atomic.Uint64
}

var latencyBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5}

func newMetrics() *metrics {
	return &metrics{requests: map[[3]string]uint64{}, buckets: map[[2]string][]uint64{}, sums: map[[2]string]float64{}}
}

func (m *metrics) observe(method, route string, status int, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[[3]string{method, route, fmt.Sprint(status)}]++
	k := [2]string{method, route}
	b := m.buckets[k]
	if b == nil {
		b = make([]uint64, len(latencyBuckets)+1)
		m.buckets[k] = b
	}
	sec := d.Seconds()
	for i, le := range latencyBuckets {
		if sec <= le {
			b[i]++
		}
	}
	b[len(latencyBuckets)]++
	m.sums[k] += sec
}

func (m *metrics) render() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	b.WriteString("# HELP meridian_http_requests_total HTTP requests by method, route and status.\n# TYPE meridian_http_requests_total counter\n")
	keys := make([][3]string, 0, len(m.requests))
	for k := range m.requests {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return strings.Join(keys[i][:], " ") < strings.Join(keys[j][:], " ") })
	for _, k := range keys {
		fmt.Fprintf(&b, "meridian_http_requests_total{method=%q,route=%q,status=%q} %d\n", k[0], k[1], k[2], m.requests[k])
	}
	b.WriteString("# HELP meridian_http_request_duration_seconds HTTP request latency.\n# TYPE meridian_http_request_duration_seconds histogram\n")
	hk := make([][2]string, 0, len(m.buckets))
	for k := range m.buckets {
		hk = append(hk, k)
	}
	sort.Slice(hk, func(i, j int) bool { return hk[i][0]+hk[i][1] < hk[j][0]+hk[j][1] })
	for _, k := range hk {
		for i, le := range latencyBuckets {
			fmt.Fprintf(&b, "meridian_http_request_duration_seconds_bucket{method=%q,route=%q,le=\"%g\"} %d\n", k[0], k[1], le, m.buckets[k][i])
		}
		n := m.buckets[k][len(latencyBuckets)]
		fmt.Fprintf(&b, "meridian_http_request_duration_seconds_bucket{method=%q,route=%q,le=\"+Inf\"} %d\n", k[0], k[1], n)
		fmt.Fprintf(&b, "meridian_http_request_duration_seconds_sum{method=%q,route=%q} %g\n", k[0], k[1], m.sums[k])
		fmt.Fprintf(&b, "meridian_http_request_duration_seconds_count{method=%q,route=%q} %d\n", k[0], k[1], n)
	}
	fmt.Fprintf(&b, "# HELP meridian_ws_connections Open WebSocket connections.\n# TYPE meridian_ws_connections gauge\nmeridian_ws_connections %d\n", m.wsConns.Load())
	fmt.Fprintf(&b, "# HELP meridian_ws_pushes_total Notifications pushed to WebSockets.\n# TYPE meridian_ws_pushes_total counter\nmeridian_ws_pushes_total %d\n", m.pushes.Load())
	fmt.Fprintf(&b, "# HELP meridian_ws_dropped_total WebSocket clients dropped for being too slow.\n# TYPE meridian_ws_dropped_total counter\nmeridian_ws_dropped_total %d\n", m.drops.Load())
	return b.String()
}

func (s *Server) metricsHandler(c fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, "text/plain; version=0.0.4; charset=utf-8")
	return c.SendString(s.metrics.render() + schedulerMetrics(s.svc.SchedulerStats()))
}

// schedulerMetrics renders this process's scheduler figures.
func schedulerMetrics(st bank.SchedulerStats) string {
	var b strings.Builder
	b.WriteString("# HELP meridian_scheduled_runs_total Occurrences of scheduled transfers this instance ran, by outcome.\n# TYPE meridian_scheduled_runs_total counter\n")
	fmt.Fprintf(&b, "meridian_scheduled_runs_total{status=\"succeeded\"} %d\nmeridian_scheduled_runs_total{status=\"failed\"} %d\n", st.RunsSucceeded, st.RunsFailed)
	fmt.Fprintf(&b, "# HELP meridian_scheduler_last_tick_seconds How long this instance's last pass over the due scheduled transfers took.\n# TYPE meridian_scheduler_last_tick_seconds gauge\nmeridian_scheduler_last_tick_seconds %g\n", st.LastTick.Seconds())
	return b.String()
}
