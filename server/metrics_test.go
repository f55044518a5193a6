package server

import (
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"meridian/pkg/db"
)

// TestMetrics: /metrics (Prometheus text, client_golang) shows the Go
// runtime, the process, every database pool by db_name, the HTTP figures,
// the scheduler's, the read replicas' figures once replicas are
// configured, and figures other parts register.
func TestMetrics(t *testing.T) {
	e := newEnv(t)
	e.want(e.do("GET", "/api/nothing-here", "", nil), 404, "a 404 to count")
	body := func() string {
		r := e.do("GET", "/metrics", "", nil)
		if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") {
			t.Fatalf("/metrics: %d %s", r.Status, r.Header.Get("Content-Type"))
		}
		return string(r.Body)
	}
	has := func(b string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(b, w) {
				t.Errorf("/metrics lacks %s", w)
			}
		}
	}
	b := body()
	has(b, "go_goroutines ", "process_cpu_seconds_total ", "process_resident_memory_bytes ",
		`go_sql_open_connections{db_name="primary"}`, `go_sql_max_open_connections{db_name="primary"}`,
		`meridian_http_requests_total{method="GET",route="/api/*",status="404"} 1`,
		`meridian_http_request_duration_seconds_bucket{method="GET",route="/api/*",le="0.001"}`,
		"meridian_ws_connections 0", "meridian_ws_pushes_total 0", "meridian_ws_dropped_total 0", "meridian_ws_push_latency_seconds_count 0",
		"# TYPE meridian_scheduler_ticks_total counter\nmeridian_scheduler_ticks_total ", "meridian_scheduler_last_tick_seconds ")
	if strings.Contains(b, "meridian_replica_") || strings.Contains(b, `db_name="replica1"`) {
		t.Error("replica figures without read replicas")
	}

	replicas, err := db.OpenReplicas([]string{e.url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { replicas[0].Close() })
	r := db.NewRouter(e.svc.DB(), []*sqlx.DB{replicas[0]}, 0)
	e.svc.SetReadRouter(r)
	if err := r.Measure(ctxBG); err != nil {
		t.Fatal(err)
	}
	a, b2 := e.customer("Mia Metric"), e.customer("Max Metric")
	_, from := e.account(a, "10.00")
	_, to := e.account(b2, "0")
	e.want(e.do("POST", "/api/user/money-transfer", a.Token, map[string]any{"account_id": from, "to_account_id": to, "amount": "1.00"}), 201, "a transfer")
	if err := e.srv.Metrics().RegisterGaugeFunc("meridian_scheduler_due", "Scheduled runs due.", func() float64 { return 3 }); err != nil {
		t.Fatal(err)
	}
	b = body()
	has(b, `go_sql_open_connections{db_name="replica1"}`, `go_sql_open_connections{db_name="primary"}`,
		`meridian_replica_lag_bytes{replica="replica1"} 0`, `meridian_replica_lag_seconds{replica="replica1"} 0`, `meridian_replica_up{replica="replica1"} 1`,
		"meridian_replica_fallbacks_total 0", "meridian_replica_waits_total 0", "meridian_scheduler_due 3",
		"meridian_posting_batches_total 1", "meridian_postings_batched_total 1", "meridian_posting_batch_largest 1", "meridian_posting_batch_fallbacks_total 0",
		"meridian_postings_busy_total 0", "meridian_posting_batches_resolved_total 0", "meridian_postings_outcome_unknown_total 0", "meridian_posting_worker_panics_total 0")
}
