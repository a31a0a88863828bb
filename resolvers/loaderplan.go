package resolvers

import (
	"context"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/acme/comments-gateway/internal/gqlexec"
	"github.com/acme/comments-gateway/store"
)

// A loader waits LoaderWait for other keys to join its batch. When the
// operation has at most one field that can load through it, and that field
// is not inside a list, no other key can ever come, so the wait is pure
// latency: such a loader dispatches its one key at once (batch capacity 1).
// loadSites counts, in an operation's validated selection set (fragments
// expanded, @skip/@include ignored, so an upper bound), the fields that load
// through each loader; a field inside a list counts as many.

// loadSites counts an operation's load sites per loader; "many" is 2.
// listIO counts the fields inside a list that read the store (through a
// loader or not): when there is none, the elements of the operation's lists
// are marshalled one after another (gqlexec.Sequential), since running them
// concurrently could neither overlap I/O nor fill a batch.
type loadSites struct {
	stats, comments, votes int
	listIO                 int
	visited                int // selections walked (a bound against fragment fan-out)
}

// maxPlanVisits bounds the walk; an operation larger than this is "many".
const maxPlanVisits = 2000

// planLoads counts op's load sites.
func planLoads(op *ast.OperationDefinition) loadSites {
	var k loadSites
	if op != nil {
		k.walk(op.SelectionSet, false)
	}
	return k
}

// done reports whether both loaders already need their batching window.
func (k *loadSites) done() bool {
	return (k.stats >= 2 && k.comments >= 2 && k.votes >= 2) || k.visited > maxPlanVisits
}

func (k *loadSites) walk(set ast.SelectionSet, inList bool) {
	for _, sel := range set {
		if k.done() {
			return
		}
		k.visited++
		switch s := sel.(type) {
		case *ast.Field:
			if s.Definition == nil || s.ObjectDefinition == nil {
				continue // __typename
			}
			n := 1
			if inList {
				n = 2
			}
			switch s.ObjectDefinition.Name + "." + s.Name {
			case "Product.comments", "Product.stats":
				k.stats += n
				k.listIO += n - 1
			case "Product.languages":
				k.listIO += n - 1
			case "Comment.viewerVote":
				k.votes += n
				k.listIO += n - 1
			case "Query.comment", "Query.node":
				k.comments += n
			case "Query.nodes", "Query._entities":
				k.comments += 2 // many keys from one resolver
			}
			k.walk(s.SelectionSet, inList || s.Definition.Type.Elem != nil)
		case *ast.FragmentSpread:
			if s.Definition != nil {
				k.walk(s.Definition.SelectionSet, inList)
			}
		case *ast.InlineFragment:
			k.walk(s.SelectionSet, inList)
		}
	}
	if k.visited > maxPlanVisits {
		k.stats, k.comments, k.votes, k.listIO = 2, 2, 2, 1
	}
}

// newLoaders returns an operation's Loaders, batching each lookup, except
// that a loader the operation can reach with one key at most (k) reads it at
// once.
func newLoaders(s *store.Store, wait time.Duration, k loadSites) *Loaders {
	return &Loaders{Stats: newStatsLoader(s, k.stats <= 1, wait), Comments: newCommentLoader(s, k.comments <= 1, wait),
		Votes: newVoteLoader(s, k.votes <= 1, wait), votesInList: k.votes >= 2}
}

// withLoaders gives each operation its Loaders (newLoaders) and, when no list
// in it can read the store, marshals its lists in place (gqlexec).
func withLoaders(s *store.Store, wait time.Duration) graphql.OperationMiddleware {
	return func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		op := graphql.GetOperationContext(ctx).Operation
		k := planLoads(op)
		if k.listIO == 0 && k.visited <= maxPlanVisits {
			ctx = gqlexec.Sequential(ctx)
		}
		return next(context.WithValue(ctx, loadersKey{}, newLoaders(s, wait, k)))
	}
}
