package tracing_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme/comments-gateway/internal/gqltest"
	"github.com/acme/comments-gateway/internal/testutil"
	"github.com/acme/comments-gateway/obs"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
	"github.com/acme/comments-gateway/tracing"
)

// server is the /graphql handler as cmdServe mounts it, with tp nil when
// tracing is off.
func server(t *testing.T, tp trace.TracerProvider) (*httptest.Server, *testutil.SyncBuffer) {
	t.Helper()
	tbl := bolttest.Open(t)
	logs := &testutil.SyncBuffer{}
	log := slog.New(obs.NewHandler(slog.NewTextHandler(logs, nil)))
	h := resolvers.NewHandler(resolvers.Config{Store: store.New(tbl), Logger: log, TracerProvider: tp})
	srv := httptest.NewServer(obs.Middleware(log, h)) // NewHandler makes the server span
	t.Cleanup(srv.Close)
	return srv, logs
}

const query = `query Prod { product(id: "p1") { id stats { total } comments(first: 2) { edges { node { id } } } } }`

// post sends query to the server at url with the header pairs hdr; it must
// succeed.
func post(t *testing.T, url string, hdr ...string) {
	t.Helper()
	gqltest.New(url+"/graphql").MustQuery(t, query, nil, nil, gqltest.Headers(hdr...))
}

func recorder() (*tracetest.SpanRecorder, *sdktrace.TracerProvider) {
	rec := tracetest.NewSpanRecorder()
	return rec, sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
}

func byName(spans []sdktrace.ReadOnlySpan) map[string]sdktrace.ReadOnlySpan {
	m := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		m[s.Name()] = s
	}
	return m
}

// isDescendant reports whether s descends from anc among spans.
func isDescendant(s, anc sdktrace.ReadOnlySpan, spans []sdktrace.ReadOnlySpan) bool {
	byID := map[trace.SpanID]sdktrace.ReadOnlySpan{}
	for _, x := range spans {
		byID[x.SpanContext().SpanID()] = x
	}
	for p := s.Parent(); p.IsValid(); {
		if p.SpanID() == anc.SpanContext().SpanID() {
			return true
		}
		x, ok := byID[p.SpanID()]
		if !ok {
			return false
		}
		p = x.Parent()
	}
	return false
}

func TestRequestSpans(t *testing.T) {
	rec, tp := recorder()
	srv, logs := server(t, tp)
	post(t, srv.URL)
	spans := rec.Ended()
	m := byName(spans)
	var names []string
	for _, s := range spans {
		names = append(names, s.Name())
	}
	httpSpan, ok := m["POST /graphql"]
	if !ok || httpSpan.SpanKind() != trace.SpanKindServer {
		t.Fatalf("no HTTP server span in %q", names)
	}
	if httpSpan.Parent().IsValid() {
		t.Errorf("HTTP span has a parent without traceparent")
	}
	var sawAttr bool
	for _, a := range httpSpan.Attributes() {
		if a.Key == "http.request.method" || a.Key == "http.method" {
			sawAttr = true
		}
	}
	if !sawAttr {
		t.Errorf("HTTP span lacks the method attribute: %v", httpSpan.Attributes())
	}
	op, ok := m["query Prod"]
	if !ok {
		t.Fatalf("no operation span in %q", names)
	}
	if !isDescendant(op, httpSpan, spans) {
		t.Errorf("operation span not under the HTTP span")
	}
	for _, f := range []string{"Query.product", "Product.stats", "Product.comments"} {
		s, ok := m[f]
		if !ok {
			t.Errorf("no %s span in %q", f, names)
			continue
		}
		if !isDescendant(s, op, spans) || s.SpanContext().TraceID() != httpSpan.SpanContext().TraceID() {
			t.Errorf("%s not under the operation span", f)
		}
	}
	if s, ok := m["Query.product"]; ok {
		var path string
		for _, a := range s.Attributes() {
			if a.Key == "graphql.field.path" {
				path = a.Value.AsString()
			}
		}
		if path != "product" {
			t.Errorf("Query.product path %q", path)
		}
	}
	// Plain struct fields (Product.id) have no span.
	if _, ok := m["Product.id"]; ok {
		t.Errorf("span for a non-resolver field")
	}
	if want := "traceId=" + httpSpan.SpanContext().TraceID().String(); !strings.Contains(logs.String(), want) {
		t.Errorf("request log lacks %s:\n%s", want, logs.String())
	}
}

func TestTraceparentContinued(t *testing.T) {
	rec, tp := recorder()
	srv, _ := server(t, tp)
	const tid, sid = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	post(t, srv.URL, "traceparent", "00-"+tid+"-"+sid+"-01")
	m := byName(rec.Ended())
	s, ok := m["POST /graphql"]
	if !ok {
		t.Fatal("no HTTP span")
	}
	if got := s.SpanContext().TraceID().String(); got != tid {
		t.Errorf("trace id %s, want %s", got, tid)
	}
	if got := s.Parent().SpanID().String(); got != sid || !s.Parent().IsRemote() {
		t.Errorf("parent %s (remote %v), want remote %s", got, s.Parent().IsRemote(), sid)
	}
}

func TestOffExportsNothing(t *testing.T) {
	rec, tp := recorder()
	// Even a recording global provider gets no span from the server when
	// tracing is off.
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev) })
	srv, logs := server(t, nil)
	post(t, srv.URL, "traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	if n := len(rec.Ended()) + len(rec.Started()); n != 0 {
		t.Errorf("%d spans with tracing off", n)
	}
	if strings.Contains(logs.String(), "traceId") {
		t.Errorf("traceId logged with tracing off")
	}
}

func TestSetup(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	tp, shutdown, err := tracing.Setup(context.Background(), "", getenv)
	if err != nil || tp != nil || shutdown == nil {
		t.Fatalf("off: %v %v", tp, err)
	}
	if _, _, err := tracing.Setup(context.Background(), "localhost:4318", getenv); err == nil {
		t.Errorf("endpoint without a scheme accepted")
	}
	if !tracing.Enabled("", func(k string) string {
		if k == tracing.EnvTracesEndpoint {
			return "http://c:4318/v1/traces"
		}
		return ""
	}) {
		t.Errorf("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT does not enable tracing")
	}
	prev, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	t.Cleanup(func() { otel.SetTracerProvider(prev); otel.SetTextMapPropagator(prevProp) })
	// A collector that accepts the export.
	var mu sync.Mutex
	var paths []string
	col := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer col.Close()
	tp, shutdown, err = tracing.Setup(context.Background(), col.URL, getenv)
	if err != nil || tp == nil {
		t.Fatalf("on: %v %v", tp, err)
	}
	_, span := tp.Tracer("t").Start(context.Background(), "x")
	span.End()
	if err := shutdown(context.Background()); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) != 1 || paths[0] != "/v1/traces" {
		t.Errorf("exports to %q, want one to /v1/traces", paths)
	}
}
