package complexity

import (
	"github.com/acme/comments-gateway/graph"
	"github.com/acme/comments-gateway/graph/model"
	"github.com/acme/comments-gateway/store"
)

// Root makes list fields cost what they may return: a comments
// connection costs its stats read (StatsShards items) and its page size
// (first or last, 20 by default, values out of range counted at the
// maximum) times its selection, languages its `first` times the larger of
// a language's shards and its selection, stats its shards, topProducts the
// items it may read (store.TopProductsReads) and its `first` times its
// selection, nodes its number of ids times its selection, viewerVote the
// viewer's vote item, and mutations count the items they read. (_entities,
// whose cost gqlgen keeps unexported, is costed by package cost.) The gateway keeps to one rule with these: an
// operation reads at most as many items as its complexity.
func Root() graph.ComplexityRoot {
	var c graph.ComplexityRoot
	c.Product.Comments = func(child int, _ *model.CommentOrder, _ *string, _ []int, first *int, _ *string, last *int, _ *string) int {
		if first == nil {
			first = last
		}
		return 1 + store.StatsShards + max(pageSize(first, store.DefaultPageSize, store.MaxPageSize), 1)*child
	}
	// A stats read sums the StatsShards counter shards of its product and
	// language; languages reads them for each language it returns.
	c.Product.Stats = func(child int, _ *string) int {
		return store.StatsShards + child
	}
	c.Product.Languages = func(child int, first *int) int {
		n := pageSize(first, store.DefaultLanguages, store.MaxLanguages)
		return 1 + max(n, 1)*max(store.StatsShards, child)
	}
	// A mutation costs the items one attempt reads besides its selection
	// (the owner check is a condition of the write: it reads nothing).
	c.Mutation.CreateComment = func(child int, _ model.CreateCommentInput) int {
		return 1 + store.CreateCommentReads + child
	}
	c.Mutation.UpdateComment = func(child int, _ model.UpdateCommentInput) int {
		return 1 + store.UpdateCommentReads + child
	}
	c.Mutation.DeleteComment = func(child int, _ model.DeleteCommentInput) int {
		return 1 + store.DeleteCommentReads + child
	}
	c.Mutation.VoteComment = func(child int, _ model.VoteCommentInput) int {
		return 1 + store.VoteCommentReads + child
	}
	// viewerVote reads the viewer's vote item (none when anonymous).
	c.Comment.ViewerVote = func(int) int { return 1 + 1 }
	c.Query.TopProducts = func(child int, first *int, _ *string) int {
		n := pageSize(first, 10, store.MaxTopProducts)
		return 1 + store.TopProductsReads(n) + max(n, 1)*child
	}
	// nodes: each id may be a node, so the list costs as many selections.
	c.Query.Nodes = func(child int, ids []string) int {
		return 1 + max(len(ids), 1)*child
	}
	return c
}

// pageSize is a list's page size argument, def when absent, counted at
// maxN when out of range (the resolver refuses it).
func pageSize(first *int, def, maxN int) int {
	n := def
	if first != nil {
		n = *first
	}
	if n < 0 || n > maxN {
		n = maxN
	}
	return n
}
