package tracing_test

import (
	"context"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/dynamo"
)

// A DynamoDB call through a Table from dynamo.Open is a client span, a child
// of the span in its context.
func TestDynamoDBCallSpan(t *testing.T) {
	var target string
	stub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target = r.Header.Get("X-Amz-Target")
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Header().Set("X-Amzn-Requestid", "REQ1")
		w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(`{}`))), 10))
		io.WriteString(w, `{}`)
	}))
	defer stub.Close()
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL_DYNAMODB":   stub.URL,
		"AWS_REGION":                  "eu-west-1",
		"AWS_ACCESS_KEY_ID":           "test",
		"AWS_SECRET_ACCESS_KEY":       "test",
		"AWS_SESSION_TOKEN":           "",
		"AWS_PROFILE":                 "",
		"AWS_CONFIG_FILE":             filepath.Join(dir, "config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_MAX_ATTEMPTS":            "1",
	} {
		t.Setenv(k, v)
	}
	rec, tp := recorder()
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev) })

	tbl, err := dynamo.Open(context.Background(), "comments")
	if err != nil {
		t.Fatal(err)
	}
	ctx, parent := tp.Tracer("test").Start(context.Background(), "parent")
	if _, err := tbl.Get(ctx, store.StatsKey("p1", "")); err != nil {
		t.Fatalf("Get: %v", err)
	}
	parent.End()
	if target != "DynamoDB_20120810.GetItem" {
		t.Errorf("stub saw %q", target)
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
		attrs[string(a.Key)] = a.Value.Emit()
	}
	if attrs["rpc.method"] != "GetItem" || attrs["rpc.service"] != "DynamoDB" || attrs["aws.request_id"] != "REQ1" {
		t.Errorf("attributes %v", attrs)
	}
}
