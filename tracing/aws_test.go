package tracing_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme/comments-gateway/internal/testutil"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/dynamo"
	"github.com/acme/comments-gateway/tracing"
)

// A DynamoDB call through a Table opened with AWSCallSpans (as main opens
// it) is a client span, a child of the span in its context.
func TestDynamoDBCallSpan(t *testing.T) {
	stub := testutil.MustDynamoDBStub(t)
	rec, tp := recorder()
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev) })

	tbl, err := dynamo.Open(context.Background(), "comments", tracing.AWSCallSpans)
	if err != nil {
		t.Fatal(err)
	}
	ctx, parent := tp.Tracer("test").Start(context.Background(), "parent")
	if _, err := tbl.Get(ctx, store.StatsKey("p1", "")); err != nil {
		t.Fatalf("Get: %v", err)
	}
	parent.End()
	if targets := stub.Targets(); len(targets) != 1 || targets[0] != "DynamoDB_20120810.GetItem" {
		t.Errorf("stub saw %q", targets)
	}
	m := byName(rec.Ended())
	s, ok := m["DynamoDB.GetItem"]
	if !ok {
		t.Fatalf("no DynamoDB span in %v", m)
	}
	if s.SpanKind() != trace.SpanKindClient || s.Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Errorf("kind %v parent %v, want a client span under parent", s.SpanKind(), s.Parent().SpanID())
	}
	attrs := map[string]string{}
	for _, a := range s.Attributes() {
		attrs[string(a.Key)] = a.Value.String()
	}
	if attrs["rpc.method"] != "GetItem" || attrs["rpc.service"] != "DynamoDB" || attrs["aws.request_id"] != "REQ1" {
		t.Errorf("attributes %v", attrs)
	}
}
