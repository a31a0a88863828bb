package storespec

import (
	"context"
	"slices"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/acme/comments-gateway/internal/testutil"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// TestOpenDynamoTracesEveryCall: the DynamoDB table every command opens
// (openDynamo) gives each DynamoDB call a client span: main installs the
// tracing middleware; store/dynamo knows nothing of tracing.
func TestOpenDynamoTracesEveryCall(t *testing.T) {
	stub := testutil.MustDynamoDBStub(t)
	rec := tracetest.NewSpanRecorder()
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
	t.Cleanup(func() { otel.SetTracerProvider(prev) })

	tbl, err := OpenDynamo(context.Background(), "comments")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Get(context.Background(), store.StatsKey("p1", "")); err != nil {
		t.Fatalf("Get: %v", err)
	}
	if _, err := tbl.Query(context.Background(), table.Query{HashValue: "PRODUCT#p1", Limit: 1}); err != nil {
		t.Fatalf("Query: %v", err)
	}
	var names []string
	for _, s := range rec.Ended() {
		names = append(names, s.Name())
	}
	if want := []string{"DynamoDB.GetItem", "DynamoDB.Query"}; !slices.Equal(names, want) || len(stub.Targets()) != 2 {
		t.Errorf("spans %v for the calls %v, want %v", names, stub.Targets(), want)
	}
}
