package resolvers

import (
	"context"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/acme/comments-gateway/graph/model"
	"github.com/acme/comments-gateway/nodeid"
	"github.com/acme/comments-gateway/store"
)

// MaxNodeIDs is the most ids one Query.nodes takes: one BatchGetItem's worth
// of comments (maxBatch). More is a BAD_USER_INPUT error.
const MaxNodeIDs = maxBatch

// loadNodes resolves global ids to the objects they name, in the order of
// gids and as many: a Product for any valid product id (as Query.product),
// a Comment through the request's comment loader (every comment of the
// request in one batched read), nil for an unknown or malformed id. Only a
// failed read is an error.
func loadNodes(ctx context.Context, gids []string) ([]nodeid.Node, error) {
	out := make([]nodeid.Node, len(gids))
	type pending struct {
		at    int
		thunk dataloader.Thunk[*store.Comment]
	}
	var comments []pending
	for i, gid := range gids {
		ref, ok := nodeid.Parse(gid)
		switch {
		case !ok:
		case ref.Type == nodeid.Product:
			out[i] = &model.Product{ID: ref.ID}
		case ref.Type == nodeid.Comment:
			// Load queues the id; the loader reads once its batch is full
			// or its wait is over, so every id is queued before any thunk
			// blocks.
			comments = append(comments, pending{i, For(ctx).Comments.Load(ctx, ref.ID)})
		}
	}
	for _, p := range comments {
		c, err := p.thunk()
		if err != nil {
			return nil, err
		}
		if c = visible(ctx, c); c != nil { // a nil *store.Comment would be a non-nil Node
			out[p.at] = c
		}
	}
	return out, nil
}

// checkNodeIDs refuses a Query.nodes list longer than MaxNodeIDs.
func checkNodeIDs(gids []string) error {
	if len(gids) > MaxNodeIDs {
		return store.Errorf(store.EINVALID, "ids: at most %d ids, got %d", MaxNodeIDs, len(gids))
	}
	return nil
}
