package policy

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"
)

// documentShapes are documents of the shapes that keep the most memory per
// byte or per token: the i-th of each is distinct. valid ones pass the
// schema's validation (gqlgen caches only those).
var documentShapes = []struct {
	name  string
	valid bool
	doc   func(i int) string
}{
	{"one-letter fields", false, func(i int) string { return fmt.Sprintf("{ x%d ", i) + strings.Repeat("a ", 2000) + "}" }},
	{"__typename fields", true, func(i int) string {
		return fmt.Sprintf("query Q%d { ", i) + strings.Repeat("__typename ", 300) + "}"
	}},
	{"aliased products", true, func(i int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "query Q%d { ", i)
		for j := range 60 {
			fmt.Fprintf(&b, "a%d: product(id: \"p\") { id } ", j)
		}
		return b.String() + "}"
	}},
	{"arguments", false, func(i int) string {
		return fmt.Sprintf("{ x%d ", i) + strings.Repeat("f(a: 1, b: [1, 2], c: {d: $e}) ", 200) + "}"
	}},
	{"directives", false, func(i int) string { return fmt.Sprintf("{ x%d ", i) + strings.Repeat("f @skip(if: $a) ", 600) + "}" }},
	{"variables", false, func(i int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "query Q%d(", i)
		for j := range 600 {
			fmt.Fprintf(&b, "$v%d: [Int!] ", j)
		}
		return b.String() + ") { a }"
	}},
	{"fragments", false, func(i int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "{ x%d ...F0 } ", i)
		for j := range 300 {
			fmt.Fprintf(&b, "fragment F%d on Q { ...F%d } ", j, j+1)
		}
		return b.String()
	}},
	{"operations", false, func(i int) string {
		var b strings.Builder
		for j := range 600 {
			fmt.Fprintf(&b, "query Q%d_%d { a } ", i, j)
		}
		return b.String()
	}},
	{"page", true, func(i int) string {
		return fmt.Sprintf(`query C%d($pid: ID!, $lang: String, $ratings: [Int!], $first: Int, $after: String) {
  product(id: $pid) { comments(language: $lang, ratings: $ratings, first: $first, after: $after) {
    totalCount edges { cursor node { id author title body rating language createdAt } } pageInfo { hasNextPage endCursor } } } }`, i)
	}},
	{"comment-padded", true, func(i int) string { return fmt.Sprintf("# %d ", i) + strings.Repeat("x", 60_000) + "\n{ __typename }" }},
}

// retainedPerDocument is the heap that n documents made by keep keep
// reachable, per document (the live heap after a collection, before and
// after).
func retainedPerDocument(n int, keep func(i int) any) int64 {
	kept := make([]any, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range kept {
		kept[i] = keep(i)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(kept)
	return (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / int64(n)
}

// TestDocumentBytesCoverParsedDocuments measures the heap a document keeps
// reachable, text included, as each cache keeps it (the cost analysis's
// parsed document with its operations measured; gqlgen's parsed and
// validated one), and checks that documentBytes, the weight the caches
// give it, is at least that. The log shows the measure per byte of text
// and per token, which chose bytesPerToken.
func TestDocumentBytesCoverParsedDocuments(t *testing.T) {
	es := testSchema()
	const n = 10
	ctx := context.Background()
	for _, s := range documentShapes {
		text := s.doc(0)
		est := documentBytes(text)
		c := NewCostLimit(Limits{MaxTokens: 20_000}.WithDefaults(), es, QueryCaches{}.WithDefaults(), nil)
		costDoc := retainedPerDocument(n, func(i int) any {
			d := c.document(ctx, s.doc(i+1))
			if d == nil {
				t.Fatalf("%s: does not parse", s.name)
			}
			for _, op := range d.doc.Operations {
				c.measure(ctx, d, &graphql.RawParams{OperationName: op.Name})
			}
			return d
		})
		got := costDoc
		if s.valid {
			validated := retainedPerDocument(n, func(i int) any {
				doc, errs := gqlparser.LoadQueryWithRules(es.Schema(), s.doc(i+1), nil)
				if errs != nil {
					t.Fatalf("%s: %v", s.name, errs)
				}
				return doc
			})
			got = max(got, validated)
		}
		tok, _ := tokens(text)
		t.Logf("%-18s %6d bytes, %5d tokens: keeps %8d bytes (%5.1f a byte of text, %3d a token beyond the text); weighed %8d",
			s.name, len(text), tok, got, float64(got)/float64(len(text)), (got-int64(len(text)))/int64(max(tok, 1)), est)
		if got > est {
			t.Errorf("%s: a document keeps %d bytes, more than its weight %d", s.name, got, est)
		}
	}
}
