package livehttp

import (
	"encoding/json"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/acme/comments-gateway/graph"
	"github.com/acme/comments-gateway/internal/gqlhttp"
)

// mustOperation parses and validates query against the gateway's schema,
// as gqlgen does before an operation runs.
func mustOperation(tb testing.TB, query string, rawVars map[string]any) *graphql.OperationContext {
	tb.Helper()
	schema := graph.NewExecutableSchema(graph.Config{}).Schema() // the schema only: no resolver runs
	doc, errs := gqlparser.LoadQueryWithRules(schema, query, nil)
	if errs != nil {
		tb.Fatalf("%s: %v", query, errs)
	}
	op := doc.Operations[0]
	vars, err := validator.VariableValues(schema, op, rawVars)
	if err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
	return &graphql.OperationContext{Doc: doc, Operation: op, Variables: vars}
}

// TestNormalizeGroupsTheSameData: operations that select the same data
// under other names, aliases, variables, fragments, field order or
// skipped fields have one key; other data, and operations whose shape is
// ambiguous, do not.
func TestNormalizeGroupsTheSameData(t *testing.T) {
	const base = `subscription { commentAdded(productId: "p1") { title product { comments(first: 2) { nodes { id } } } } }`
	same := []struct {
		query string
		vars  map[string]any
	}{
		{`subscription Named { commentAdded(productId: "p1") { title product { comments(first: 2) { nodes { id } } } } }`, nil},
		{`subscription { a: commentAdded(productId: "p1") { t: title p: product { c: comments(first: 2) { n: nodes { i: id } } } } }`, nil},
		{`subscription S($p: ID!, $n: Int) { commentAdded(productId: $p) { product { comments(first: $n) { nodes { id } } } title } }`, map[string]any{"p": "p1", "n": 2}},
		{`subscription { commentAdded(productId: "p1") { ...F } } fragment F on Comment { title product { ... on Product { comments(first: 2) { nodes { id } } } } }`, nil},
		{`subscription($no: Boolean!) { commentAdded(productId: "p1") { title author @include(if: $no) product { comments(first: 2) { nodes { id } } } } }`, map[string]any{"no": false}},
	}
	key, _, err := normalize(mustOperation(t, base, nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range same {
		if k, _, err := normalize(mustOperation(t, c.query, c.vars)); err != nil || k != key {
			t.Errorf("%s: key %s, %v; want the base's", c.query, k, err)
		}
	}
	for _, q := range []string{
		`subscription { commentAdded(productId: "p2") { title product { comments(first: 2) { nodes { id } } } } }`,
		`subscription { commentAdded(productId: "p1") { title product { comments(first: 3) { nodes { id } } } } }`,
		`subscription { commentAdded(productId: "p1") { title body product { comments(first: 2) { nodes { id } } } } }`,
	} {
		if k, _, err := normalize(mustOperation(t, q, nil)); err != nil || k == key {
			t.Errorf("%s: key %s, %v; want another key", q, k, err)
		}
	}
	for _, q := range []string{
		`subscription { commentAdded(productId: "p1") { a: title b: title } }`,
		`subscription { commentAdded(productId: "p1") { ... on Node { nodeId } } }`,
	} {
		if _, _, err := normalize(mustOperation(t, q, nil)); err == nil {
			t.Errorf("%s normalised; want it grouped by its text", q)
		}
	}
}

// TestReshapeUsesTheSubscribersKeys: data and error paths answered in one
// shape come out in another's response keys and order, an error located
// where the other document selects the field.
func TestReshapeUsesTheSubscribersKeys(t *testing.T) {
	_, from, err := normalize(mustOperation(t, `subscription { commentAdded(productId: "p1") { title product { comments(first: 2) { nodes { id } } } } }`, nil))
	if err != nil {
		t.Fatal(err)
	}
	_, to, err := normalize(mustOperation(t, "subscription {\n  x: commentAdded(productId: \"p1\") {\n    p: product { c: comments(first: 2) { n: nodes { i: id } } }\n    t: title\n  }\n}", nil))
	if err != nil {
		t.Fatal(err)
	}
	resp := &graphql.Response{
		Data: json.RawMessage(`{"commentAdded":{"title":"T \"q\" {[,:]} \\","product":{"comments":{"nodes":[{"id":"1"},{"id":"2"}]}}}}`),
		Errors: gqlerror.List{{Message: "boom", Path: ast.Path{ast.PathName("commentAdded"), ast.PathName("product"), ast.PathName("comments"), ast.PathName("nodes"), ast.PathIndex(1), ast.PathName("id")},
			Extensions: map[string]any{"code": gqlhttp.CodeInternal}}},
		Extensions: map[string]any{"cost": json.RawMessage(`{"itemsRead":3}`)},
	}
	got := reshape(resp, from, to)
	if want := `{"x":{"p":{"c":{"n":[{"i":"1"},{"i":"2"}]}},"t":"T \"q\" {[,:]} \\"}}`; string(got.Data) != want {
		t.Errorf("data %s, want %s", got.Data, want)
	}
	if back := reshape(got, to, from); string(back.Data) != string(resp.Data) {
		t.Errorf("back in the first shape: %s, want %s", back.Data, resp.Data)
	}
	if len(got.Errors) != 1 || got.Errors[0].Path.String() != "x.p.c.n[1].i" || len(got.Errors[0].Locations) != 1 || got.Errors[0].Locations[0].Line != 3 {
		t.Errorf("errors %+v, want the path x.p.c.n[1].i located on line 3", got.Errors)
	}
	if resp.Errors[0].Path.String() != "commentAdded.product.comments.nodes[1].id" {
		t.Errorf("reshape changed the shared response's error: %s", resp.Errors[0].Path)
	}
	// A subscriber of the same layout in another document shares the data,
	// and gets errors located in its own document.
	_, named, err := normalize(mustOperation(t, "subscription Named {\n\n  commentAdded(productId: \"p1\") { title product { comments(first: 2) { nodes { id } } } } }", nil))
	if err != nil {
		t.Fatal(err)
	}
	if k := viewKey(&graphql.Response{Data: resp.Data}, from, named); k != nil {
		t.Errorf("same layout without errors: view %v, want the shared answer", k)
	}
	v := viewFor(map[any]*graphql.Response{}, resp, from, named)
	if string(v.Data) != string(resp.Data) || v.Errors[0].Locations[0].Line != 3 {
		t.Errorf("same layout with an error: %s %+v, want the same data and the error on line 3", v.Data, v.Errors[0].Locations)
	}
	if null := reshape(&graphql.Response{Data: json.RawMessage(`null`)}, from, to); string(null.Data) != "null" {
		t.Errorf("null data became %s", null.Data)
	}
}
