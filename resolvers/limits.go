package resolvers

import (
	"github.com/99designs/gqlgen/graphql/errcode"

	"github.com/acme/comments-gateway/graph"
	"github.com/acme/comments-gateway/graph/model"
	"github.com/acme/comments-gateway/store"
)

// Default limits on one request. Each is a field of Limits; a zero field
// takes its default.
const (
	DefaultMaxBodyBytes  = 1 << 20 // 1 MiB
	DefaultMaxComplexity = 18_000  // in items read: a stats read is StatsShards items
	DefaultMaxDepth      = 10
	DefaultMaxAliases    = 100
	DefaultMaxTokens     = 10_000
	DefaultMaxSelections = 1_000
	DefaultMaxEntities   = 100
)

func init() {
	// Refused operations are protocol errors: gqlgen answers them with a 4xx.
	errcode.RegisterErrorType(CodeComplexity, errcode.KindProtocol)
	errcode.RegisterErrorType(CodeDepth, errcode.KindProtocol)
	errcode.RegisterErrorType(CodeAliases, errcode.KindProtocol)
	errcode.RegisterErrorType(CodeSelections, errcode.KindProtocol)
	errcode.RegisterErrorType(CodeEntities, errcode.KindProtocol)
}

// Limits bound what one request may ask for.
type Limits struct {
	MaxBodyBytes  int64 // request body
	MaxComplexity int   // gqlgen complexity, with list multipliers (see complexity)
	MaxDepth      int   // selection-set depth, fragments expanded
	MaxAliases    int   // aliased fields in the operation, fragments expanded
	MaxTokens     int   // lexer tokens of the query text
	// MaxSelections bounds the fields of the document once its fragments
	// are expanded (every operation and fragment definition): what
	// validation's field merging, quadratic in them, would face.
	MaxSelections int
	MaxEntities   int // _entities representations per request
}

// withDefaults gives each zero field its default.
func (l Limits) withDefaults() Limits {
	l.MaxBodyBytes = positiveOr(l.MaxBodyBytes, DefaultMaxBodyBytes)
	l.MaxComplexity = positiveOr(l.MaxComplexity, DefaultMaxComplexity)
	l.MaxDepth = positiveOr(l.MaxDepth, DefaultMaxDepth)
	l.MaxAliases = positiveOr(l.MaxAliases, DefaultMaxAliases)
	l.MaxTokens = positiveOr(l.MaxTokens, DefaultMaxTokens)
	l.MaxSelections = positiveOr(l.MaxSelections, DefaultMaxSelections)
	l.MaxEntities = positiveOr(l.MaxEntities, DefaultMaxEntities)
	return l
}

// complexity makes list fields cost what they may return: a comments
// connection costs its stats read (StatsShards items) and its page size
// (first or last, 20 by default, values out of range counted at the
// maximum) times its selection, languages its `first` times the larger of
// a language's shards and its selection, stats its shards, topProducts the
// items it may read (store.TopProductsReads) and its `first` times its
// selection, nodes its number of ids times its selection, and mutations
// count the items they read. (_entities, whose cost gqlgen keeps unexported, is
// costed by package cost.) The gateway keeps to one rule with these: an
// operation reads at most as many items as its complexity.
func complexity() graph.ComplexityRoot {
	var c graph.ComplexityRoot
	c.Product.Comments = func(child int, _ *string, _ []int, first *int, _ *string, last *int, _ *string) int {
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
