package server

import (
	"go.opentelemetry.io/otel/codes"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/google/uuid"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"meridian/pkg/auth"
	"meridian/pkg/bank"
	"meridian/pkg/db"
	"meridian/pkg/testdb"
	"meridian/pkg/tracing"
)

// tracedEnv is a server whose requests, bank operations and SQL record
// spans into an in-process recorder: nothing leaves the test.
func tracedEnv(t *testing.T) (*testEnv, *tracetest.SpanRecorder) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { tp.Shutdown(ctxBG) })
	tracer := tp.Tracer(tracing.Name)
	super := testdb.URL(t)
	url := testdb.AppURL(super)
	conn, err := db.Open(ctxBG, url, db.Traced(tracer))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	tokens, _ := auth.NewTokens(testSecret, time.Hour)
	svc := bank.New(conn, tokens, bank.Settings{RequestsTTL: time.Hour, LookupPerMinute: 1000})
	e := &testEnv{t: t, url: url, superURL: super, svc: svc}
	e.srv = New(svc, NewHub(svc, quiet), Options{Logger: quiet, Version: "test", Tracer: tracer})
	return e, rec
}

// spanNamed is the last ended span with that name.
func spanNamed(spans []sdktrace.ReadOnlySpan, name string) sdktrace.ReadOnlySpan {
	for i := len(spans) - 1; i >= 0; i-- {
		if spans[i].Name() == name {
			return spans[i]
		}
	}
	return nil
}

func children(spans []sdktrace.ReadOnlySpan, parent sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s.Parent().SpanID() == parent.SpanContext().SpanID() && s.Parent().TraceID() == parent.SpanContext().TraceID() {
			out = append(out, s)
		}
	}
	return out
}

func attr(s sdktrace.ReadOnlySpan, key string) string {
	for _, a := range s.Attributes() {
		if string(a.Key) == key {
			return a.Value.Emit()
		}
	}
	return ""
}

// TestTracesRequestOperationSQL: a request is a server span named by its
// route, with the bank operation as its child and that operation's SQL
// statements and commit as the operation's children; a caller's
// traceparent is continued; no statement argument (an email, an amount) is
// recorded.
func TestTracesRequestOperationSQL(t *testing.T) {
	t.Parallel()
	e, rec := tracedEnv(t)
	alice := e.customer("Alice Tracer")
	bob := e.customer("Bob Tracer")
	_, from := e.account(alice, "100.00")
	_, to := e.account(bob, "0")

	callerTrace := "4bf92f3577b34da6a3ce929d0e0e4736"
	r := e.do("POST", "/api/user/money-transfer", alice.Token, map[string]any{"account_id": from, "to_account_id": to, "amount": "12.34", "description": "traced"},
		"Idempotency-Key", uuid.NewString(), "traceparent", "00-"+callerTrace+"-00f067aa0ba902b7-01")
	e.want(r, 201, "transfer")
	spans := rec.Ended()

	req := spanNamed(spans, "POST /api/user/money-transfer")
	if req == nil {
		t.Fatalf("no server span for the transfer; spans: %v", names(spans))
	}
	if req.SpanKind() != trace.SpanKindServer || attr(req, "http.response.status_code") != "201" || attr(req, "http.route") != "/api/user/money-transfer" {
		t.Errorf("server span: kind %v, attributes %v", req.SpanKind(), req.Attributes())
	}
	if req.SpanContext().TraceID().String() != callerTrace || req.Parent().SpanID().String() != "00f067aa0ba902b7" {
		t.Errorf("the caller's traceparent was not continued: trace %s, parent %s", req.SpanContext().TraceID(), req.Parent().SpanID())
	}
	ops := children(spans, req)
	op := slices.IndexFunc(ops, func(s sdktrace.ReadOnlySpan) bool { return s.Name() == "bank.Transfer" })
	if op < 0 {
		t.Fatalf("no bank.Transfer span under the request: %v", names(ops))
	}
	// The transfer is posted by a worker in a batch with others
	// (pkg/bank/postings.go): its statements are children of the batch's
	// span, which links to the bank.Transfer span of each caller.
	sql := children(spans, ops[op])
	for _, s := range spans {
		if s.Name() == "bank.posting_batch" && slices.ContainsFunc(s.Links(), func(l sdktrace.Link) bool {
			return l.SpanContext.SpanID() == ops[op].SpanContext().SpanID()
		}) {
			if s.SpanContext().TraceID() == ops[op].SpanContext().TraceID() {
				t.Errorf("the batch's span is in its caller's trace, not its own linked one")
			}
			sql = append(sql, children(spans, s)...)
		}
	}
	if len(sql) == 0 {
		t.Fatalf("no SQL span under bank.Transfer nor under a bank.posting_batch linked to it: %v", names(spans))
	}
	var statements, commits int
	for _, s := range sql {
		switch {
		case s.Name() == "SQL COMMIT":
			commits++
		case strings.HasPrefix(s.Name(), "SQL "):
			statements++
			if attr(s, "db.system.name") != "postgresql" || attr(s, "db.query.text") == "" {
				t.Errorf("SQL span %s: %v", s.Name(), s.Attributes())
			}
		}
	}
	if statements == 0 {
		t.Errorf("no statement span under bank.Transfer: %v", names(sql))
	}

	// A read: GET accounts, its operation and its SELECT.
	e.want(e.do("GET", "/api/user/accounts", alice.Token, nil), 200, "accounts")
	spans = rec.Ended()
	get := spanNamed(spans, "GET /api/user/accounts")
	if get == nil {
		t.Fatalf("no span for GET /api/user/accounts: %v", names(spans))
	}
	// (The sign-in check's own statement may come before the operation.)
	list := children(spans, get)
	i := slices.IndexFunc(list, func(s sdktrace.ReadOnlySpan) bool { return s.Name() == "bank.ListAccounts" })
	if i < 0 || len(children(spans, list[i])) == 0 {
		t.Fatalf("GET /api/user/accounts: children %v, none an operation with SQL under it", names(list))
	}

	// Arguments never reach a span: a sign-in's email, the transfer's amount.
	e.do("POST", "/api/auth/login", "", map[string]any{"email": "nobody-here@example.test", "password": "wrong-password"})
	for _, s := range rec.Ended() {
		for _, a := range s.Attributes() {
			if v := a.Value.Emit(); strings.Contains(v, "nobody-here@example.test") || strings.Contains(v, "12.34") {
				t.Errorf("span %s records an argument: %s=%s", s.Name(), a.Key, v)
			}
		}
	}
	// A refused answer's span records its status (and is no error: only a
	// 5xx is).
	r = e.do("GET", "/api/user/accounts/abc", alice.Token, nil)
	sp := spanNamed(rec.Ended(), "GET /api/user/accounts/:userId")
	if r.Status < 400 || sp == nil || attr(sp, "http.response.status_code") != strconv.Itoa(r.Status) || sp.Status().Code == codes.Error {
		t.Errorf("the refused request's span: answer %d, span %v", r.Status, sp)
	}
}

// TestUntracedWithoutTracer: with no tracer (the default) the pool is not
// wrapped and no span is made.
func TestUntracedWithoutTracer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if e.srv.tracer != nil {
		t.Fatal("a server without Options.Tracer traces")
	}
	r := e.do("GET", "/api/config", "", nil, "traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	e.want(r, 200, "config")
}

// TestTracedOperationsCoverRoutes: every route but the probes, documents,
// web app and WebSocket names its bank operation, and each name is a method
// of bank.Service.
func TestTracedOperationsCoverRoutes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	svc := reflect.TypeOf(&bank.Service{})
	routes := e.srv.app.GetRoutes(true)
	for _, r := range routes {
		key := r.Method + " " + r.Path
		if r.Method == "HEAD" || r.Path == apiFallback || slices.Contains(untracedRoutes, key) {
			continue
		}
		name, ok := operations[key]
		if !ok {
			t.Errorf("route %s has no entry in operations (server/tracing.go)", key)
			continue
		}
		if _, ok := svc.MethodByName(name); !ok {
			t.Errorf("operations[%q] = %q: bank.Service has no such method", key, name)
		}
	}
	for key := range operations {
		method, path, _ := strings.Cut(key, " ")
		if !slices.ContainsFunc(routes, func(r fiber.Route) bool { return r.Method == method && r.Path == path }) {
			t.Errorf("operations names %s, which is not a route", key)
		}
	}
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name())
	}
	return out
}
