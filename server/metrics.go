package server

import (
	"database/sql"
	"errors"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/gofiber/fiber/v3/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"meridian/pkg/bank"
)

// Metrics are one serve instance's Prometheus figures, served at /metrics:
// the Go runtime and the process, every database pool (go_sql_*, labelled
// db_name: primary, replica1, …), HTTP requests, WebSockets and pushes,
// and the read replicas (lag, fallbacks). Other parts add their own
// figures with Register or RegisterGaugeFunc.
type Metrics struct {
	reg         *prometheus.Registry
	requests    *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	pushLatency prometheus.Histogram
	wsConns     atomic.Int64
	pushes      atomic.Uint64
	drops       atomic.Uint64
	handler     fiber.Handler // promhttp on reg
}

var latencyBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5}

// newMetrics builds the registry; svc (may be nil) gives the database pools
// and the read router, looked up at each scrape.
func newMetrics(svc *bank.Service) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "meridian_http_requests_total", Help: "HTTP requests by method, route and status."},
		[]string{"method", "route", "status"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "meridian_http_request_duration_seconds", Help: "HTTP request latency.", Buckets: latencyBuckets},
		[]string{"method", "route"})
	m.pushLatency = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "meridian_ws_push_latency_seconds",
		Help:    "From a notification's creation (its transaction's start) to its push onto the user's WebSockets on this instance.",
		Buckets: latencyBuckets})
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.latency, m.pushLatency,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "meridian_ws_connections", Help: "Open WebSocket connections."},
			func() float64 { return float64(m.wsConns.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "meridian_ws_pushes_total", Help: "Notifications pushed to WebSockets."},
			func() float64 { return float64(m.pushes.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "meridian_ws_dropped_total", Help: "WebSocket clients dropped for being too slow."},
			func() float64 { return float64(m.drops.Load()) }))
	if svc != nil {
		m.reg.MustRegister(poolsCollector{svc}, replicasCollector{svc}, schedulerCollector{svc}, postingCollector{svc}, sealerCollector{svc}, webhookCollector{svc})
	}
	m.handler = adaptor.HTTPHandler(promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	return m
}

// Register adds a collector (the scheduler's counters, say). Registering
// the same collector again is not an error.
func (m *Metrics) Register(c prometheus.Collector) error {
	if err := m.reg.Register(c); err != nil {
		var already prometheus.AlreadyRegisteredError
		if errors.As(err, &already) {
			return nil
		}
		return err
	}
	return nil
}

// RegisterGaugeFunc adds a gauge whose value fn returns at each scrape.
func (m *Metrics) RegisterGaugeFunc(name, help string, fn func() float64) error {
	return m.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, fn))
}

// RegisterCounterFunc adds a counter whose value fn returns at each scrape
// (it must only grow).
func (m *Metrics) RegisterCounterFunc(name, help string, fn func() float64) error {
	return m.Register(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, fn))
}

func (m *Metrics) observe(method, route string, status int, d time.Duration) {
	m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(method, route).Observe(d.Seconds())
}

// poolsCollector reports go_sql_* for every pool of the service: the
// primary (db_name="primary") and each read replica (db_name="replica1", …).
// The pools are read at each scrape (a read router may be set after the
// server is built), so the collector is unchecked (Describe sends nothing).
type poolsCollector struct{ svc *bank.Service }

func (poolsCollector) Describe(chan<- *prometheus.Desc) {}

func (p poolsCollector) Collect(ch chan<- prometheus.Metric) {
	pools := map[string]*sql.DB{"primary": p.svc.DB().DB}
	if r := p.svc.ReadRouter(); r.HasReplicas() {
		for _, rep := range r.Replicas() {
			pools[rep.Name] = rep.DB.DB
		}
	}
	for name, db := range pools {
		collectors.NewDBStatsCollector(db, name).Collect(ch)
	}
}

var (
	replicaLagBytes   = prometheus.NewDesc("meridian_replica_lag_bytes", "WAL the read replica had still to replay at the last measure (each second).", []string{"replica"}, nil)
	replicaLagSeconds = prometheus.NewDesc("meridian_replica_lag_seconds", "Age of the read replica's last replayed commit while it was behind, at the last measure.", []string{"replica"}, nil)
	replicaUp         = prometheus.NewDesc("meridian_replica_up", "1 when the read replica answered its last check.", []string{"replica"}, nil)
	replicaFallbacks  = prometheus.NewDesc("meridian_replica_fallbacks_total", "Reads sent to the primary because no replica had replayed the caller's last write within replica_wait (or none answered).", nil, nil)
	replicaWaits      = prometheus.NewDesc("meridian_replica_waits_total", "Reads that waited for a replica to replay the caller's last write, then read from it.", nil, nil)
)

// replicasCollector reports the read router's figures (none without read URLs).
type replicasCollector struct{ svc *bank.Service }

func (replicasCollector) Describe(chan<- *prometheus.Desc) {}

func (c replicasCollector) Collect(ch chan<- prometheus.Metric) {
	r := c.svc.ReadRouter()
	if !r.HasReplicas() {
		return
	}
	for _, rep := range r.Replicas() {
		up := 0.0
		if rep.Healthy() {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(replicaLagBytes, prometheus.GaugeValue, float64(rep.LagBytes()), rep.Name)
		ch <- prometheus.MustNewConstMetric(replicaLagSeconds, prometheus.GaugeValue, rep.LagSeconds(), rep.Name)
		ch <- prometheus.MustNewConstMetric(replicaUp, prometheus.GaugeValue, up, rep.Name)
	}
	ch <- prometheus.MustNewConstMetric(replicaFallbacks, prometheus.CounterValue, float64(r.Fallbacks()))
	ch <- prometheus.MustNewConstMetric(replicaWaits, prometheus.CounterValue, float64(r.Waited()))
}

var (
	scheduledRuns = prometheus.NewDesc("meridian_scheduled_runs_total",
		"Occurrences of scheduled transfers this instance ran, by outcome.", []string{"status"}, nil)
	schedulerTicks = prometheus.NewDesc("meridian_scheduler_ticks_total",
		"Passes this instance's scheduler made over the due scheduled transfers.", nil, nil)
	schedulerLastTick = prometheus.NewDesc("meridian_scheduler_last_tick_seconds",
		"How long this instance's last pass over the due scheduled transfers took.", nil, nil)
)

// schedulerCollector reads the scheduler's figures (bank.SchedulerStats)
// at each scrape.
type schedulerCollector struct{ svc *bank.Service }

func (schedulerCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- scheduledRuns
	ch <- schedulerTicks
	ch <- schedulerLastTick
}

func (c schedulerCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.svc.SchedulerStats()
	ch <- prometheus.MustNewConstMetric(scheduledRuns, prometheus.CounterValue, float64(st.RunsSucceeded), "succeeded")
	ch <- prometheus.MustNewConstMetric(scheduledRuns, prometheus.CounterValue, float64(st.RunsFailed), "failed")
	ch <- prometheus.MustNewConstMetric(schedulerTicks, prometheus.CounterValue, float64(st.Ticks))
	ch <- prometheus.MustNewConstMetric(schedulerLastTick, prometheus.GaugeValue, st.LastTick.Seconds())
}

var (
	postingBatches = prometheus.NewDesc("meridian_posting_batches_total",
		"Statements this instance sent with postings (transfers, accepted requests, deposits, withdrawals; a batch of one included).", nil, nil)
	postingsBatched = prometheus.NewDesc("meridian_postings_batched_total",
		"Postings those statements carried (one sent again counts again); divided by meridian_posting_batches_total, the mean batch.", nil, nil)
	postingBatchLargest = prometheus.NewDesc("meridian_posting_batch_largest",
		"The most postings one batch of this instance carried.", nil, nil)
	postingBatchFallbacks = prometheus.NewDesc("meridian_posting_batch_fallbacks_total",
		"Batches PostgreSQL refused whole (an entry's error, a key stored meanwhile), then sent posting by posting.", nil, nil)
	postingsBusy = prometheus.NewDesc("meridian_postings_busy_total",
		"Postings sent again because another transaction held one of their accounts or requests (no batch waits for such a lock).", nil, nil)
	postingBatchesResolved = prometheus.NewDesc("meridian_posting_batches_resolved_total",
		"Batches whose connection broke before their answer, sent again to learn their outcome.", nil, nil)
	postingsUnknown = prometheus.NewDesc("meridian_postings_outcome_unknown_total",
		"Postings answered 503 outcome_unknown: the database could not be reached to learn whether they committed.", nil, nil)
	postingPanics = prometheus.NewDesc("meridian_posting_worker_panics_total",
		"Batches whose worker panicked (answered outcome_unknown; the queue went on).", nil, nil)
)

// postingCollector reads bank.PostingStats at each scrape.
type postingCollector struct{ svc *bank.Service }

func (postingCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{postingBatches, postingsBatched, postingBatchLargest, postingBatchFallbacks, postingsBusy,
		postingBatchesResolved, postingsUnknown, postingPanics} {
		ch <- d
	}
}

func (c postingCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.svc.PostingStats()
	ch <- prometheus.MustNewConstMetric(postingBatches, prometheus.CounterValue, float64(st.Batches))
	ch <- prometheus.MustNewConstMetric(postingsBatched, prometheus.CounterValue, float64(st.Postings))
	ch <- prometheus.MustNewConstMetric(postingBatchLargest, prometheus.GaugeValue, float64(st.Largest))
	ch <- prometheus.MustNewConstMetric(postingBatchFallbacks, prometheus.CounterValue, float64(st.Fallbacks))
	ch <- prometheus.MustNewConstMetric(postingsBusy, prometheus.CounterValue, float64(st.Busy))
	ch <- prometheus.MustNewConstMetric(postingBatchesResolved, prometheus.CounterValue, float64(st.Resolved))
	ch <- prometheus.MustNewConstMetric(postingsUnknown, prometheus.CounterValue, float64(st.Unknown))
	ch <- prometheus.MustNewConstMetric(postingPanics, prometheus.CounterValue, float64(st.Panics))
}

var sealerForeignLinks = prometheus.NewDesc("meridian_sealer_foreign_links_total",
	"Links of the audit chain or entries of the notification feed that no seal wrote, found (and sealed on after) by this instance's sealer; run meridian audit-log verify.", nil, nil)

// sealerCollector reads what this instance's sealer found at each scrape.
type sealerCollector struct{ svc *bank.Service }

func (sealerCollector) Describe(ch chan<- *prometheus.Desc) { ch <- sealerForeignLinks }

func (c sealerCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(sealerForeignLinks, prometheus.CounterValue, float64(c.svc.SealerForeignLinks()))
}

var webhookDeliveries = prometheus.NewDesc("meridian_webhook_deliveries_total",
	"Webhook delivery attempts by this process, by outcome: delivered (a 2xx) or failed.", []string{"outcome"}, nil)
var webhooksMarkedFailing = prometheus.NewDesc("meridian_webhooks_marked_failing_total",
	"Webhook endpoints this process marked failing after 24 hours of failed deliveries.", nil, nil)

// webhookCollector reports the webhook dispatcher's figures (pkg/bank webhooks.go).
type webhookCollector struct{ svc *bank.Service }

func (webhookCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- webhookDeliveries
	ch <- webhooksMarkedFailing
}

func (c webhookCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.svc.WebhookStats()
	ch <- prometheus.MustNewConstMetric(webhookDeliveries, prometheus.CounterValue, float64(st.Delivered), "delivered")
	ch <- prometheus.MustNewConstMetric(webhookDeliveries, prometheus.CounterValue, float64(st.Failed), "failed")
	ch <- prometheus.MustNewConstMetric(webhooksMarkedFailing, prometheus.CounterValue, float64(st.MarkedFailing))
}

// Metrics returns the server's figures, for other parts to add theirs.
func (s *Server) Metrics() *Metrics { return s.metrics }

// metricsHandler serves /metrics in the Prometheus text format (promhttp).
func (s *Server) metricsHandler(c fiber.Ctx) error { return s.metrics.handler(c) }
