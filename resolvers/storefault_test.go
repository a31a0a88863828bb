package resolvers_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/acme/comments-gateway/internal/gqltest"
	"github.com/acme/comments-gateway/internal/testutil"
	"github.com/acme/comments-gateway/obs"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
	"github.com/acme/comments-gateway/store/dynamo"
	"github.com/acme/comments-gateway/store/dynamo/dynamotest"
	"github.com/acme/comments-gateway/store/table"
)

// faultTable is a real Table whose every call fails with err: the only way
// to make bbolt (and a live DynamoDB) return each error kind on demand.
type faultTable struct {
	table.Table
	err error
}

func (f faultTable) Get(context.Context, table.Key) (table.Item, error) { return nil, f.err }
func (f faultTable) BatchGet(context.Context, []table.Key) ([]table.Item, error) {
	return nil, f.err
}
func (f faultTable) Query(context.Context, table.Query) (table.QueryResult, error) {
	return table.QueryResult{}, f.err
}
func (f faultTable) Write(context.Context, []table.Op) error { return f.err }

// faultQueries touch every read path (dataloaders, page reads, languages,
// leaderboard) and every mutation.
var faultQueries = []string{
	`{ comment(id: "x") { id } }`,
	`{ product(id: "p1") { comments(first: 5) { totalCount nodes { id } } } }`,
	`{ product(id: "p1") { comments(ratings: [1, 5], first: 5) { nodes { id } } } }`,
	`{ product(id: "p1") { stats { total } } }`,
	`{ product(id: "p1") { languages { language } } }`,
	`{ topProducts(first: 3) { rank } }`,
	`mutation { createComment(input: {productId: "p1", language: "en", rating: 4, author: "A", title: "T", body: "B"}) { comment { id } } }`,
	`mutation { updateComment(input: {id: "x", rating: 2}) { comment { id } } }`,
	`mutation { deleteComment(input: {id: "x"}) { deletedCommentId } }`,
}

// mustServeHTTP serves the GraphQL handler over tbl on 127.0.0.1, behind
// the request-id middleware as in production.
func mustServeHTTP(tb testing.TB, tbl table.Table) string {
	tb.Helper()
	log := slog.New(slog.NewTextHandler(&testutil.SyncBuffer{}, nil))
	h := resolvers.NewHandler(resolvers.Config{Store: store.New(tbl), Logger: log, RequestTimeout: 20 * time.Second})
	srv := httptest.NewServer(obs.Middleware(log, h))
	tb.Cleanup(srv.Close)
	return srv.URL
}

// mustFailAsStoreError posts query and checks the documented answer to a
// store failure: HTTP 200 with a JSON body, one error with extensions.code
// want and the request's id, no storage detail.
func mustFailAsStoreError(t *testing.T, url, query, want string) {
	t.Helper()
	r, err := gqltest.New(url).Do(context.Background(), query, nil)
	switch {
	case r == nil:
		t.Fatalf("%s: no reply: %v", query, err)
	case len(r.Body) == 0:
		t.Fatalf("%s: empty reply (status %d)", query, r.Status)
	case err != nil:
		t.Fatalf("%s: reply is not JSON: %s", query, r.Body)
	}
	raw := r.Body
	if r.Status != http.StatusOK || len(r.Errors) != 1 {
		t.Fatalf("%s: status %d, want 200 with one error: %s", query, r.Status, raw)
	}
	e := r.Errors[0]
	if e.Code() != want {
		t.Errorf("%s: code %q, want %q: %s", query, e.Code(), want, raw)
	}
	if id := r.Header.Get(obs.Header); id == "" || e.Extensions["requestId"] != id {
		t.Errorf("%s: extensions.requestId %v, want the X-Request-Id %q", query, e.Extensions["requestId"], id)
	}
	MustNotLeak(t, e.Message)
	if strings.Contains(e.Message, "injected") {
		t.Errorf("%s: the store's message reached the client: %q", query, e.Message)
	}
}

// faultBackends open each backend's real table, empty: bbolt on a file,
// DynamoDB on DynamoDB Local (skipped without DYNAMODB_ENDPOINT).
var faultBackends = map[string]func(testing.TB) table.Table{
	"bolt": func(tb testing.TB) table.Table {
		tbl := bolttest.Open(tb)
		return tbl
	},
	"dynamodb": func(tb testing.TB) table.Table {
		client := dynamotest.MustClient(tb)
		name := fmt.Sprintf("faults-%d", time.Now().UnixNano())
		tbl := dynamo.New(client, name)
		if err := tbl.CreateTable(context.Background(), false); err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() {
			_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		})
		return tbl
	},
}

// TestEveryStoreErrorKindIsAnErrorWithARequestID (issue 11): whatever a
// table call fails with, every read and mutation answers over HTTP with
// UNAVAILABLE (the store was unavailable, or a write kept conflicting) or
// INTERNAL, each with the request's id, never an empty reply (a store error
// used to panic the error presenter).
func TestEveryStoreErrorKindIsAnErrorWithARequestID(t *testing.T) {
	kinds := []struct {
		err        error
		read, save string // the code a read, and a mutation, answers with
	}{
		{store.Errorf(store.EINTERNAL, "injected PRODUCT#x"), "INTERNAL", "INTERNAL"},
		{store.Errorf(store.EUNAVAILABLE, "the store is throttling; try again"), "UNAVAILABLE", "UNAVAILABLE"},
		{store.Errorf(store.ENOTFOUND, "injected PRODUCT#x"), "INTERNAL", "INTERNAL"},
		{store.Errorf(store.EINVALID, "injected PRODUCT#x"), "INTERNAL", "INTERNAL"},
		{store.Errorf(store.ECONFLICT, "injected PRODUCT#x"), "INTERNAL", "UNAVAILABLE"},
		{errors.New("injected plain error"), "INTERNAL", "INTERNAL"},
	}
	for name, open := range faultBackends {
		t.Run(name, func(t *testing.T) {
			tbl := open(t)
			for _, k := range kinds {
				url := mustServeHTTP(t, faultTable{Table: tbl, err: k.err})
				t.Run(store.ErrorCode(k.err), func(t *testing.T) {
					for _, q := range faultQueries {
						want := k.read
						if strings.HasPrefix(q, "mutation") && !strings.Contains(q, `id: "x"`) {
							want = k.save
						}
						mustFailAsStoreError(t, url, q, want)
					}
				})
			}
		})
	}
}

// TestRealStoreFailuresAreUnavailable: without fault injection, a DynamoDB
// table that does not exist, a DynamoDB endpoint nobody listens on, and a
// closed bbolt file (the server shutting down) fail every request with
// UNAVAILABLE and its request id.
func TestRealStoreFailuresAreUnavailable(t *testing.T) {
	t.Run("dynamodb missing table", func(t *testing.T) {
		url := mustServeHTTP(t, dynamo.New(dynamotest.MustClient(t), "no-such-table-issue-11"))
		for _, q := range faultQueries {
			mustFailAsStoreError(t, url, q, "UNAVAILABLE")
		}
	})
	t.Run("dynamodb unreachable", func(t *testing.T) {
		ln := httptest.NewServer(http.NotFoundHandler()) // a port that then refuses
		addr := ln.URL
		ln.Close()
		client := dynamodb.New(dynamodb.Options{
			Region:           "us-east-1",
			BaseEndpoint:     aws.String(addr),
			Credentials:      credentials.NewStaticCredentialsProvider("local", "local", ""),
			RetryMaxAttempts: 1,
		})
		url := mustServeHTTP(t, dynamo.New(client, "comments"))
		for _, q := range faultQueries {
			mustFailAsStoreError(t, url, q, "UNAVAILABLE")
		}
	})
	t.Run("bolt closed", func(t *testing.T) {
		tbl := bolttest.Open(t)
		tbl.Close()
		url := mustServeHTTP(t, tbl)
		for _, q := range faultQueries {
			mustFailAsStoreError(t, url, q, "UNAVAILABLE")
		}
	})
}
