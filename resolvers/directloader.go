package resolvers

import (
	"context"

	"github.com/graph-gophers/dataloader/v7"
)

// Loader is what resolvers call on a Loaders field: a dataloader, or, when
// the operation can reach it with one key at most (loaderplan.go), a
// directLoader.
type Loader[K comparable, V any] interface {
	Load(ctx context.Context, key K) dataloader.Thunk[V]
}

// directLoader reads its key at once, on the caller's goroutine: no batch,
// no timer, no goroutine, for a loader that no second key can reach.
type directLoader[K comparable, V any] struct {
	fetch dataloader.BatchFunc[K, V]
}

// Load reads key now and returns its result.
func (d directLoader[K, V]) Load(ctx context.Context, key K) dataloader.Thunk[V] {
	var r *dataloader.Result[V]
	if rs := d.fetch(ctx, []K{key}); len(rs) == 1 && rs[0] != nil {
		r = rs[0]
	} else {
		var zero V
		r = &dataloader.Result[V]{Data: zero}
	}
	return func() (V, error) { return r.Data, r.Error }
}

// newLoader is a dataloader over fetch that batches keys (batching), or a
// directLoader when sole.
func newLoader[K comparable, V any](fetch dataloader.BatchFunc[K, V], sole bool, opts []dataloader.Option[K, V]) Loader[K, V] {
	if sole {
		return directLoader[K, V]{fetch: fetch}
	}
	return dataloader.NewBatchedLoader(fetch, opts...)
}
