package resolvers

import (
	"context"
	"time"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/acme/comments-gateway/internal/policy"
	"github.com/acme/comments-gateway/store"
)

// maxBatch matches DynamoDB's BatchGetItem limit: one batch, one call.
const maxBatch = 100

// DefaultLoaderWait is how long a loader collects keys before it reads.
// gqlgen resolves sibling fields and list elements concurrently, so every
// stats lookup of one request lands within this window.
const DefaultLoaderWait = time.Millisecond

// Loaders are the per-operation dataloaders: every stats lookup, comment
// lookup and viewer's vote lookup of one GraphQL operation is batched into
// one BatchGet each. They
// cache for their lifetime, so every operation gets new ones (withLoaders,
// loaderplan.go).
type Loaders struct {
	Stats    Loader[store.StatsID, *store.Stats]
	Comments Loader[string, *store.Comment]
	Votes    Loader[store.VoteID, *bool] // the viewer's votes
	// votesInList is set when the operation asks for viewerVote inside a
	// list: a page's votes are then enqueued at once (primeVotes).
	votesInList bool
}

// newStatsLoader batches stats reads: up to maxBatch keys within wait, or
// with sole set reads its key at once (see loaderplan.go). What each read
// took goes to the request's EXPLAIN (recordStatsReads).
func newStatsLoader(s *store.Store, sole bool, wait time.Duration) Loader[store.StatsID, *store.Stats] {
	return newLoader(func(ctx context.Context, ids []store.StatsID) []*dataloader.Result[*store.Stats] {
		stats, reads, err := s.ReadStats(ctx, ids)
		policy.RecordStatsReads(ctx, ids, reads)
		return results(len(ids), stats, err)
	}, sole, batching[store.StatsID, *store.Stats](wait))
}

// newCommentLoader batches comment reads as newStatsLoader does stats.
func newCommentLoader(s *store.Store, sole bool, wait time.Duration) Loader[string, *store.Comment] {
	return newLoader(func(ctx context.Context, ids []string) []*dataloader.Result[*store.Comment] {
		cs, err := s.GetComments(ctx, ids)
		return results(len(ids), cs, err)
	}, sole, batching[string, *store.Comment](wait))
}

// batching is a batching loader's options: up to maxBatch keys collected
// for wait (DefaultLoaderWait when 0).
func batching[K comparable, V any](wait time.Duration) []dataloader.Option[K, V] {
	wait = policy.PositiveOr(wait, DefaultLoaderWait)
	return []dataloader.Option[K, V]{dataloader.WithBatchCapacity[K, V](maxBatch), dataloader.WithWait[K, V](wait)}
}

// results aligns a batch's values (or its one error) with its keys.
func results[V any](n int, vs []V, err error) []*dataloader.Result[V] {
	out := make([]*dataloader.Result[V], n)
	for i := range out {
		if err != nil {
			out[i] = &dataloader.Result[V]{Error: err}
		} else {
			out[i] = &dataloader.Result[V]{Data: vs[i]}
		}
	}
	return out
}

type loadersKey struct{}

// For returns the request's Loaders (set by NewHandler).
func For(ctx context.Context) *Loaders {
	l, _ := ctx.Value(loadersKey{}).(*Loaders)
	return l
}
