package gqlexec

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
)

type sequentialKey struct{}

// Sequential marks ctx's operation as one whose lists gain nothing from
// marshalling their elements concurrently: no element can do I/O, or wait
// for a loader batch that other elements would join. MarshalSlice then
// marshals the elements one after another on the calling goroutine instead
// of starting a goroutine per element (whose stacks grow through gqlgen's
// deep call chains on every request).
func Sequential(ctx context.Context) context.Context {
	return context.WithValue(ctx, sequentialKey{}, true)
}

// MarshalSlice is graphql.MarshalSliceConcurrently, except that in an
// operation marked Sequential it marshals the elements one after another.
// The results are the same: each element gets a FieldContext with its
// Index, and a panic in one is recovered into an error on its path and
// makes the list null.
func MarshalSlice(ctx context.Context, length int, workerLimit int64, omitPanicHandler bool,
	marshalElement func(ctx context.Context, i int) graphql.Marshaler) graphql.Array {
	if length <= 1 || ctx.Value(sequentialKey{}) == nil {
		return graphql.MarshalSliceConcurrently(ctx, length, workerLimit, omitPanicHandler, marshalElement)
	}
	ret := make(graphql.Array, length)
	for i := range length {
		childCtx := graphql.WithFieldContext(ctx, &graphql.FieldContext{Index: &i})
		if !marshalOne(childCtx, ret, i, omitPanicHandler, marshalElement) {
			return nil
		}
	}
	return ret
}

// marshalOne marshals element i into ret; false when it panicked.
func marshalOne(ctx context.Context, ret graphql.Array, i int, omitPanicHandler bool,
	marshalElement func(ctx context.Context, i int) graphql.Marshaler) (ok bool) {
	if !omitPanicHandler {
		defer func() {
			if r := recover(); r != nil {
				graphql.AddError(ctx, graphql.Recover(ctx, r))
				ok = false
			}
		}()
	}
	ret[i] = marshalElement(ctx, i)
	return true
}
