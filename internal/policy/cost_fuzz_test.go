package policy

import (
	"context"
	"fmt"
	"strings"
	"testing"

	gqlgencomplexity "github.com/99designs/gqlgen/complexity"
	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/rules"

	"github.com/acme/comments-gateway/cost"
)

// FuzzCostAnalysis measures random documents with fragments, built from
// the fuzzer's bytes over the gateway's schema. Always: the analysis visits
// at most as many selections as the document has (linear, whatever the
// expansion). When the document is valid and its expansion small enough to
// walk: its complexity is gqlgen's (whose walk expands every spread) and its
// depth, aliases and fields those of a brute-force expansion.
func FuzzCostAnalysis(f *testing.F) {
	for _, seed := range []string{"", "\x03\x01\x02\x05\x07", "\xff\x10\x20\x30\x40\x50\x60\x70\x80\x90", strings.Repeat("\x02\x09", 40)} {
		f.Add([]byte(seed))
	}
	// Input starting with '#' is query text as sent, valid or not: the pass
	// must neither panic on it nor visit more than its selections.
	for _, seed := range []string{
		`#mutation { createComment(input: 5) { comment { id } } }`,
		`#{ product(id: "p") { comments(first: "x", ratings: {a: 1}) { totalCount } } }`,
		`#{ _entities(representations: 5) { __typename } nope { x } }`,
		`#{ ...A } fragment A on Query { ...A ...B } fragment B on Nope { ... on Product { id } }`,
	} {
		f.Add([]byte(seed))
	}
	es := testSchema()
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 0 && data[0] == '#' {
			measureText(t, es, string(data[1:]))
			return
		}
		query := (&docGen{data: data}).document()
		got := analyzeText(t, es, query, nil)
		if n := selectionsIn(t, query); got.Steps > n {
			t.Fatalf("%d steps for %d selections:\n%s", got.Steps, n, query)
		}
		if got.Fields > 2_000 {
			return // validation would take long (quadratic merging)
		}
		// Valid but for unused fragments, which the generator leaves.
		doc, err := parser.ParseQuery(&ast.Source{Input: query})
		if err != nil {
			t.Fatalf("%v\n%s", err, query)
		}
		rs := rules.NewDefaultRules()
		rs.RemoveRule("NoUnusedFragments")
		if errs := validator.ValidateWithRules(es.Schema(), doc, rs); errs != nil {
			return
		}
		want := bruteForce(doc.Operations[0].SelectionSet)
		if got.Depth != 1+want.depth || got.Aliases != want.aliases || got.Fields != want.fields {
			t.Fatalf("depth %d aliases %d fields %d; expanded: %d %d %d\n%s", got.Depth, got.Aliases, got.Fields, 1+want.depth, want.aliases, want.fields, query)
		}
		if c := gqlgencomplexity.Calculate(context.Background(), es, doc.Operations[0], nil); got.Complexity != c {
			t.Fatalf("complexity %d, gqlgen %d\n%s", got.Complexity, c, query)
		}
	})
}

// measureText measures every operation of query as sent (nothing when it
// does not parse) and checks the pass visited no more than its selections.
func measureText(t *testing.T, es graphql.ExecutableSchema, query string) {
	c := NewCostLimit(Limits{}.WithDefaults(), es, QueryCaches{}.WithDefaults(), nil)
	d := c.document(context.Background(), query)
	if d == nil {
		return
	}
	n := selectionsIn(t, query)
	for _, op := range append(d.doc.Operations, nil) {
		vars, _ := coerceVariables(es.Schema(), op, nil)
		if r := cost.Analyze(context.Background(), es.Schema(), d.doc, op, vars, c.fieldCost); r.Steps > n {
			t.Fatalf("%d steps for %d selections:\n%s", r.Steps, n, query)
		}
	}
}

// expanded is a brute-force measure: every spread walked where it appears.
type expanded struct{ depth, aliases, fields int }

func bruteForce(ss ast.SelectionSet) expanded {
	var e expanded
	merge := func(o expanded) {
		e.depth, e.aliases, e.fields = max(e.depth, o.depth), e.aliases+o.aliases, e.fields+o.fields
	}
	for _, sel := range ss {
		switch x := sel.(type) {
		case *ast.Field:
			c := bruteForce(x.SelectionSet)
			c.fields++
			if x.Alias != x.Name {
				c.aliases++
			}
			if len(x.SelectionSet) > 0 && !strings.HasPrefix(x.Name, "__") {
				c.depth++
			} else {
				c.depth = 0
			}
			merge(c)
		case *ast.InlineFragment:
			merge(bruteForce(x.SelectionSet))
		case *ast.FragmentSpread:
			merge(bruteForce(x.Definition.SelectionSet))
		}
	}
	return e
}

// docGen builds a document from bytes: up to 6 fragments on the schema's
// object types, each selecting fields of its type (page sizes, aliases,
// inline fragments) and spreading later fragments — and, now and then, any
// fragment, which may close a cycle or not fit (an invalid document).
type docGen struct {
	data    []byte
	pos     int
	frags   []genFrag
	aliases int
}

type genFrag struct{ name, on string }

func (g *docGen) next() int {
	if g.pos >= len(g.data) {
		return 0
	}
	g.pos++
	return int(g.data[g.pos-1])
}

// genFields are the fields the generator picks from, per type: name,
// arguments, and the type of its selection ("" for a leaf).
var genFields = map[string][][3]string{
	"Query":             {{"product", `(id: "p")`, "Product"}, {"topProducts", "(first: %d)", "ProductRank"}, {"comment", `(id: "c")`, "Comment"}, {"__typename", "", ""}},
	"Product":           {{"id", "", ""}, {"comments", "(first: %d)", "CommentConnection"}, {"comments", "(last: %d)", "CommentConnection"}, {"languages", "(first: %d)", "LanguageStats"}, {"stats", "", "CommentStats"}},
	"ProductRank":       {{"rank", "", ""}, {"product", "", "Product"}},
	"CommentConnection": {{"totalCount", "", ""}, {"nodes", "", "Comment"}, {"edges", "", "CommentEdge"}, {"pageInfo", "", "PageInfo"}},
	"CommentEdge":       {{"cursor", "", ""}, {"node", "", "Comment"}},
	"Comment":           {{"id", "", ""}, {"title", "", ""}, {"product", "", "Product"}},
	"PageInfo":          {{"hasNextPage", "", ""}, {"endCursor", "", ""}},
	"LanguageStats":     {{"language", "", ""}, {"total", "", ""}},
	"CommentStats":      {{"total", "", ""}, {"ratings", "", "RatingCount"}},
	"RatingCount":       {{"rating", "", ""}, {"count", "", ""}},
}

func (g *docGen) document() string {
	types := []string{"Query", "Product", "CommentConnection", "Comment"}
	for i := range g.next() % 7 {
		g.frags = append(g.frags, genFrag{name: fmt.Sprintf("F%d", i), on: types[g.next()%len(types)]})
	}
	var b strings.Builder
	b.WriteString("query ")
	g.selection(&b, "Query", 0, -1)
	for i, f := range g.frags {
		fmt.Fprintf(&b, "\nfragment %s on %s ", f.name, f.on)
		g.selection(&b, f.on, 0, i)
	}
	return b.String()
}

// selection writes a selection set on typ, depth levels down, inside
// fragment self (-1: the operation).
func (g *docGen) selection(b *strings.Builder, typ string, depth, self int) {
	b.WriteString("{")
	n := 1 + g.next()%4
	for range n {
		c := g.next()
		switch {
		case c%8 == 7 && len(g.frags) > 0: // a spread
			f := g.frags[g.next()%len(g.frags)]
			idx := int(f.name[1] - '0')
			if f.on == typ && (idx > self || c%32 == 31) {
				fmt.Fprintf(b, " ...%s", f.name)
				continue
			}
		case c%8 == 6 && depth < 4: // an inline fragment
			b.WriteString(" ... on " + typ + " ")
			g.selection(b, typ, depth+1, self)
			continue
		}
		fields := genFields[typ]
		fd := fields[g.next()%len(fields)]
		if c%5 == 4 || fd[1] != "" { // fields with arguments never conflict
			g.aliases++
			fmt.Fprintf(b, " a%d: ", g.aliases)
		} else {
			b.WriteString(" ")
		}
		b.WriteString(fd[0])
		if strings.Contains(fd[1], "%d") {
			fmt.Fprintf(b, fd[1], g.next()%120)
		} else {
			b.WriteString(fd[1])
		}
		if fd[2] != "" {
			if depth >= 4 {
				b.WriteString(" { __typename }")
			} else {
				g.selection(b, fd[2], depth+1, self)
			}
		}
	}
	b.WriteString(" }")
}
