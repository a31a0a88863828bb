package resolvers

import (
	"context"
	"time"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/internal/policy"
	"github.com/acme/comments-gateway/store"
)

// Helpful votes at the edge (docs/design.md §13): who votes, and the
// viewer's own votes. Counting them is the store's (store.VoteComment).

// voter is the identity a vote of the request counts under: one per JWT
// subject and one per API key (auth.Principal.Identity). A request
// without a credential is UNAUTHENTICATED.
func voter(ctx context.Context) (string, error) {
	p, _ := auth.FromContext(ctx)
	if p == nil {
		return "", gqlhttp.Coded(policy.CodeUnauthenticated, "voteComment needs a credential: Authorization: Bearer <token>")
	}
	return p.Identity(), nil
}

// newVoteLoader batches the viewer's vote reads as newStatsLoader does
// stats: the vote items of the comments in a reply, one Query per product
// (store.Store.GetVotes).
func newVoteLoader(s *store.Store, sole bool, wait time.Duration) Loader[store.VoteID, *bool] {
	return newLoader(func(ctx context.Context, ids []store.VoteID) []*dataloader.Result[*bool] {
		votes, err := s.GetVotes(ctx, ids)
		return results(len(ids), votes, err)
	}, sole, batching[store.VoteID, *bool](wait))
}

// viewerVote is the request's vote on comment c: nil, with no read, for
// an anonymous request.
func viewerVote(ctx context.Context, c *store.Comment) (*bool, error) {
	p, _ := auth.FromContext(ctx)
	if p == nil {
		return nil, nil
	}
	return For(ctx).Votes.Load(ctx, store.VoteID{ProductID: c.ProductID, CommentID: c.ID, Voter: p.Identity()})()
}

// primeVotes enqueues the viewer's votes on a page's comments in one call,
// before the page's viewerVote fields ask for them one by one: those run
// concurrently and, on a loaded machine, can straddle two batching
// windows (two reads where one does). It reads nothing for an anonymous
// caller or an operation without viewerVote in a list.
func primeVotes(ctx context.Context, conn *store.Connection) {
	l := For(ctx)
	p, _ := auth.FromContext(ctx)
	if l == nil || !l.votesInList || p == nil {
		return
	}
	voter := p.Identity()
	for _, e := range conn.Edges {
		l.Votes.Load(ctx, store.VoteID{ProductID: e.Comment.ProductID, CommentID: e.Comment.ID, Voter: voter})
	}
}
