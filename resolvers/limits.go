package resolvers

import (
	"context"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/acme/comments-gateway/graph"
	"github.com/acme/comments-gateway/store"
)

// Default limits on one request. Each is a field of Limits; a zero field
// takes its default.
const (
	DefaultMaxBodyBytes  = 1 << 20 // 1 MiB
	DefaultMaxComplexity = 10_000
	DefaultMaxDepth      = 10
	DefaultMaxAliases    = 100
	DefaultMaxTokens     = 10_000
)

// Error codes of refused requests (HTTP 4xx; nothing is read from the store).
const (
	CodeComplexity = "COMPLEXITY_LIMIT_EXCEEDED"
	CodeDepth      = "DEPTH_LIMIT_EXCEEDED"
	CodeAliases    = "ALIAS_LIMIT_EXCEEDED"
)

func init() {
	// Refused operations are protocol errors: gqlgen answers them with a 4xx.
	errcode.RegisterErrorType(CodeComplexity, errcode.KindProtocol)
	errcode.RegisterErrorType(CodeDepth, errcode.KindProtocol)
	errcode.RegisterErrorType(CodeAliases, errcode.KindProtocol)
}

// Limits bound what one request may ask for.
type Limits struct {
	MaxBodyBytes  int64 // request body
	MaxComplexity int   // gqlgen complexity, with connection multipliers (see complexity)
	MaxDepth      int   // selection-set depth, fragments expanded
	MaxAliases    int   // aliased fields in the operation
	MaxTokens     int   // lexer tokens of the query text
}

func (l Limits) withDefaults() Limits {
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if l.MaxComplexity <= 0 {
		l.MaxComplexity = DefaultMaxComplexity
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxAliases <= 0 {
		l.MaxAliases = DefaultMaxAliases
	}
	if l.MaxTokens <= 0 {
		l.MaxTokens = DefaultMaxTokens
	}
	return l
}

// complexity makes list fields cost what they may return: a comments
// connection costs its page size (first or last, 20 by default, values out
// of range counted at the maximum) times its selection, topProducts its
// `first` times its selection.
func complexity() graph.ComplexityRoot {
	var c graph.ComplexityRoot
	c.Product.Comments = func(child int, _ *string, _ []int, first *int, _ *string, last *int, _ *string) int {
		n := store.DefaultPageSize
		switch {
		case first != nil:
			n = *first
		case last != nil:
			n = *last
		}
		if n < 0 || n > store.MaxPageSize {
			n = store.MaxPageSize
		}
		return 1 + max(n, 1)*child
	}
	c.Query.TopProducts = func(child int, first *int, _ *string) int {
		n := 10
		if first != nil {
			n = *first
		}
		if n < 0 || n > store.MaxTopProducts {
			n = store.MaxTopProducts
		}
		return 1 + max(n, 1)*child
	}
	return c
}

// shapeLimit refuses operations nested deeper than maxDepth or with more
// than maxAliases aliased fields, before anything runs. Fragment cycles are
// refused earlier by validation.
type shapeLimit struct{ maxDepth, maxAliases int }

func (shapeLimit) ExtensionName() string                   { return "ShapeLimit" }
func (shapeLimit) Validate(graphql.ExecutableSchema) error { return nil }
func (s shapeLimit) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	op := oc.Doc.Operations.ForName(oc.OperationName)
	if op == nil {
		return nil
	}
	aliases := 0
	var walk func(ss ast.SelectionSet, depth int) int
	walk = func(ss ast.SelectionSet, depth int) int {
		deepest := depth
		for _, sel := range ss {
			switch s := sel.(type) {
			case *ast.Field:
				if s.Alias != "" && s.Alias != s.Name {
					aliases++
				}
				// Introspection (GraphiQL's schema query is 11 levels deep)
				// is bounded by the schema itself, not by the client.
				if len(s.SelectionSet) > 0 && !strings.HasPrefix(s.Name, "__") {
					deepest = max(deepest, walk(s.SelectionSet, depth+1))
				}
			case *ast.InlineFragment:
				deepest = max(deepest, walk(s.SelectionSet, depth))
			case *ast.FragmentSpread:
				if s.Definition != nil {
					deepest = max(deepest, walk(s.Definition.SelectionSet, depth))
				}
			}
			if deepest > s.maxDepth {
				return deepest // enough to refuse; stop walking
			}
		}
		return deepest
	}
	if d := walk(op.SelectionSet, 1); d > s.maxDepth {
		err := gqlerror.Errorf("the operation is nested %d levels deep or more; the limit is %d", d, s.maxDepth)
		errcode.Set(err, CodeDepth)
		return err
	}
	if aliases > s.maxAliases {
		err := gqlerror.Errorf("the operation has %d aliased fields; the limit is %d", aliases, s.maxAliases)
		errcode.Set(err, CodeAliases)
		return err
	}
	return nil
}
