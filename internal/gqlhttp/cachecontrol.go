package gqlhttp

import (
	"cmp"
	"context"
	"crypto/sha256"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"
)

// CachePolicy is the HTTP cache policy of a response: how many seconds it may
// be reused and whether only the caller's own cache may keep it. It is
// computed from the @cacheControl hints of schema.graphqls with the rules of
// Apollo Server's cache-control plugin:
//
//   - a field's hint comes from its return type's @cacheControl, overridden
//     by the field's own;
//   - a root field, or a field returning an object, interface or union,
//     without a maxAge counts as maxAge 0 (not reusable) unless it, or its
//     type, says inheritMaxAge: true;
//   - a scalar or enum field without a hint inherits (adds no limit);
//   - the response takes the smallest maxAge and, when any field is PRIVATE,
//     the PRIVATE scope.
//
// The policy is computed from the operation's selection (every field it may
// return, @skip/@include and type conditions ignored), so it never allows more
// than the response actually holds.
type CachePolicy struct {
	// MaxAge is in seconds; 0 means "revalidate every time".
	MaxAge int
	// Private: only the caller's own cache (a browser) may keep the response.
	Private bool
}

// Header is the Cache-Control value of a response with this policy:
// "public, max-age=N", "private, max-age=N", or "no-cache" (with "private, "
// when private) for maxAge 0, which lets a cache keep the response but only
// reuse it after revalidating its ETag.
func (p CachePolicy) Header() string {
	scope := "public"
	if p.Private {
		scope = "private"
	}
	if p.MaxAge <= 0 {
		if p.Private {
			return "private, no-cache"
		}
		return "no-cache"
	}
	return scope + ", max-age=" + strconv.Itoa(p.MaxAge)
}

// cacheHint is one @cacheControl annotation (of a type or a field).
type cacheHint struct {
	maxAge    int
	hasMaxAge bool
	scope     string // "", "PUBLIC" or "PRIVATE"
	inherit   bool
}

// hintOf reads the @cacheControl directive among ds (the zero hint without
// one). As in Apollo Server, inheritMaxAge: true ignores a maxAge given with it.
func hintOf(ds ast.DirectiveList) cacheHint {
	d := ds.ForName("cacheControl")
	if d == nil {
		return cacheHint{}
	}
	var h cacheHint
	if a := d.Arguments.ForName("scope"); a != nil && a.Value != nil && a.Value.Kind == ast.EnumValue {
		h.scope = a.Value.Raw
	}
	if a := d.Arguments.ForName("inheritMaxAge"); a != nil && a.Value != nil && a.Value.Raw == "true" {
		h.inherit = true
		return h
	}
	if a := d.Arguments.ForName("maxAge"); a != nil && a.Value != nil && a.Value.Kind == ast.IntValue {
		if n, err := strconv.Atoi(a.Value.Raw); err == nil && n >= 0 {
			h.maxAge, h.hasMaxAge = n, true
		}
	}
	return h
}

// replace overrides h's maxAge and scope with those set in o.
func (h *cacheHint) replace(o cacheHint) {
	if o.hasMaxAge {
		h.maxAge, h.hasMaxAge = o.maxAge, true
	}
	if o.scope != "" {
		h.scope = o.scope
	}
}

// policyWalk accumulates the most restrictive hint over an operation's fields.
type policyWalk struct {
	schema  *ast.Schema
	policy  CachePolicy
	limited bool               // policy.MaxAge has been set by some field
	seen    map[[2]string]bool // fragment spreads already walked (name, root)
}

// PolicyOf computes the cache policy of op, a validated query of schema.
func PolicyOf(schema *ast.Schema, op *ast.OperationDefinition) CachePolicy {
	w := &policyWalk{schema: schema, seen: map[[2]string]bool{}}
	w.selections(op.SelectionSet, true)
	if !w.limited {
		w.policy.MaxAge = 0
	}
	return w.policy
}

func (w *policyWalk) selections(set ast.SelectionSet, root bool) {
	for _, s := range set {
		switch s := s.(type) {
		case *ast.Field:
			w.field(s, root)
			w.selections(s.SelectionSet, false)
		case *ast.InlineFragment:
			w.selections(s.SelectionSet, root)
		case *ast.FragmentSpread:
			// Restricting is idempotent, so a fragment spread twice at the
			// same level adds nothing the second time (and nested spreads
			// cannot make the walk exponential).
			k := [2]string{s.Name, strconv.FormatBool(root)}
			if s.Definition == nil || w.seen[k] {
				continue
			}
			w.seen[k] = true
			w.selections(s.Definition.SelectionSet, root)
		}
	}
}

// field restricts the policy by f's hint (Apollo's willResolveField).
func (w *policyWalk) field(f *ast.Field, root bool) {
	if f.Definition == nil {
		w.restrict(cacheHint{hasMaxAge: true})
		return
	}
	var h cacheHint
	inherit := false
	def := w.schema.Types[f.Definition.Type.Name()]
	composite := def != nil && (def.Kind == ast.Object || def.Kind == ast.Interface || def.Kind == ast.Union)
	if composite {
		th := hintOf(def.Directives)
		h.replace(th)
		inherit = th.inherit
	}
	fh := hintOf(f.Definition.Directives)
	if fh.inherit && !h.hasMaxAge {
		inherit = true
		h.scope = cmp.Or(fh.scope, h.scope)
	} else {
		h.replace(fh)
	}
	if !h.hasMaxAge && ((composite && !inherit) || root) {
		h.maxAge, h.hasMaxAge = 0, true
	}
	w.restrict(h)
}

func (w *policyWalk) restrict(h cacheHint) {
	if h.hasMaxAge && (!w.limited || h.maxAge < w.policy.MaxAge) {
		w.policy.MaxAge, w.limited = h.maxAge, true
	}
	if h.scope == "PRIVATE" {
		w.policy.Private = true
	}
}

// policyCache memoizes PolicyOf by document and operation name, so a
// document's policy is computed once, not per request.
type policyCache struct {
	schema *ast.Schema
	cache  *lru.LRU[CachePolicy]
}

// policyCacheSize is how many documents' policies are kept (as many as the
// parsed-query cache keeps documents).
const policyCacheSize = 1000

func newPolicyCache(schema *ast.Schema) *policyCache {
	return &policyCache{schema: schema, cache: lru.New[CachePolicy](policyCacheSize)}
}

// of returns the policy of the operation of oc (a query). The key is a
// hash of the document and the operation name, so the cache's memory does
// not grow with the documents' length.
func (c *policyCache) of(ctx context.Context, oc *graphql.OperationContext) CachePolicy {
	h := sha256.New()
	h.Write([]byte(oc.OperationName))
	h.Write([]byte{0})
	h.Write([]byte(oc.RawQuery))
	key := string(h.Sum(nil))
	if p, ok := c.cache.Get(ctx, key); ok {
		return p
	}
	p := PolicyOf(c.schema, oc.Operation)
	c.cache.Add(ctx, key, p)
	return p
}
