package tracing

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func TestEndpointURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://collector:4318":              "http://collector:4318/v1/traces",
		"http://collector:4318/":             "http://collector:4318/v1/traces",
		"https://otel.example.com/v1/traces": "https://otel.example.com/v1/traces",
		"https://otel.example.com/custom":    "https://otel.example.com/custom",
	} {
		if got, err := EndpointURL(in); err != nil || got != want {
			t.Errorf("EndpointURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"collector:4318", "ftp://collector", "http://", ""} {
		if _, err := EndpointURL(bad); err == nil {
			t.Errorf("EndpointURL(%q) accepted", bad)
		}
	}
}

// TestOffByDefault: without an endpoint nothing is set up; with an
// exporter, spans reach it.
func TestOffByDefault(t *testing.T) {
	off, err := Setup(Options{})
	if err != nil || off.On() || off.Tracer() != nil || off.Provider() != nil || off.Shutdown(context.Background()) != nil {
		t.Fatalf("off: %+v %v", off, err)
	}
	exp := tracetest.NewInMemoryExporter()
	on, err := Setup(Options{Exporter: exp, SampleRatio: 1, Version: "test"})
	if err != nil || !on.On() {
		t.Fatalf("on: %v", err)
	}
	_, span := on.Tracer().Start(context.Background(), "GET /api/config")
	span.End()
	spans := exp.GetSpans() // (the exporter forgets them at Shutdown)
	if len(spans) != 1 || spans[0].Name != "GET /api/config" {
		t.Fatalf("spans %+v", spans)
	}
	var service string
	for _, a := range spans[0].Resource.Attributes() {
		if a.Key == "service.name" {
			service = a.Value.AsString()
		}
	}
	if service != "meridian" {
		t.Fatalf("service.name %q", service)
	}
	if err := on.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}
