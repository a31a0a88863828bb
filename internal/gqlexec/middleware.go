package gqlexec

import (
	"context"
	"reflect"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
)

// noMiddleware is the code of the field middleware gqlgen's executor gives
// an operation when no extension intercepts fields: a function that only
// calls the resolver. It is read from an executor without extensions (the
// operation context is filled in before the empty query is refused).
var noMiddleware = func() uintptr {
	oc, _ := executor.New(nil).CreateOperationContext(graphql.StartOperationTrace(context.Background()), &graphql.RawParams{})
	return reflect.ValueOf(oc.ResolverMiddleware).Pointer()
}()

// runsFieldMiddleware reports whether oc's fields run through any field
// middleware: srv.AroundFields, an extension that is a
// graphql.FieldInterceptor, or an OperationContextMutator that wraps
// oc.ResolverMiddleware. gqlgen composes each into a new closure, so any of
// them makes oc.ResolverMiddleware other code than gqlgen's pass-through;
// no middleware is told apart from another (a tracing span on resolvers
// only counts as much as one that reads every field).
func runsFieldMiddleware(oc *graphql.OperationContext) bool {
	return oc == nil || oc.ResolverMiddleware == nil ||
		reflect.ValueOf(oc.ResolverMiddleware).Pointer() != noMiddleware
}
