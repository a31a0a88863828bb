package gqlexec

import (
	"bytes"
	"context"
	"strconv"
	"testing"

	"github.com/99designs/gqlgen/graphql"
)

// TestMarshalSlice checks that the sequential path gives each element its
// own index, in order, and that a panic becomes an error on the element's
// path and a null list, as gqlgen's concurrent path does.
func TestMarshalSlice(t *testing.T) {
	for _, seq := range []bool{false, true} {
		ctx := graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter, graphql.DefaultRecover)
		ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Field: graphql.CollectedField{}})
		if seq {
			ctx = Sequential(ctx)
		}
		got := MarshalSlice(ctx, 5, 0, false, func(ctx context.Context, i int) graphql.Marshaler {
			if idx := *graphql.GetFieldContext(ctx).Index; idx != i {
				t.Errorf("sequential=%v: element %d has index %d", seq, i, idx)
			}
			return graphql.MarshalString(strconv.Itoa(i))
		})
		var b bytes.Buffer
		got.MarshalGQL(&b)
		if want := `["0","1","2","3","4"]`; b.String() != want {
			t.Errorf("sequential=%v: %s, want %s", seq, b.String(), want)
		}
		got = MarshalSlice(ctx, 3, 0, false, func(ctx context.Context, i int) graphql.Marshaler {
			if i == 1 {
				panic("boom")
			}
			return graphql.Null
		})
		if got != nil {
			t.Errorf("sequential=%v: a panicking element gave %v, want a null list", seq, got)
		}
		if errs := graphql.GetErrors(ctx); len(errs) != 1 || len(errs[0].Path) == 0 {
			t.Errorf("sequential=%v: errors %v, want one on the element's path", seq, errs)
		}
	}
}
