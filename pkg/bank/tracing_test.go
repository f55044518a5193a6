package bank

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// TestBatchContextLinksItsCallers: one statement answers many requests, so
// a batch's span links every traced caller's span, and its SQL goes under
// it; with no traced caller (tracing off) nothing is recorded.
func TestBatchContextLinksItsCallers(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(context.Background())
	ctxA, a := tp.Tracer("test").Start(context.Background(), "POST /api/user/money-transfer")
	ctxB, b := tp.Tracer("test").Start(context.Background(), "POST /api/user/money-transfer")
	batch := []*queuedPosting{{ctx: ctxA}, {ctx: context.Background()}, {ctx: ctxB}}

	ctx, end := batchContext(batch)
	if !trace.SpanContextFromContext(ctx).IsValid() {
		t.Fatal("the batch's context holds no span")
	}
	end()
	a.End()
	b.End()
	var span sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == "bank.posting_batch" {
			span = s
		}
	}
	if span == nil {
		t.Fatal("no bank.posting_batch span")
	}
	links := span.Links()
	if len(links) != 2 || links[0].SpanContext.SpanID() != a.SpanContext().SpanID() || links[1].SpanContext.SpanID() != b.SpanContext().SpanID() {
		t.Fatalf("links %+v, want the two traced callers", links)
	}
	if span.Parent().IsValid() {
		t.Fatal("the batch's span belongs to no caller's trace: it is a root, linked to them")
	}

	untraced, end := batchContext([]*queuedPosting{{ctx: context.Background()}})
	end()
	if trace.SpanContextFromContext(untraced).IsValid() {
		t.Fatal("tracing off, yet the batch has a span")
	}
}
