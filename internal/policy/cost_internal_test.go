package policy

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	gqlgencomplexity "github.com/99designs/gqlgen/complexity"
	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/acme/comments-gateway/cost"
	"github.com/acme/comments-gateway/graph"
	"github.com/acme/comments-gateway/internal/complexity"
	"github.com/acme/comments-gateway/internal/gqltest"
	"github.com/acme/comments-gateway/store"
)

// introspectionQueryFile is the introspection query GraphiQL sends, kept
// with the handler's introspection tests (resolvers/introspection_test.go).
const introspectionQueryFile = "../../resolvers/testdata/introspection-full.graphql"

// testSchema is the gateway's executable schema with its complexity
// functions, for measuring without a server.
func testSchema() graphql.ExecutableSchema {
	return graph.NewExecutableSchema(graph.Config{Complexity: complexity.Root()})
}

// gqlgenComplexity is the complexity gqlgen's own walk (package complexity,
// which expands every fragment spread) gives the validated query with its
// variables coerced by gqlparser: the number the gateway used before package
// cost, and the oracle here.
func gqlgenComplexity(tb testing.TB, es graphql.ExecutableSchema, query string, rawVars map[string]any) int {
	tb.Helper()
	doc, errs := gqlparser.LoadQueryWithRules(es.Schema(), query, nil)
	if errs != nil {
		tb.Fatalf("%s: %v", query, errs)
	}
	op := doc.Operations[0]
	vars, err := validator.VariableValues(es.Schema(), op, rawVars)
	if err != nil {
		tb.Fatalf("%s: variables: %v", query, err)
	}
	return gqlgencomplexity.Calculate(context.Background(), es, op, vars)
}

// analyzeText measures query the way CostLimit does: parsed, not validated,
// variables coerced before validation.
func analyzeText(tb testing.TB, es graphql.ExecutableSchema, query string, rawVars map[string]any) operationCost {
	tb.Helper()
	c := NewCostLimit(Limits{}.WithDefaults(), es, QueryCaches{}.WithDefaults(), nil)
	d := c.document(context.Background(), query)
	if d == nil {
		tb.Fatalf("%s does not parse", query)
	}
	op := d.doc.Operations[0]
	vars, ok := coerceVariables(es.Schema(), op, rawVars)
	return operationCost{Result: cost.Analyze(context.Background(), es.Schema(), d.doc, op, vars, c.fieldCost), Known: ok}
}

// jsonVars decodes variables as the HTTP transports do (numbers as
// json.Number).
func jsonVars(tb testing.TB, s string) map[string]any {
	tb.Helper()
	if s == "" {
		return nil
	}
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		tb.Fatal(err)
	}
	return m
}

// TestCostMatchesGqlgenComplexity: for ordinary queries, the one-pass
// analysis gives the complexity gqlgen's expanding walk gives.
func TestCostMatchesGqlgenComplexity(t *testing.T) {
	es := testSchema()
	page := `comments(first: 100) { edges { cursor node { id rating author title body createdAt } } pageInfo { hasNextPage endCursor } totalCount }`
	for _, tc := range []struct{ query, vars string }{
		{`{ __typename }`, ""},
		{`{ product(id: "p") { id } }`, ""},
		{`{ product(id: "p") { ` + page + ` } }`, ""},
		{`{ product(id: "p") { comments { nodes { id } } } }`, ""},
		{`{ product(id: "p") { comments(last: 7, language: "en") { nodes { id product { id } } } } }`, ""},
		{`{ product(id: "p") { comments(first: 1000) { nodes { id } } } }`, ""},
		{`{ product(id: "p") { comments(first: -3) { nodes { id } } } }`, ""},
		{`{ product(id: "p") { stats { total averageRating ratings { rating count } } fr: stats(language: "fr") { total } } }`, ""},
		{`{ product(id: "p") { languages { language total } } }`, ""},
		{`{ product(id: "p") { languages(first: 3) { language } } }`, ""},
		{`{ topProducts { rank fiveStarCount product { id stats { total } } } }`, ""},
		{`{ topProducts(first: 50, language: "en") { product { comments(first: 5) { nodes { id } } } } }`, ""},
		{`{ comment(id: "c") { id product { languages(first: 2) { total } } } }`, ""},
		{`query($n: Int, $l: Int) { product(id: "p") { comments(first: $n) { nodes { id } } languages(first: $l) { language } } }`, `{"n": 42, "l": 7}`},
		{`query($n: Int = 9) { product(id: "p") { comments(first: $n) { nodes { id } } } }`, ""},
		{`query($n: Int = 9) { product(id: "p") { comments(first: $n) { nodes { id } } } }`, `{"n": null}`},
		{`query($n: Int) { topProducts(first: $n) { rank } }`, `{}`},
		{`query Page($id: ID!) { product(id: $id) { ...P } } fragment P on Product { id comments(first: 3) { ...C } } fragment C on CommentConnection { nodes { ...N } edges { node { ...N } } } fragment N on Comment { id title }`, `{"id": "x"}`},
		{`{ product(id: "p") { ... on Product { stats { total } } ... { languages { language } } } }`, ""},
		{`{ a: product(id: "a") { ...F } b: product(id: "b") { ...F } } fragment F on Product { comments(first: 10) { nodes { id } } }`, ""},
		{`{ __schema { types { name fields { name } } } }`, ""},
		{`{ __type(name: "Product") { name fields { name type { name } } } }`, ""},
		{`mutation { createComment(input: {productId: "p", language: "en", rating: 5, author: "a", title: "t", body: "b"}) { comment { id product { languages { language } } } } }`, ""},
		{`mutation($id: ID!) { deleteComment(input: {id: $id}) { deletedCommentId } }`, `{"id": "c"}`},
	} {
		vars := jsonVars(t, tc.vars)
		want := gqlgenComplexity(t, es, tc.query, vars)
		got := analyzeText(t, es, tc.query, vars)
		if !got.Known || got.Complexity != want {
			t.Errorf("%s %s: complexity %d (known %v), gqlgen says %d", tc.query, tc.vars, got.Complexity, got.Known, want)
		}
	}
}

// TestCostOfEntities: _entities costs 1 + representations × its selection,
// which gqlgen cannot express (its _entities complexity hook is unexported):
// counted by hand here.
func TestCostOfEntities(t *testing.T) {
	es := testSchema()
	reps := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = `{"__typename": "Product", "id": "p"}`
		}
		return `{"r": [` + strings.Join(s, ",") + `]}`
	}
	q := `query($r: [_Any!]!) { _entities(representations: $r) { ... on Product { comments(first: 10) { nodes { id } } } } }`
	for _, tc := range []struct {
		query, vars          string
		complexity, entities int
	}{
		// comments(first: 10) { nodes { id } } = 1 + StatsShards (its stats
		// read) + 10×(1+1) = 29 per entity.
		{q, reps(0), 1 + 1*29, 0},
		{q, reps(1), 1 + 1*29, 1},
		{q, reps(7), 1 + 7*29, 7},
		{`{ _entities(representations: [{__typename: "Product", id: "a"}, {__typename: "Product", id: "b"}]) { __typename ... on Product { id } } }`, "", 1 + 2*2, 2},
		{`query($r: [_Any!]!) { a: _entities(representations: $r) { __typename } ...E } fragment E on Query { _entities(representations: $r) { __typename } }`, reps(3), 2 * (1 + 3*1), 6},
	} {
		got := analyzeText(t, es, tc.query, jsonVars(t, tc.vars))
		if got.Complexity != tc.complexity || got.Entities != tc.entities {
			t.Errorf("%s: complexity %d, entities %d; want %d, %d", tc.query, got.Complexity, got.Entities, tc.complexity, tc.entities)
		}
	}
}

// TestCostShape: depth, aliases and fields, counted by hand, fragments
// expanded.
func TestCostShape(t *testing.T) {
	es := testSchema()
	for _, tc := range []struct {
		query                  string
		depth, aliases, fields int
	}{
		{`{ __typename }`, 1, 0, 1},
		{`{ product(id: "p") { id } }`, 2, 0, 2},
		{`{ a: product(id: "p") { b: id } }`, 2, 2, 2},
		{`{ product(id: "p") { comments { nodes { product { id } } } } }`, 5, 0, 5},
		{`{ __schema { types { fields { type { ofType { name } } } } } }`, 1, 0, 6},
		{`{ ...A ...A } fragment A on Query { x: __typename ...B ...B } fragment B on Query { y: __typename }`, 1, 2 * (1 + 2), 2 * (1 + 2)},
		{`{ product(id: "p") { ...P } } fragment P on Product { stats { total } }`, 3, 0, 3},
	} {
		got := analyzeText(t, es, tc.query, nil)
		if got.Depth != tc.depth || got.Aliases != tc.aliases || got.Fields != tc.fields {
			t.Errorf("%s: depth %d aliases %d fields %d; want %d %d %d", tc.query, got.Depth, got.Aliases, got.Fields, tc.depth, tc.aliases, tc.fields)
		}
	}
}

// TestCostOfExponentialFragments: 27 fragments each spreading the next
// twice (the last selects one field) ask for 2^26 fields; the pass counts
// them without walking them.
func TestCostOfExponentialFragments(t *testing.T) {
	es := testSchema()
	q := gqltest.ExponentialFragments(27)
	got := analyzeText(t, es, q, nil)
	if want := 1 << 26; got.Fields != want {
		t.Errorf("fields %d, want %d", got.Fields, want)
	}
	if n := selectionsIn(t, q); got.Steps > n {
		t.Errorf("%d steps for %d selections", got.Steps, n)
	}
}

// selectionsIn counts the selections written in query (each field, inline
// fragment and spread once), by gqlparser's parse.
func selectionsIn(tb testing.TB, query string) int {
	doc, err := parser.ParseQuery(&ast.Source{Input: query})
	if err != nil {
		tb.Fatal(err)
	}
	var count func(ss ast.SelectionSet) int
	count = func(ss ast.SelectionSet) int {
		n := len(ss)
		for _, s := range ss {
			switch x := s.(type) {
			case *ast.Field:
				n += count(x.SelectionSet)
			case *ast.InlineFragment:
				n += count(x.SelectionSet)
			}
		}
		return n
	}
	total := 0
	for _, o := range doc.Operations {
		total += count(o.SelectionSet)
	}
	for _, f := range doc.Fragments {
		total += count(f.SelectionSet)
	}
	return total
}

// TestCostOfIntrospection: the full introspection query tools send is
// within every default limit.
func TestCostOfIntrospection(t *testing.T) {
	q, err := os.ReadFile(introspectionQueryFile)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCostLimit(Limits{}.WithDefaults(), testSchema(), QueryCaches{}.WithDefaults(), nil)
	got := analyzeText(t, testSchema(), string(q), nil)
	if err := c.check(got); err != nil {
		t.Errorf("introspection refused: %v", err)
	}
	t.Logf("introspection: depth %d, %d fields in the document, complexity %d", got.Depth, got.DocumentFields, got.Complexity)
}

// TestCostCache: a query's document is parsed once and kept under the
// sha256 of its text; a long one is not kept.
func TestCostCache(t *testing.T) {
	c := NewCostLimit(Limits{}.WithDefaults(), testSchema(), QueryCaches{}.WithDefaults(), nil)
	ctx := context.Background()
	q := `{ product(id: "p") { id } }`
	if a, b := c.document(ctx, q), c.document(ctx, q); a == nil || a != b {
		t.Error("the same query was parsed twice")
	}
	long := "{" + strings.Repeat(" __typename", DefaultMaxCachedQuery/10) + " }"
	if a, b := c.document(ctx, long), c.document(ctx, long); a == nil || a == b {
		t.Errorf("a %d-byte query was kept", len(long))
	}
	if c.document(ctx, "{ product(") != nil {
		t.Error("a query that does not parse has a document")
	}
}

// BenchmarkCostAnalysis measures one analysis (no cache) of documents: an
// ordinary page, the full introspection query, 27 doubling fragments.
func BenchmarkCostAnalysis(b *testing.B) {
	es := testSchema()
	intro, err := os.ReadFile(introspectionQueryFile)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, query string }{
		{"page", `query($id: ID!) { product(id: $id) { stats { total averageRating } languages { language total } comments(first: 20) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id rating author title body createdAt } } } } }`},
		{"introspection", string(intro)},
		{"27 doubling fragments", gqltest.ExponentialFragments(27)},
	} {
		doc, err := parser.ParseQuery(&ast.Source{Input: bc.query})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				cost.Analyze(context.Background(), es.Schema(), doc, doc.Operations[0], map[string]any{"id": "p"}, es.Complexity)
			}
		})
	}
}

// TestCostCheckedAfterValidationWhenVariablesDidNotCoerce: when the
// variables could not be coerced before validation, the complexity is
// measured and checked on gqlgen's validated operation and variables.
func TestCostCheckedAfterValidationWhenVariablesDidNotCoerce(t *testing.T) {
	es := testSchema()
	c := NewCostLimit(Limits{MaxComplexity: 500}.WithDefaults(), es, QueryCaches{}.WithDefaults(), nil)
	q := `query($n: Int) { a: product(id: "a") { comments(first: $n) { nodes { id title } } } b: product(id: "b") { comments(first: $n) { nodes { id title } } } }`
	doc, errs := gqlparser.LoadQueryWithRules(es.Schema(), q, nil)
	if errs != nil {
		t.Fatal(errs)
	}
	for n, code := range map[int64]string{10: "", 100: CodeComplexity} {
		oc := &graphql.OperationContext{Doc: doc, Operation: doc.Operations[0], Variables: map[string]any{"n": n}}
		oc.Stats.SetExtension(costExtension, &operationCost{Known: false})
		err := c.MutateOperationContext(context.Background(), oc)
		if got := ""; err != nil {
			got, _ = err.Extensions["code"].(string)
			if got != code {
				t.Errorf("first %d: %v, want %q", n, err, code)
			}
		} else if code != "" {
			t.Errorf("first %d: accepted, want %s", n, code)
		}
		if m := costOf(oc); m == nil || !m.Known || m.Complexity != 2*(2+store.StatsShards+3*int(n)) {
			t.Errorf("first %d: measured %+v", n, m)
		}
	}
}
