package gqlexec

import (
	"slices"
	"sync"
	"weak"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// A page's plan (planObject) is the same on every request of one
// document unless a directive in it (@skip, @include, @defer) reads the
// request's variables, and gqlgen's query cache hands every request of a
// document the same parsed nodes. So the plan of a connection's selection
// without directives is made once and kept: collecting the fields again
// was about 36 allocations and 2% of a page request's CPU. gqlgen gives
// the connection a new selection slice on each request (the selections of
// every occurrence of the field, merged), so a plan is known by the nodes
// the slice holds: keyed by the first, checked against all. Nodes are held
// weakly: a document evicted from the query cache is collected as before,
// and a new node at its address is another node (weak.Pointer compares
// objects, not addresses). A selection with a directive is planned on
// each request.

// maxPlans bounds the plans kept; when full, the cache starts over (a
// client sending many documents costs the planning it always did).
const maxPlans = 4096

// planKey is a selection: its first node and its length.
type planKey struct {
	first any // nodeID
	n     int
}

// cachedPlan is a kept plan and the nodes of its selection; ok false: the
// selection is not one pass's.
type cachedPlan struct {
	nodes  []any
	fields []plannedField
	ok     bool
}

// planCache holds the plans of selections without directives.
type planCache struct {
	mu    sync.RWMutex
	plans map[planKey]cachedPlan
}

var connectionPlans = &planCache{plans: map[planKey]cachedPlan{}}

// nodeID is a selection node's identity, a weak pointer (nil for a kind
// of node gqlparser does not have).
func nodeID(s ast.Selection) any {
	switch s := s.(type) {
	case *ast.Field:
		return weak.Make(s)
	case *ast.InlineFragment:
		return weak.Make(s)
	case *ast.FragmentSpread:
		return weak.Make(s)
	}
	return nil
}

// nodeIDs are the identities of sel's nodes; false if one has none.
func nodeIDs(sel ast.SelectionSet) ([]any, bool) {
	ids := make([]any, len(sel))
	for i, s := range sel {
		if ids[i] = nodeID(s); ids[i] == nil {
			return nil, false
		}
	}
	return ids, true
}

// plan is planObject(oc, sel, p), kept for sel's nodes when no directive
// in them depends on the request. The fields returned are shared: never
// changed.
func (c *planCache) plan(oc *graphql.OperationContext, sel ast.SelectionSet, p *objectPlan) ([]plannedField, bool) {
	ids, known := nodeIDs(sel)
	if !known || len(ids) == 0 {
		return planObject(oc, sel, p)
	}
	key := planKey{first: ids[0], n: len(ids)}
	c.mu.RLock()
	cp, hit := c.plans[key]
	c.mu.RUnlock()
	if hit && slices.Equal(cp.nodes, ids) {
		return cp.fields, cp.ok
	}
	fields, ok := planObject(oc, sel, p)
	if hasDirectives(oc.Doc, sel, 0) {
		return fields, ok
	}
	c.mu.Lock()
	if len(c.plans) >= maxPlans {
		clear(c.plans)
	}
	c.plans[key] = cachedPlan{nodes: ids, fields: fields, ok: ok}
	c.mu.Unlock()
	return fields, ok
}

// maxFragmentDepth bounds hasDirectives' walk through fragment spreads
// (validation refuses cycles; a deeper document is planned each time).
const maxFragmentDepth = 32

// hasDirectives reports whether sel, with the fragments it spreads (found
// in doc), holds a directive anywhere, or is too deep to tell.
func hasDirectives(doc *ast.QueryDocument, sel ast.SelectionSet, depth int) bool {
	if depth > maxFragmentDepth {
		return true
	}
	for _, s := range sel {
		switch s := s.(type) {
		case *ast.Field:
			if len(s.Directives) > 0 || hasDirectives(doc, s.SelectionSet, depth) {
				return true
			}
		case *ast.InlineFragment:
			if len(s.Directives) > 0 || hasDirectives(doc, s.SelectionSet, depth) {
				return true
			}
		case *ast.FragmentSpread:
			if len(s.Directives) > 0 {
				return true
			}
			def := s.Definition
			if def == nil && doc != nil {
				def = doc.Fragments.ForName(s.Name)
			}
			if def == nil || len(def.Directives) > 0 || hasDirectives(doc, def.SelectionSet, depth+1) {
				return true
			}
		default:
			return true
		}
	}
	return false
}
