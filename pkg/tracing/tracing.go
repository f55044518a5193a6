// Package tracing sets up OpenTelemetry traces for serve: a span for each
// HTTP request (server/tracing.go), inside it one for the bank operation it
// calls, and inside that one for each SQL statement and commit (pkg/db,
// when the pool is opened with db.Traced). They go to an OTLP/HTTP
// collector (otel_endpoint: Jaeger, Tempo, the OpenTelemetry Collector).
//
// Off by default: with no endpoint, Setup installs nothing, the
// instrumentation is never wired in, and a request costs nothing more.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Name is the instrumentation scope of Meridian's spans.
const Name = "meridian"

// Options configure Setup.
type Options struct {
	// Endpoint is the collector's OTLP/HTTP base URL
	// (http://collector:4318; spans go to its /v1/traces). Empty: off.
	Endpoint string
	// SampleRatio is the share of new traces recorded (0 to 1); a request
	// that arrives with a sampled traceparent is always recorded.
	SampleRatio float64
	// Version and Instance label the spans (service.version,
	// service.instance.id).
	Version, Instance string
	// Exporter, when set, replaces the OTLP exporter (tests).
	Exporter sdktrace.SpanExporter
	// Batch, with Exporter, batches spans as the OTLP exporter does;
	// otherwise each span is exported as it ends.
	Batch bool
}

// Tracing is a configured tracer provider, or nothing (off).
type Tracing struct {
	provider *sdktrace.TracerProvider // nil when off
}

// Setup builds the tracer provider for o and makes it the process's
// (otel.SetTracerProvider, W3C trace context propagation). With no endpoint
// and no exporter it returns a Tracing that is off.
func Setup(o Options) (*Tracing, error) {
	exp := o.Exporter
	if exp == nil && o.Endpoint == "" {
		return &Tracing{}, nil
	}
	if exp == nil {
		u, err := EndpointURL(o.Endpoint)
		if err != nil {
			return nil, err
		}
		if exp, err = otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(u)); err != nil {
			return nil, fmt.Errorf("tracing: %w", err)
		}
	}
	host, _ := os.Hostname()
	instance := o.Instance
	if instance == "" {
		instance = host
	}
	res := resource.NewSchemaless(
		attribute.String("service.name", "meridian"),
		attribute.String("service.version", o.Version),
		attribute.String("service.instance.id", instance),
		attribute.String("host.name", host),
	)
	var proc sdktrace.SpanProcessor
	if o.Exporter == nil || o.Batch {
		proc = sdktrace.NewBatchSpanProcessor(exp, sdktrace.WithBatchTimeout(2*time.Second))
	} else {
		proc = sdktrace.NewSimpleSpanProcessor(exp)
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithResource(res),
		sdktrace.WithSpanProcessor(proc),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(o.SampleRatio))),
	)
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	return &Tracing{provider: tp}, nil
}

// On reports whether traces are recorded.
func (t *Tracing) On() bool { return t != nil && t.provider != nil }

// Provider is the tracer provider (nil when off).
func (t *Tracing) Provider() trace.TracerProvider {
	if !t.On() {
		return nil
	}
	return t.provider
}

// Tracer is Meridian's tracer (nil when off).
func (t *Tracing) Tracer() trace.Tracer {
	if !t.On() {
		return nil
	}
	return t.provider.Tracer(Name)
}

// Shutdown sends the spans still buffered and stops the exporter.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if !t.On() {
		return nil
	}
	return t.provider.Shutdown(ctx)
}

// EndpointURL is the URL spans are posted to for an otel_endpoint: the
// endpoint's path, or /v1/traces (OTLP/HTTP's) when it has none.
func EndpointURL(endpoint string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(endpoint))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errors.New("tracing: otel_endpoint must be an http(s) URL like http://collector:4318")
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	return u.String(), nil
}
