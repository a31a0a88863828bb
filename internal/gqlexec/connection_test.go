package gqlexec_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/acme/comments-gateway/graph/model"
	"github.com/acme/comments-gateway/internal/gqlexec"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
)

// connectionCase is one operation on product p1 (variables p, yes, no).
type connectionCase struct {
	name    string
	query   string
	onePass bool // its pages (where the resolver returns one) are written in one pass
}

const connFields = `totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  edges { cursor node { id language rating author title body createdAt } }`

var connectionCases = []connectionCase{
	{"page", `query($p: ID!) { product(id: $p) { comments(language: "en", ratings: [2, 3, 5], first: 20) {
  totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id rating author title body createdAt } } } } }`, true},
	{"all fields", `query($p: ID!) { product(id: $p) { comments(first: 50) { ` + connFields + ` nodes { id title } } } }`, true},
	{"aliases", `query($p: ID!) { product(id: $p) { c: comments(first: 5) { n: totalCount
  pi: pageInfo { e: endCursor s: startCursor h: hasNextPage p: hasPreviousPage }
  list: edges { c: cursor comment: node { i: id t: title when: createdAt r: rating id } } } } }`, true},
	{"typename", `query($p: ID!) { product(id: $p) { comments(first: 3) { __typename t: __typename
  pageInfo { __typename endCursor } edges { __typename node { __typename id } } nodes { __typename } } } }`, true},
	{"fragments", `query($p: ID!) { product(id: $p) { comments(first: 4) { ...Conn } } }
fragment Conn on CommentConnection { totalCount edges { ...Edge } pageInfo { ... on PageInfo { endCursor } } }
fragment Edge on CommentEdge { cursor node { ...C ... on Node { __typename } ... { title } } }
fragment C on Comment { author ... on Comment { body rating } }`, true},
	{"skip and include", `query($p: ID!, $yes: Boolean!, $no: Boolean!) { product(id: $p) { comments(first: 4) {
  totalCount @skip(if: $yes) pageInfo @include(if: $yes) { endCursor @include(if: $no) hasNextPage }
  edges { cursor @skip(if: $no) node { id @include(if: $yes) title @include(if: $no) ... @skip(if: $yes) { body }
    ...F @include(if: $yes) } } } } }
fragment F on Comment { language rating @skip(if: $yes) }`, true},
	{"merged fields", `query($p: ID!) { product(id: $p) { comments(first: 3) { edges { node { id } } edges { cursor node { title }
  node { author id } } totalCount totalCount } } }`, true},
	{"empty page", `query($p: ID!) { product(id: $p) { comments(language: "de", first: 5) { ` + connFields + ` nodes { id } } } }`, true},
	{"backward", `query($p: ID!) { product(id: $p) { comments(last: 3) { ` + connFields + ` } } }`, true},
	{"two pages", `query($p: ID!) { product(id: $p) { a: comments(first: 2) { edges { cursor } } b: comments(first: 3, ratings: [1, 5]) { ` + connFields + ` } } }`, true},
	{"in a list", `query { topProducts(first: 3) { rank product { id comments(first: 2) { totalCount edges { node { id title } } } } } }`, true},
	{"widget fields", `query($p: ID!) { product(id: $p) { comments(first: 20) { edges { node {
  id rating helpfulCount unhelpfulCount verifiedPurchase h: helpfulCount } } nodes { verifiedPurchase } } } }`, true},
	{"viewerVote (generated)", `query($p: ID!) { product(id: $p) { comments(first: 3) { nodes { id helpfulCount viewerVote } } } }`, false},
	{"reply (generated)", `query($p: ID!) { product(id: $p) { comments(first: 3) { nodes { id verifiedPurchase reply { body } } } } }`, false},
	{"nodeId (generated)", `query($p: ID!) { product(id: $p) { comments(first: 3) { edges { node { id nodeId } } } } }`, false},
	{"product (generated)", `query($p: ID!) { product(id: $p) { comments(first: 3) { nodes { id product { id } } } } }`, false},
	{"bad argument", `query($p: ID!) { product(id: $p) { comments(language: "xx-!!", first: 3) { totalCount edges { cursor } } } }`, true},
	{"bad cursor", `query($p: ID!) { product(id: $p) { comments(first: 3, after: "abc") { totalCount } } }`, true},
	{"defer", `query($p: ID!) { product(id: $p) { comments(first: 3) { edges { node { id ... @defer { title } } } } } }`, false},
}

// awkward are comments whose strings and times exercise every escape of
// gqlgen's String and every shape of its Time.
func awkward() []*store.Comment {
	texts := []string{"plain", `quote " and backslash \`, "tab\tnewline\nreturn\r", "controls \x00\x01\x1f\x7f",
		"é ü 漢字 🙂", "line sep \u2028 para \u2029", "<script>&amp;</script>", "", " ", "invalid \xff\xfe utf-8"}
	base := time.Date(2024, 2, 29, 23, 59, 59, 0, time.UTC)
	var cs []*store.Comment
	for i := range 30 {
		cs = append(cs, &store.Comment{
			ID: fmt.Sprintf("c%03d", i), ProductID: "p1", Language: []string{"en", "fr", "pt-BR"}[i%3],
			Rating: i%5 + 1, Author: texts[i%len(texts)], Title: texts[(i+3)%len(texts)], Body: texts[(i+7)%len(texts)],
			CreatedAt:    base.Add(-time.Duration(i) * (time.Hour + 123456789*time.Nanosecond) * time.Duration(i%4)),
			HelpfulCount: int64(i * i * 7919 % 100003), UnhelpfulCount: int64(i % 4), VerifiedPurchase: i%3 == 0,
		})
	}
	return cs
}

// TestCommentConnectionMatchesGenerated sends every case through the whole
// handler as configured and with tracing on, whose extension is a field
// interceptor, so that every page takes gqlgen's generated marshalling,
// and requires the same data and errors, byte for byte; and each case's
// pages are written in one pass exactly where expected (onePass).
func TestCommentConnectionMatchesGenerated(t *testing.T) {
	h, traced := handlers(t, awkward())
	for _, c := range connectionCases {
		for _, yes := range []bool{true, false} {
			vars := map[string]any{"p": "p1", "yes": yes, "no": !yes}
			want := post(t, traced, c.query, vars)
			got := post(t, h, c.query, vars)
			if onePass := pagesInOnePass(t, c.query, vars); onePass != c.onePass {
				t.Errorf("%s (yes=%v): one pass %v, want %v", c.name, yes, onePass, c.onePass)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s (yes=%v):\none pass  %s\ngenerated %s", c.name, yes, got, want)
			}
		}
	}
}

// handlers serves comments through the whole handler as configured (h)
// and with tracing on (traced: its extension is a field interceptor, so
// every operation runs gqlgen's generated code), each from a new store of
// its own: the stats one store answers as last read (store.ReadStats) are
// then current in the other only when the same requests were sent to both.
func handlers(t *testing.T, comments []*store.Comment) (h, traced http.Handler) {
	t.Helper()
	ctx := context.Background()
	cfg := resolvers.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, handler := range []*http.Handler{&h, &traced} {
		s := store.New(bolttest.Open(t))
		if err := s.PutComments(ctx, comments); err != nil {
			t.Fatal(err)
		}
		if _, err := s.RebuildStats(ctx, 1); err != nil {
			t.Fatal(err)
		}
		cfg.Store = s
		*handler = resolvers.NewHandler(cfg)
		cfg.TracerProvider = noop.NewTracerProvider()
	}
	return h, traced
}

// pagesInOnePass reports whether CommentConnection writes a page of
// awkward comments itself for every Product.comments field of query.
func pagesInOnePass(t *testing.T, query string, vars map[string]any) bool {
	oc := operation(t, query, vars)
	ctx := graphql.WithOperationContext(context.Background(), oc)
	cs := awkward()[:5]
	page := &model.CommentConnection{Nodes: cs, PageInfo: &model.PageInfo{HasNextPage: true}}
	for _, c := range cs {
		page.Edges = append(page.Edges, &model.CommentEdge{Cursor: "cursor-" + c.ID, Node: c})
	}
	generated := func(context.Context, ast.SelectionSet, *model.CommentConnection) graphql.Marshaler {
		return graphql.Null
	}
	pages, onePass := 0, 0
	var walk func(ast.SelectionSet)
	walk = func(set ast.SelectionSet) {
		for _, sel := range set {
			switch s := sel.(type) {
			case *ast.Field:
				if s.ObjectDefinition != nil && s.ObjectDefinition.Name == "Product" && s.Name == "comments" {
					pages++
					if gqlexec.OnePass(gqlexec.CommentConnection(ctx, s.SelectionSet, page, generated)) {
						onePass++
					}
				}
				walk(s.SelectionSet)
			case *ast.FragmentSpread:
				walk(s.Definition.SelectionSet)
			case *ast.InlineFragment:
				walk(s.SelectionSet)
			}
		}
	}
	walk(oc.Operation.SelectionSet)
	return pages > 0 && onePass == pages
}

// post returns the response's data and errors (extensions.cost holds
// timings), failing on a reply that is not JSON.
func post(t *testing.T, h http.Handler, query string, vars map[string]any) []byte {
	t.Helper()
	got, _ := postRead(t, h, query, vars)
	return got
}
