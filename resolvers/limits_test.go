package resolvers_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/internal/gqltest"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// TestLimitsRefuseBeforeAnyRead sends oversized operations over HTTP: each
// gets a 4xx with a coded error, and the store is not touched.
func TestLimitsRefuseBeforeAnyRead(t *testing.T) {
	tbl := MustOpenLoaded(t, genComments())
	spy := newSpy(tbl)
	h := resolvers.NewHandler(resolvers.Config{Store: store.New(spy), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv := httptest.NewServer(h)
	defer srv.Close()

	page := `comments(first: 100) { edges { cursor node { id rating author title body createdAt } } }`
	aliases := func(n int) string {
		var b strings.Builder
		b.WriteString("{ product(id: \"big\") {")
		for i := range n {
			fmt.Fprintf(&b, " c%d: %s", i, page)
		}
		b.WriteString(" } }")
		return b.String()
	}
	deep := "{ product(id: \"big\") { comments { nodes { product { comments { nodes { product { comments { nodes { product { comments { nodes { id } } } } } } } } } } } } }"
	tests := []struct {
		name   string
		body   string
		status int
		code   string
	}{
		{"400 aliases of comments(first: 100)", aliases(400), 422, "ALIAS_LIMIT_EXCEEDED"},
		{"20 pages of 100", aliases(20), 422, "COMPLEXITY_LIMIT_EXCEEDED"},
		{"topProducts(first: 100) with deep children", `{ topProducts(first: 100) { product { a: comments(first: 100) { nodes { id } } } } }`, 422, "COMPLEXITY_LIMIT_EXCEEDED"},
		{"nested 13 levels", deep, 422, "DEPTH_LIMIT_EXCEEDED"},
		{"too many tokens", "{ " + strings.Repeat("__typename ", 20_000) + "}", 422, "GRAPHQL_PARSE_FAILED"},
		{"9,990 fields", "{ " + strings.Repeat("__typename ", 9_990) + "}", 422, "SELECTION_LIMIT_EXCEEDED"},
		{"2^26 fields through fragments", gqltest.ExponentialFragments(27), 422, "SELECTION_LIMIT_EXCEEDED"},
		{"_entities with 101 representations", `{ _entities(representations: [` + strings.Repeat(`{__typename: "Product", id: "p1"} `, 101) + `]) { __typename } }`, 422, "ENTITY_LIMIT_EXCEEDED"},
		{"an input object given as a number", `mutation { createComment(input: 5) { comment { id } } }`, 422, "GRAPHQL_VALIDATION_FAILED"},
		{"fragment cycle", `{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }`, 422, "GRAPHQL_VALIDATION_FAILED"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := spy.TotalCalls()
			r := gqltest.New(srv.URL).MustDo(t, tc.body, nil)
			if r.Status != tc.status || r.Code() != tc.code {
				t.Errorf("status %d, errors %+v; want %d %s", r.Status, r.Errors, tc.status, tc.code)
			}
			if n := spy.TotalCalls() - before; n != 0 {
				t.Errorf("a refused request made %d store calls", n)
			}
		})
	}

	// A body over 1 MiB is refused with 413 before it is read.
	big := `{"query":"{ __typename }","variables":{"x":"` + strings.Repeat("a", 2<<20) + `"}}`
	c := gqltest.New(srv.URL)
	if r := c.MustSend(t, http.MethodPost, "", []byte(big)); r.Status != http.StatusRequestEntityTooLarge {
		t.Errorf("2 MiB body: status %d, want 413", r.Status)
	}

	// An ordinary product page is well within every limit.
	ok := `{ product(id: "big") { stats { total } languages { language } ` + page + ` } topProducts { product { id } } }`
	if r := c.MustDo(t, ok, nil); r.Status != 200 || len(r.Errors) > 0 {
		t.Errorf("product page: %d %s", r.Status, r.Body)
	}
}

// TestStatsReadOnlyWhenNeeded: a page without totalCount and without a
// merge is read without the stats item; asking for totalCount reads it once.
func TestStatsReadOnlyWhenNeeded(t *testing.T) {
	e := MustEnv(t)
	for _, tc := range []struct {
		query     string
		batchGets int
	}{
		{`{ product(id: "big") { comments(first: 5) { nodes { id } } } }`, 0},
		{`{ product(id: "big") { comments(ratings: [5], first: 5) { nodes { id } } } }`, 0},
		{`{ product(id: "big") { comments(first: 5) { totalCount nodes { id } } } }`, 1},
		{`{ product(id: "big") { comments(ratings: [1, 5], first: 5) { nodes { id } } } }`, 1},
	} {
		e.spy.Reset()
		e.MustQuery(t, tc.query, nil)
		if got := e.spy.Calls("BatchGet"); got != tc.batchGets {
			t.Errorf("%s: %d BatchGet calls, want %d", tc.query, got, tc.batchGets)
		}
	}
}

// TestDepthLimitSparesIntrospection: GraphiQL's schema query nests deeper
// than the depth limit; introspection is bounded by the schema, so it passes.
func TestDepthLimitSparesIntrospection(t *testing.T) {
	e := MustEnv(t)
	q := `{ __schema { types { name fields { name type { kind ofType { kind ofType { kind ofType { kind ofType { kind ofType { kind ofType { name } } } } } } } } } } }`
	var out struct {
		Schema struct{ Types []struct{ Name string } } `json:"__schema"`
	}
	e.MustQuery(t, q, &out)
	if len(out.Schema.Types) == 0 {
		t.Fatal("no types from a deep introspection query")
	}
}

// slowTable answers queries only when the caller gives up, as a store that
// hangs would; the backends report an expired context as EUNAVAILABLE.
type slowTable struct{ table.Table }

func (s slowTable) Query(ctx context.Context, q table.Query) (table.QueryResult, error) {
	<-ctx.Done()
	return table.QueryResult{}, store.Wrap(store.EUNAVAILABLE, ctx.Err(), "the store did not answer in time")
}

// TestRequestTimeout: a request's work is bounded by RequestTimeout; a
// store that hangs gives an UNAVAILABLE error, not a hung request.
func TestRequestTimeout(t *testing.T) {
	tbl := MustOpenLoaded(t, genComments())
	h := resolvers.NewHandler(resolvers.Config{
		Store:          store.New(slowTable{tbl}),
		Logger:         slog.New(slog.NewTextHandler(io.Discard, nil)),
		RequestTimeout: 200 * time.Millisecond,
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	done := make(chan struct{})
	var body []byte
	go func() {
		defer close(done)
		r, err := gqltest.New(srv.URL).Do(context.Background(), `{ product(id: "big") { comments(first: 2) { nodes { id } } } }`, nil)
		if r == nil {
			t.Error(err)
			return
		}
		body = r.Body
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // a hang, not a slow machine
		t.Fatal("the request outlived its timeout by far")
	}
	if !strings.Contains(string(body), `"UNAVAILABLE"`) {
		t.Errorf("answer %s, want an UNAVAILABLE error", body)
	}
}
