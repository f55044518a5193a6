package bank

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"meridian/pkg/tracing"
)

// batchContext is the context a batch of transfers runs in. With tracing on
// (pkg/tracing), it holds a span "bank.transfer_batch" linked to the span of
// each request whose transfer the batch carries: one statement answers many
// requests, so each request's trace leads, by its link, to the batch and its
// SQL. Off, or with no traced caller: context.Background().
func batchContext(batch []*queuedTransfer) (context.Context, func()) {
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
	ctx, span := tp.Tracer(tracing.Name).Start(context.Background(), "bank.transfer_batch", trace.WithLinks(links...),
		trace.WithAttributes(attribute.Int("meridian.transfer_batch.size", len(batch))))
	return ctx, func() { span.End() }
}
