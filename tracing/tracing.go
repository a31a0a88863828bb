package tracing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme/comments-gateway/obs"
)

// ServiceName is the default service.name (OTEL_SERVICE_NAME overrides it).
const ServiceName = "comments-gateway"

// ScopeName names the instrumentation scope of the gateway's own spans.
const ScopeName = "github.com/acme/comments-gateway/tracing"

// Standard OpenTelemetry variables that turn tracing on.
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvServiceName    = "OTEL_SERVICE_NAME"
)

// Propagator is the W3C trace context (and baggage) propagator the gateway
// uses for incoming requests.
var Propagator propagation.TextMapPropagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// Enabled reports whether tracing is configured: endpoint (the
// -otlp-endpoint flag) is set, or one of the standard OTLP endpoint
// variables is.
func Enabled(endpoint string, getenv func(string) string) bool {
	return endpoint != "" || getenv(EnvEndpoint) != "" || getenv(EnvTracesEndpoint) != ""
}

// Setup returns a tracer provider exporting spans over OTLP/HTTP in batches,
// and installs it and the W3C propagator as the globals (for the AWS SDK
// middleware), when Enabled(endpoint, getenv). Otherwise it returns a nil
// provider and changes nothing. shutdown flushes the pending spans and stops
// the exporter; it is never nil.
//
// endpoint, when set, is a base URL like OTEL_EXPORTER_OTLP_ENDPOINT
// (http://collector:4318; /v1/traces is added when the URL has no path) and
// wins over the variables; the other OTEL_EXPORTER_OTLP_* variables
// (headers, timeout, compression, certificates) and OTEL_TRACES_SAMPLER are
// honoured by the SDK.
func Setup(ctx context.Context, endpoint string, getenv func(string) string) (tp trace.TracerProvider, shutdown func(context.Context) error, err error) {
	shutdown = func(context.Context) error { return nil }
	if !Enabled(endpoint, getenv) {
		return nil, shutdown, nil
	}
	var opts []otlptracehttp.Option
	if endpoint != "" {
		u, err := url.Parse(endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, shutdown, fmt.Errorf("-otlp-endpoint %q: want an http:// or https:// URL such as http://localhost:4318", endpoint)
		}
		if u.Path == "" || u.Path == "/" {
			u.Path = "/v1/traces"
		}
		opts = append(opts, otlptracehttp.WithEndpointURL(u.String()))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, shutdown, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	name := getenv(EnvServiceName)
	if name == "" {
		name = ServiceName
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(attribute.String("service.name", name)))
	if err != nil {
		return nil, shutdown, fmt.Errorf("trace resource: %w", err)
	}
	p := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(p)
	otel.SetTextMapPropagator(Propagator)
	return p, func(ctx context.Context) error {
		return errors.Join(p.ForceFlush(ctx), p.Shutdown(ctx))
	}, nil
}

// HTTP wraps h, a GraphQL endpoint, so that each request has a server span
// (otelhttp, named after the method and path) continuing the trace of an
// incoming W3C traceparent header, and puts the trace id on the request's
// log line (obs). tp nil returns h itself.
func HTTP(h http.Handler, tp trace.TracerProvider) http.Handler {
	if tp == nil {
		return h
	}
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sc := trace.SpanContextFromContext(r.Context()); sc.IsValid() {
			obs.Set(r.Context(), slog.String("traceId", sc.TraceID().String()))
		}
		h.ServeHTTP(w, r)
	})
	return otelhttp.NewHandler(inner, "graphql",
		otelhttp.WithTracerProvider(tp),
		otelhttp.WithPropagators(Propagator),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method + " " + r.URL.Path }),
	)
}
