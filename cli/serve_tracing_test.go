package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// collector is an OTLP/HTTP trace collector in the test process: nothing
// leaves the machine.
type collector struct {
	mu    sync.Mutex
	spans []*tracepb.Span
	svc   []string // service.name of each batch
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "not OTLP/HTTP traces", http.StatusNotFound)
		return
	}
	b, _ := io.ReadAll(r.Body)
	var req collectortrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(b, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	for _, rs := range req.ResourceSpans {
		for _, a := range rs.GetResource().GetAttributes() {
			if a.Key == "service.name" {
				c.svc = append(c.svc, a.GetValue().GetStringValue())
			}
		}
		for _, ss := range rs.ScopeSpans {
			c.spans = append(c.spans, ss.Spans...)
		}
	}
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Write(out)
}

// TestServeSendsTracesToTheCollector: with otel_endpoint, serve sends its
// spans over OTLP/HTTP: a request, the bank operation under it and the SQL
// under that; they are flushed when serve stops. Without otel_endpoint (the
// default) nothing is sent.
func TestServeSendsTracesToTheCollector(t *testing.T) {
	t.Parallel()
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	c := newCLI(t)

	run := func(args ...string) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		var out, errb syncBuffer
		done := make(chan int, 1)
		go func() {
			done <- ExecuteContext(ctx, append(append([]string{"serve", "--addr", "127.0.0.1:0", "--demo-seed=false"}, args...), c.base...), nil, &out, &errb)
		}()
		waitFor(t, func() bool { return strings.Contains(out.String(), "Meridian is running at") }, "serve to start")
		base := strings.Replace(strings.Fields(strings.SplitAfter(out.String(), "running at ")[1])[0], "localhost", "127.0.0.1", 1)
		res, err := http.Post(base+"/api/auth/login", "application/json", bytes.NewReader([]byte(`{"email":"nobody@example.test","password":"wrong-password"}`)))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		cancel()
		if code := <-done; code != 0 {
			t.Fatalf("serve exited %d: %s", code, errb.String())
		}
	}

	run() // no otel_endpoint: off
	col.mu.Lock()
	if len(col.spans) != 0 {
		t.Fatalf("without otel_endpoint, %d spans were sent", len(col.spans))
	}
	col.mu.Unlock()

	run("--otel-endpoint", srv.URL)
	col.mu.Lock()
	defer col.mu.Unlock()
	byName := map[string]*tracepb.Span{}
	for _, s := range col.spans {
		byName[s.Name] = s
	}
	req, op := byName["POST /api/auth/login"], byName["bank.Login"]
	if req == nil || op == nil {
		var names []string
		for n := range byName {
			names = append(names, n)
		}
		t.Fatalf("spans received: %v", names)
	}
	if !bytes.Equal(op.ParentSpanId, req.SpanId) || !bytes.Equal(op.TraceId, req.TraceId) {
		t.Fatal("bank.Login is not a child of the request's span")
	}
	sql := 0
	for _, s := range col.spans {
		if strings.HasPrefix(s.Name, "SQL ") && bytes.Equal(s.ParentSpanId, op.SpanId) {
			sql++
		}
	}
	if sql == 0 {
		t.Fatal("no SQL span under bank.Login")
	}
	if len(col.svc) == 0 || col.svc[0] != "meridian" {
		t.Fatalf("service.name %v", col.svc)
	}
}
