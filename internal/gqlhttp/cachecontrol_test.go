package gqlhttp_test

import (
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/acme/comments-gateway/internal/gqlhttp"
)

// ruleSchema exercises each rule of Apollo Server's cache-control plugin
// that gqlhttp.PolicyOf follows (see its doc).
const ruleSchema = `
directive @cacheControl(maxAge: Int, scope: CacheControlScope, inheritMaxAge: Boolean) on FIELD_DEFINITION | OBJECT | INTERFACE | UNION
enum CacheControlScope { PUBLIC PRIVATE }
type Query {
  hinted: Post @cacheControl(maxAge: 100)
  typed: Post
  bare: Plain
  count: Int
  countHinted: Int @cacheControl(maxAge: 40)
  me: User
  item: Item @cacheControl(maxAge: 90)
  search: [Result] @cacheControl(maxAge: 80)
}
type Post @cacheControl(maxAge: 240) {
  title: String
  votes: Int @cacheControl(maxAge: 30)
  author: Plain
  inherits: Plain @cacheControl(inheritMaxAge: true)
  secret: String @cacheControl(scope: PRIVATE)
  privateInherit: Plain @cacheControl(inheritMaxAge: true, scope: PRIVATE)
  chained: Chained
}
type Plain { name: String sub: Plain }
type Chained @cacheControl(inheritMaxAge: true) { name: String post: Post }
type User @cacheControl(maxAge: 50, scope: PRIVATE) { name: String }
interface Item @cacheControl(maxAge: 20) { id: ID }
type Book implements Item { id: ID pages: Int }
union Result = Book | Post
`

func TestPolicyOfFollowsApollosRules(t *testing.T) {
	schema := gqlparser.MustLoadSchema(&ast.Source{Name: "rules.graphqls", Input: ruleSchema})
	cases := []struct {
		name, query string
		want        gqlhttp.CachePolicy
	}{
		{"field hint", `{ hinted { title } }`, gqlhttp.CachePolicy{MaxAge: 100}},
		{"type hint when the field has none", `{ typed { title } }`, gqlhttp.CachePolicy{MaxAge: 240}},
		{"scalar field hint restricts", `{ typed { title votes } }`, gqlhttp.CachePolicy{MaxAge: 30}},
		{"object field without a hint is 0", `{ hinted { author { name } } }`, gqlhttp.CachePolicy{}},
		{"root object without a hint is 0", `{ bare { name } }`, gqlhttp.CachePolicy{}},
		{"root scalar without a hint is 0", `{ count }`, gqlhttp.CachePolicy{}},
		{"root scalar with a hint", `{ countHinted }`, gqlhttp.CachePolicy{MaxAge: 40}},
		{"inheritMaxAge on a field", `{ hinted { inherits { name } } }`, gqlhttp.CachePolicy{MaxAge: 100}},
		{"below an inheriting field, objects are 0 again", `{ hinted { inherits { sub { name } } } }`, gqlhttp.CachePolicy{}},
		{"inheritMaxAge on a type", `{ hinted { chained { name } } }`, gqlhttp.CachePolicy{MaxAge: 100}},
		{"a type's maxAge under an inheriting type", `{ hinted { chained { post { title } } } }`, gqlhttp.CachePolicy{MaxAge: 100}},
		{"PRIVATE on a scalar field", `{ hinted { secret } }`, gqlhttp.CachePolicy{MaxAge: 100, Private: true}},
		{"inheritMaxAge with PRIVATE", `{ hinted { privateInherit { name } } }`, gqlhttp.CachePolicy{MaxAge: 100, Private: true}},
		{"PRIVATE type", `{ me { name } }`, gqlhttp.CachePolicy{MaxAge: 50, Private: true}},
		{"most restrictive of several roots", `{ hinted { title } countHinted me { name } }`, gqlhttp.CachePolicy{MaxAge: 40, Private: true}},
		{"interface type hint under a field hint", `{ item { id ... on Book { pages } } }`, gqlhttp.CachePolicy{MaxAge: 90}},
		{"fields in a union's fragments count", `{ search { ... on Post { votes } ... on Book { id } } }`, gqlhttp.CachePolicy{MaxAge: 30}},
		{"fragment spreads", `{ ...Q } fragment Q on Query { hinted { ...P } } fragment P on Post { votes }`, gqlhttp.CachePolicy{MaxAge: 30}},
		{"__typename alone", `{ __typename }`, gqlhttp.CachePolicy{}},
	}
	for _, c := range cases {
		doc, errs := gqlparser.LoadQueryWithRules(schema, c.query, nil)
		if errs != nil {
			t.Fatalf("%s: %v", c.name, errs)
		}
		if got := gqlhttp.PolicyOf(schema, doc.Operations[0]); got != c.want {
			t.Errorf("%s: %s\n got %+v, want %+v", c.name, c.query, got, c.want)
		}
	}
}

func TestCachePolicyHeader(t *testing.T) {
	for p, want := range map[gqlhttp.CachePolicy]string{
		{MaxAge: 60}:                "public, max-age=60",
		{MaxAge: 60, Private: true}: "private, max-age=60",
		{}:                          "no-cache",
		{Private: true}:             "private, no-cache",
	} {
		if got := p.Header(); got != want {
			t.Errorf("%+v: %q, want %q", p, got, want)
		}
	}
}
