package bank

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"meridian/pkg/tracing"
)

// batchContext is the context a batch of postings runs in (postings.go). With tracing on
// (pkg/tracing), it holds a span "bank.posting_batch" linked to the span of
// each request whose posting the batch carries: one statement answers many
// requests, so each request's trace leads, by its link, to the batch and its
// SQL. Off, or with no traced caller: context.Background().
func batchContext(batch []*queuedPosting) (context.Context, func()) {
	var links []trace.Link
	var tp trace.TracerProvider
	for _, t := range batch {
		if span := trace.SpanFromContext(t.ctx); span.SpanContext().IsValid() {
			links = append(links, trace.Link{SpanContext: span.SpanContext()})
			tp = span.TracerProvider() // the callers' tracing
		}
	}
	if len(links) == 0 {
		return context.Background(), func() {}
	}
	ctx, span := tp.Tracer(tracing.Name).Start(context.Background(), "bank.posting_batch", trace.WithLinks(links...),
		trace.WithAttributes(attribute.Int("meridian.posting_batch.size", len(batch))))
	return ctx, func() { span.End() }
}
