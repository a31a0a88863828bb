package gqlexec_test

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/acme/comments-gateway/graph"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
)

// fieldLog records the fields a field middleware saw, as "Object.field".
type fieldLog struct {
	mu   sync.Mutex
	seen map[string]int
}

func (l *fieldLog) InterceptField(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	l.mu.Lock()
	l.seen[fc.Object+"."+fc.Field.Name]++
	l.mu.Unlock()
	return next(ctx)
}

// fieldLogExt installs a fieldLog as an extension: a FieldInterceptor, or
// (wrap) an OperationContextMutator that wraps the operation's middleware.
type fieldLogExt struct {
	log  *fieldLog
	wrap bool
}

func (fieldLogExt) ExtensionName() string                   { return "FieldLog" }
func (fieldLogExt) Validate(graphql.ExecutableSchema) error { return nil }

func (e fieldLogExt) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if e.wrap {
		outer := oc.ResolverMiddleware
		oc.ResolverMiddleware = func(ctx context.Context, next graphql.Resolver) (any, error) {
			return outer(ctx, func(ctx context.Context) (any, error) { return e.log.InterceptField(ctx, next) })
		}
	}
	return nil
}

// fieldInterceptor is fieldLogExt as a FieldInterceptor.
type fieldInterceptor struct{ fieldLogExt }

func (e fieldInterceptor) InterceptField(ctx context.Context, next graphql.Resolver) (any, error) {
	return e.log.InterceptField(ctx, next)
}

// TestFieldMiddlewareSeesPageFields: a field middleware installed in any of
// gqlgen's three ways turns the one-pass marshaller off, so that it runs
// on every field of a page, and the reply stays the same.
func TestFieldMiddlewareSeesPageFields(t *testing.T) {
	s := store.New(bolttest.Open(t))
	if err := s.PutComments(context.Background(), awkward()); err != nil {
		t.Fatal(err)
	}
	newServer := func() *handler.Server {
		srv := handler.New(graph.NewExecutableSchema(graph.Config{Resolvers: &resolvers.Resolver{Store: s}}))
		srv.AddTransport(transport.POST{})
		return srv
	}
	const query = `query($p: ID!) { product(id: $p) { comments(first: 5) {
  edges { cursor node { id title } } nodes { author } pageInfo { endCursor } } } }`
	vars := map[string]any{"p": "p1"}
	want := post(t, newServer(), query, vars)
	installs := map[string]func(*handler.Server, *fieldLog){
		"AroundFields":            func(srv *handler.Server, l *fieldLog) { srv.AroundFields(l.InterceptField) },
		"FieldInterceptor":        func(srv *handler.Server, l *fieldLog) { srv.Use(fieldInterceptor{fieldLogExt{log: l}}) },
		"OperationContextMutator": func(srv *handler.Server, l *fieldLog) { srv.Use(fieldLogExt{log: l, wrap: true}) },
	}
	for name, install := range installs {
		srv := newServer()
		l := &fieldLog{seen: map[string]int{}}
		install(srv, l)
		if got := post(t, srv, query, vars); !bytes.Equal(got, want) {
			t.Errorf("%s: reply %s, want %s", name, got, want)
		}
		for _, f := range []string{"CommentEdge.cursor", "CommentEdge.node", "Comment.id", "Comment.title", "Comment.author"} {
			if l.seen[f] != 5 {
				t.Errorf("%s: the middleware saw %s %d times, want 5 (seen: %v)", name, f, l.seen[f], l.seen)
			}
		}
		if l.seen["PageInfo.endCursor"] != 1 {
			t.Errorf("%s: the middleware saw PageInfo.endCursor %d times, want 1", name, l.seen["PageInfo.endCursor"])
		}
	}
}
