package resolvers

import (
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/acme/comments-gateway/graph"
)

// TestPlanLoads checks, on validated operations, which loaders may skip
// their batching window: only those no second key can reach.
func TestPlanLoads(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	for _, c := range []struct {
		name, query             string
		soleStats, soleComments bool
		sequential              bool // no store read inside a list
	}{
		{"page 1", `{ product(id: "p") { comments(first: 20) { totalCount edges { node { id } } } } }`, true, true, true},
		{"product page", `{ product(id: "p") { stats { total } languages { language } comments(first: 10) { totalCount } } }`, false, true, true},
		{"two products", `{ a: product(id: "a") { stats { total } } b: product(id: "b") { stats { total } } }`, false, true, true},
		{"fragment twice", `{ product(id: "p") { ...S ...S } } fragment S on Product { stats { total } }`, false, true, true},
		{"inline fragment", `{ product(id: "p") { ... on Product { comments { totalCount } } } }`, true, true, true},
		{"list of products", `{ topProducts(first: 3) { product { stats { total } } } }`, false, true, false},
		{"comments of a list", `{ topProducts { product { comments { totalCount } } } }`, false, true, false},
		{"one comment", `{ comment(id: "c") { id product { stats { total } } } }`, true, true, true},
		{"comment and node", `{ comment(id: "c") { id } node(id: "x") { nodeId } }`, true, false, true},
		{"nodes", `{ nodes(ids: ["x"]) { nodeId } }`, true, false, true},
		{"stats of nodes", `{ nodes(ids: ["x"]) { ... on Product { stats { total } } } }`, false, false, false},
		{"none", `{ __typename }`, true, true, true},
		{"languages of a list", `{ topProducts { product { languages { language } } } }`, true, true, false},
		{"products of comments", `{ product(id: "p") { comments { edges { node { product { stats { total } } } } } } }`, false, true, false},
		{"plain fields of a list", `{ product(id: "p") { comments { edges { node { product { id } } } nodes { id } } } }`, true, true, true},
	} {
		doc, errs := gqlparser.LoadQueryWithRules(schema, c.query, nil)
		if errs != nil {
			t.Fatalf("%s: %v", c.name, errs)
		}
		k := planLoads(doc.Operations[0])
		if got := k.stats <= 1; got != c.soleStats {
			t.Errorf("%s: sole stats key %v, want %v (%+v)", c.name, got, c.soleStats, k)
		}
		if got := k.comments <= 1; got != c.soleComments {
			t.Errorf("%s: sole comment key %v, want %v (%+v)", c.name, got, c.soleComments, k)
		}
		if got := k.listIO == 0; got != c.sequential {
			t.Errorf("%s: sequential lists %v, want %v (%+v)", c.name, got, c.sequential, k)
		}
	}
	var none *ast.OperationDefinition
	if k := planLoads(none); k.stats != 0 || k.comments != 0 {
		t.Errorf("no operation: %+v", k)
	}
}
