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
// stats: one BatchGet of the vote items of the comments in a reply.
func newVoteLoader(s *store.Store, sole bool, wait time.Duration) Loader[store.VoteID, *bool] {
	return newLoader(func(ctx context.Context, ids []store.VoteID) []*dataloader.Result[*bool] {
		votes, err := s.GetVotes(ctx, ids)
		return results(len(ids), votes, err)
	}, sole, batching[store.VoteID, *bool](wait))
}

// viewerVote is the request's vote on comment id: nil, with no read, for
// an anonymous request.
func viewerVote(ctx context.Context, id string) (*bool, error) {
	p, _ := auth.FromContext(ctx)
	if p == nil {
		return nil, nil
	}
	return For(ctx).Votes.Load(ctx, store.VoteID{CommentID: id, Voter: p.Identity()})()
}
