package gqlexec_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/acme/comments-gateway/graph"
	"github.com/acme/comments-gateway/graph/model"
	"github.com/acme/comments-gateway/internal/gqlexec"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
)

// pageCases are operations on product p1 (variables p, lang, r, after,
// yes, no) around the page's two fields; page: PageQuery runs it itself.
var pageCases = []struct {
	name  string
	query string
	page  bool
}{
	{"side by side", `query Page($p: ID!, $lang: String, $r: [Int!], $after: String) { product(id: $p) {
  comments(language: $lang, ratings: $r, first: 20, after: $after) { pageInfo { hasNextPage endCursor }
    edges { cursor node { id rating language author title body createdAt } } } } }`, true},
	{"aliases", `query($p: ID!) { x: product(id: $p) { y: comments(first: 2) { t: totalCount edges { c: cursor } } } }`, true},
	{"literals", `{ product(id: "p1") { comments(orderBy: HIGHEST_RATING, language: "EN", ratings: [1, 2, 2], last: 4) {
  totalCount nodes { id rating } } } }`, true},
	{"id as a number", `{ product(id: 123) { comments { totalCount } } }`, true},
	{"every order", `query($p: ID!) { product(id: $p) { a: comments(orderBy: OLDEST, first: 3) { nodes { id } } } }`, true},
	{"fragments", `query($p: ID!) { ...Q } fragment Q on Query { product(id: $p) { ... on Product { comments(first: 2) {
  totalCount } } ... on Node { ... on Product { comments(first: 2) { edges { cursor } } } } } }`, true},
	{"unknown product", `{ product(id: "nobody-sells-this") { comments(first: 3) { totalCount edges { cursor } } } }`, true},
	{"bad product id", `{ product(id: "two words") { comments(first: 3) { totalCount } } }`, true},
	{"empty product id", `{ product(id: "") { comments(first: 3) { totalCount } } }`, true},
	{"bad language", `query($p: ID!) { product(id: $p) { comments(language: "en_US") { totalCount } } }`, true},
	{"bad rating", `query($p: ID!) { product(id: $p) { comments(ratings: [0, 6]) { totalCount } } }`, true},
	{"bad page size", `query($p: ID!) { product(id: $p) { comments(first: -1) { totalCount } } }`, true},
	{"first and last", `query($p: ID!) { product(id: $p) { comments(first: 2, last: 2) { totalCount } } }`, true},
	{"bad cursor", `query($p: ID!) { product(id: $p) { comments(after: "not a cursor") { totalCount } } }`, true},
	{"cursor of another order", `query($p: ID!, $after: String) { product(id: $p) { comments(orderBy: OLDEST, after: $after) {
  totalCount } } }`, true},
	{"int out of range", `{ product(id: "p1") { comments(first: 99999999999) { totalCount } } }`, true},
	{"product's typename and id", `query($p: ID!) { product(id: $p) { __typename id comments(first: 2) { totalCount } } }`, true},
	{"as Apollo Client sends it", `query Page($p: ID!) { product(id: $p) { id comments(first: 2) { edges { cursor node { id title
  __typename } __typename } pageInfo { endCursor hasNextPage __typename } __typename } __typename } }`, true},
	{"product's fields aliased, merged, after", `query($p: ID!) { product(id: $p) { c: comments(first: 2) { totalCount }
  t: __typename pid: id ... on Product { pid: id } __typename } }`, true},
	{"product's id of an unknown product", `{ product(id: "nobody") { comments(first: 1) { totalCount } id } }`, true},
	{"product's typename twice aliased", `query($p: ID!) { product(id: $p) { a: __typename b: __typename comments { totalCount } } }`, true},
	{"product's stats", `query($p: ID!) { product(id: $p) { stats { total } comments(first: 2) { totalCount } } }`, false},
	{"product's nodeId", `query($p: ID!) { product(id: $p) { nodeId comments(first: 2) { totalCount } } }`, false},
	{"a directive on the product's id", `query($p: ID!) { product(id: $p) { id @skip(if: false) comments(first: 2) {
  totalCount } } }`, false},
	{"no comments", `query($p: ID!) { product(id: $p) { id __typename } }`, false},
	{"two roots", `query($p: ID!) { product(id: $p) { comments(first: 2) { totalCount } } p2: product(id: "p2") {
  comments(first: 1) { totalCount } } }`, false},
	{"skip on product", `query($p: ID!, $no: Boolean!) { product(id: $p) @skip(if: $no) { comments(first: 2) { totalCount } } }`, false},
	{"include on comments", `query($p: ID!, $yes: Boolean!) { product(id: $p) { comments(first: 2) @include(if: $yes) {
  totalCount } } }`, false},
	{"two pages", `query($p: ID!) { product(id: $p) { a: comments(first: 2) { totalCount } b: comments(last: 2) { totalCount } } }`, false},
	{"generated page", `query($p: ID!) { product(id: $p) { comments(first: 3) { nodes { id nodeId } } } }`, false},
	{"deferred", `query($p: ID!) { product(id: $p) { ... @defer { comments(first: 2) { totalCount } } } }`, false},
}

// TestPageQueryMatchesGenerated sends every case through the whole handler
// as configured and with tracing on (a field interceptor: every operation
// runs the generated code), and requires the same data and errors, byte
// for byte, and items read; and PageQuery runs exactly the expected cases.
func TestPageQueryMatchesGenerated(t *testing.T) {
	h, traced := handlers(t, awkward())
	cursor := pageCursor(t, h)
	if pageCursor(t, traced) != cursor { // and the same requests to both
		t.Fatal("the two stores' cursors differ")
	}
	for _, c := range pageCases {
		for _, vars := range []map[string]any{
			{"p": "p1", "lang": "fr", "r": []int{1, 3, 4}, "after": nil, "yes": true, "no": false},
			{"p": "p1", "lang": nil, "r": nil, "after": cursor, "yes": false, "no": true},
		} {
			want, wantRead := postRead(t, traced, c.query, vars)
			got, gotRead := postRead(t, h, c.query, vars)
			if page := gqlexec.PageOperation(operation(t, c.query, vars)); page != c.page {
				t.Errorf("%s: run by PageQuery %v, want %v", c.name, page, c.page)
			}
			// Items read are compared where PageQuery runs the page (with
			// @defer, gqlgen may reply before the deferred page is read).
			if !bytes.Equal(got, want) || c.page && gotRead != wantRead {
				t.Errorf("%s %v:\nPageQuery %s (items read %d)\ngenerated %s (items read %d)", c.name, vars, got, gotRead, want, wantRead)
			}
		}
	}
}

// TestPageQueryHandsUnfitPageOn serves a page holding a comment of the
// zero time, which gqlgen marshals as a null createdAt (an error on a
// non-null field, whose path the reply names): PageQuery hands the page it read to the generated code,
// which writes what it writes without PageQuery, and reads it once.
func TestPageQueryHandsUnfitPageOn(t *testing.T) {
	cs := awkward()[:3]
	cs[1].CreatedAt = time.Time{}
	h, traced := handlers(t, cs)
	const query = `query($p: ID!) { product(id: $p) { comments(first: 5) { edges { node { id createdAt } } } } }`
	vars := map[string]any{"p": "p1"}
	if !gqlexec.PageOperation(operation(t, query, vars)) {
		t.Fatal("not run by PageQuery")
	}
	want, wantRead := postRead(t, traced, query, vars)
	got, gotRead := postRead(t, h, query, vars)
	requestID := regexp.MustCompile(`"requestId":"[0-9a-f]+"`)
	want, got = requestID.ReplaceAll(want, nil), requestID.ReplaceAll(got, nil)
	if !bytes.Equal(got, want) || gotRead != wantRead || !strings.Contains(string(got), `"node","createdAt"]`) {
		t.Errorf("PageQuery %s (items read %d)\ngenerated %s (items read %d)", got, gotRead, want, wantRead)
	}
}

// pageCursor is the end cursor of p1's first page of two, newest first.
func pageCursor(t *testing.T, h http.Handler) string {
	t.Helper()
	got, _ := postRead(t, h, `{ product(id: "p1") { comments(first: 2) { pageInfo { endCursor } } } }`, nil)
	var d struct {
		Product struct {
			Comments struct{ PageInfo struct{ EndCursor string } }
		}
	}
	if err := json.Unmarshal(bytes.TrimSuffix(got, []byte("|")), &d); err != nil || d.Product.Comments.PageInfo.EndCursor == "" {
		t.Fatalf("no cursor in %s (%v)", got, err)
	}
	return d.Product.Comments.PageInfo.EndCursor
}

// postRead is post, and the items the request read (extensions.cost).
func postRead(t *testing.T, h http.Handler, query string, vars map[string]any) ([]byte, int) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var out struct {
		Data       json.RawMessage `json:"data"`
		Errors     json.RawMessage `json:"errors"`
		Extensions struct {
			Cost struct {
				ItemsRead int `json:"itemsRead"`
			} `json:"cost"`
		} `json:"extensions"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("%s: HTTP %d, not JSON: %v: %s", query, rec.Code, err, rec.Body.Bytes())
	}
	return append(append(out.Data, '|'), out.Errors...), out.Extensions.Cost.ItemsRead
}

// panicky is the schema's resolvers with Query.product or Product.comments
// panicking.
type panicky struct {
	*resolvers.Resolver
	product, comments bool
}

func (p panicky) Query() graph.QueryResolver { return panickyQuery{p.Resolver.Query(), p.product} }
func (p panicky) Product() graph.ProductResolver {
	return panickyProduct{p.Resolver.Product(), p.comments}
}

type panickyQuery struct {
	graph.QueryResolver
	panics bool
}

func (q panickyQuery) Product(ctx context.Context, id string) (*model.Product, error) {
	if q.panics {
		panic("product")
	}
	return q.QueryResolver.Product(ctx, id)
}

type panickyProduct struct {
	graph.ProductResolver
	panics bool
}

func (p panickyProduct) Comments(ctx context.Context, obj *model.Product, orderBy *model.CommentOrder, language *string,
	ratings []int, first *int, after *string, last *int, before *string) (*model.CommentConnection, error) {
	if p.panics {
		panic("comments")
	}
	return p.ProductResolver.Comments(ctx, obj, orderBy, language, ratings, first, after, last, before)
}

// TestPageQueryRecoversAsGenerated serves a page operation whose product or
// comments resolver panics, on gqlgen's server with and without PageQuery:
// the same reply, the panic recovered as the field's error.
func TestPageQueryRecoversAsGenerated(t *testing.T) {
	s := store.New(bolttest.Open(t))
	if err := s.PutComments(context.Background(), awkward()[:3]); err != nil {
		t.Fatal(err)
	}
	const query = `query($p: ID!) { product(id: $p) { comments(first: 5) { edges { node { id } } } } }`
	for _, r := range []panicky{{product: true}, {comments: true}} {
		r.Resolver = &resolvers.Resolver{Store: s}
		es := graph.NewExecutableSchema(graph.Config{Resolvers: r})
		serve := func(es graphql.ExecutableSchema) []byte {
			srv := handler.New(es)
			srv.AddTransport(transport.POST{})
			return post(t, srv, query, map[string]any{"p": "p1"})
		}
		want := serve(es)
		got := serve(gqlexec.PageQuery(es, gqlexec.PageResolvers{Product: r.Query().Product, Comments: r.Product().Comments}))
		if !bytes.Equal(got, want) || !bytes.Contains(got, []byte("internal system error")) {
			t.Errorf("product panics %v, comments %v:\nPageQuery %s\ngenerated %s", r.product, r.comments, got, want)
		}
	}
}

// TestOnlyFieldAsCollected: the one field of a selection, found without
// gqlgen's collection, is the field CollectFields collects.
func TestOnlyFieldAsCollected(t *testing.T) {
	for _, q := range []string{
		`{ product(id: "p") { comments { totalCount } } }`,
		`{ x: product(id: "p") { y: comments(first: 2) { edges { cursor } } } }`,
		`{ product(id: "p") { comments { ... on CommentConnection { totalCount } } } }`,
	} {
		oc := operation(t, q, nil)
		for typ, sel := range map[string]ast.SelectionSet{"Query": oc.Operation.SelectionSet,
			"Product": oc.Operation.SelectionSet[0].(*ast.Field).SelectionSet} {
			got := gqlexec.OnlyField(oc, sel, typ)
			want := graphql.CollectFields(oc, sel, gqlexec.Implementors[typ])
			if len(want) != 1 || !reflect.DeepEqual(got, want[0]) {
				t.Errorf("%s, %s: found %+v, collected %+v", q, typ, got, want)
			}
		}
	}
}
