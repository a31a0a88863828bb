package cost_test

import (
	"context"
	"fmt"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/acme/comments-gateway/cost"
)

// A list field costs its page size times its selection; a fragment spread
// twice counts twice, measured once: a is 1 + 5 × (2 + 2), b 1 + 10 × 1.
func ExampleAnalyze() {
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: `
		type Query { items(first: Int = 10): [Item!]! }
		type Item { id: ID! name: String! }`})
	page := func(_ context.Context, typeName, field string, child int, args map[string]any) (int, bool) {
		if typeName+"."+field != "Query.items" {
			return 0, false // the default: 1 + child
		}
		return 1 + int(args["first"].(int64))*child, true
	}
	doc, _ := parser.ParseQuery(&ast.Source{Input: `
		{ a: items(first: 5) { ...F ...F } b: items { id } }
		fragment F on Item { id name }`})
	r := cost.Analyze(context.Background(), schema, doc, doc.Operations[0], nil, page)
	fmt.Println("depth", r.Depth, "aliases", r.Aliases, "fields", r.Fields, "complexity", r.Complexity)
	fmt.Println("selections visited", r.Steps)
	// Output:
	// depth 2 aliases 2 fields 7 complexity 32
	// selections visited 7
}
