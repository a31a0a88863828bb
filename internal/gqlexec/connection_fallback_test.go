package gqlexec_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/acme/comments-gateway/graph"
	"github.com/acme/comments-gateway/graph/model"
	"github.com/acme/comments-gateway/internal/gqlexec"
	"github.com/acme/comments-gateway/store"
)

// TestImplementorsMatchSchema: fragments on an interface a type implements
// or a union it is in apply to it, so CommentConnection and PageQuery must
// know every interface and union of each type they write, as the
// generated code does (interfaces first, then unions).
func TestImplementorsMatchSchema(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	for name, got := range gqlexec.Implementors {
		want := append([]string{name}, schema.Types[name].Interfaces...)
		for _, u := range schema.Types {
			if u.Kind == ast.Union && slices.Contains(u.Types, name) {
				want = append(want, u.Name)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: implementors %v, schema %v", name, got, want)
		}
	}
}

// TestCommentConnectionFallsBack: whatever gqlgen would answer with an
// error or a null (a null edge, node or page info, a zero createdAt), and
// any operation that runs a field middleware, goes to the generated code.
func TestCommentConnectionFallsBack(t *testing.T) {
	const query = `{ product(id: "p") { comments {
  pageInfo { endCursor } edges { cursor node { id createdAt } } nodes { title } } } }`
	oc := operation(t, query, nil)
	sel := oc.Operation.SelectionSet[0].(*ast.Field).SelectionSet[0].(*ast.Field).SelectionSet
	plain := graphql.WithOperationContext(context.Background(), oc)
	wrapped := operation(t, query, nil)
	wrapped.ResolverMiddleware = func(ctx context.Context, next graphql.Resolver) (any, error) { return next(ctx) }
	page := func() *model.CommentConnection {
		c := &store.Comment{ID: "c1", CreatedAt: time.Unix(1700000000, 0).UTC()}
		return &model.CommentConnection{Edges: []*model.CommentEdge{{Cursor: "x", Node: c}}, Nodes: []*store.Comment{c},
			PageInfo: &model.PageInfo{}}
	}
	cases := map[string]struct {
		ctx      context.Context
		change   func(*model.CommentConnection)
		fallback bool
	}{
		"fits":             {plain, func(*model.CommentConnection) {}, false},
		"field middleware": {graphql.WithOperationContext(context.Background(), wrapped), func(*model.CommentConnection) {}, true},
		"null edge":        {plain, func(v *model.CommentConnection) { v.Edges = append(v.Edges, nil) }, true},
		"null node":        {plain, func(v *model.CommentConnection) { v.Edges[0].Node = nil }, true},
		"zero time":        {plain, func(v *model.CommentConnection) { v.Edges[0].Node.CreatedAt = time.Time{} }, true},
		"null in list":     {plain, func(v *model.CommentConnection) { v.Nodes = append(v.Nodes, nil) }, true},
		"no page info":     {plain, func(v *model.CommentConnection) { v.PageInfo = nil }, true},
	}
	for name, c := range cases {
		v := page()
		c.change(v)
		called := false
		m := gqlexec.CommentConnection(c.ctx, sel, v, func(context.Context, ast.SelectionSet, *model.CommentConnection) graphql.Marshaler {
			called = true
			return graphql.Null
		})
		if called != c.fallback || gqlexec.OnePass(m) == c.fallback {
			t.Errorf("%s: generated code called %v, want %v", name, called, c.fallback)
		}
	}
}

// operation is query's operation context as gqlgen's executor makes it
// with no extension: parsed, validated, its variables coerced.
func operation(t *testing.T, query string, vars map[string]any) *graphql.OperationContext {
	t.Helper()
	es := graph.NewExecutableSchema(graph.Config{})
	oc, errs := executor.New(es).CreateOperationContext(graphql.StartOperationTrace(context.Background()), &graphql.RawParams{Query: query, Variables: vars})
	if errs != nil {
		t.Fatalf("%s: %v", query, errs)
	}
	return oc
}
