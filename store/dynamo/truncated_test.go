package dynamo

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/acme/comments-gateway/store/table"
)

// TestTruncatedReplyRetriedOnReadsOnly: a reply cut short (HTTP 200, the
// connection closed mid-body, as DynamoDB Local does under load) is
// retried by a read, which then succeeds, and not by a write, which fails
// EUNAVAILABLE (its first attempt may have committed), never EINTERNAL.
func TestTruncatedReplyRetriedOnReadsOnly(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if calls.Add(1) == 1 || strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".PutItem") {
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: 100\r\n\r\n{\"Count\":0,")
			_ = buf.Flush()
			_ = conn.Close()
			return
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_, _ = io.WriteString(w, `{"Count":0,"Items":[],"ScannedCount":0}`)
	}))
	defer srv.Close()
	client := dynamodb.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
		Retryer:     NewRetryer,
	}, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	tbl := New(client, "t")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	q := table.Query{HashValue: "P", Limit: 1}
	if _, err := tbl.Query(ctx, q); err != nil || calls.Load() != 2 {
		t.Fatalf("query after a truncated reply: %v after %d attempts, want success on the 2nd", err, calls.Load())
	}
	calls.Store(10)
	err := tbl.Write(ctx, []table.Op{{Kind: table.OpPut, Key: table.Key{PK: "P", SK: "S"},
		Item: table.Item{table.AttrPK: table.S("P"), table.AttrSK: table.S("S")}}})
	if got := table.ErrorCode(err); got != table.EUNAVAILABLE || calls.Load() != 11 {
		t.Errorf("write with a truncated reply: %v (%s) after %d attempts, want EUNAVAILABLE after 1", err, got, calls.Load()-10)
	}
}
