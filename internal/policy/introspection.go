package policy

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// NoIntrospection refuses, as a validation error (HTTP 422,
// GRAPHQL_VALIDATION_FAILED), operations that select __schema or __type
// while introspection is off, rather than letting gqlgen fail the field
// (which the presenter would count as an INTERNAL error). The federation
// SDL (_service) is introspection too and goes with it. __typename stays
// allowed.
type NoIntrospection struct{}

// ExtensionName names the extension for gqlgen.
func (NoIntrospection) ExtensionName() string { return "NoIntrospection" }

// Validate accepts every schema.
func (NoIntrospection) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationContext refuses the operation when it selects
// introspection, through its fragments too.
func (NoIntrospection) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	op := oc.Doc.Operations.ForName(oc.OperationName)
	if op == nil {
		return nil
	}
	seen := map[string]bool{}
	var find func(ss ast.SelectionSet) bool
	find = func(ss ast.SelectionSet) bool {
		for _, sel := range ss {
			switch s := sel.(type) {
			case *ast.Field:
				if s.Name == "__schema" || s.Name == "__type" || s.Name == "_service" {
					return true
				}
			case *ast.InlineFragment:
				if find(s.SelectionSet) {
					return true
				}
			case *ast.FragmentSpread:
				if s.Definition != nil && !seen[s.Name] {
					seen[s.Name] = true
					if find(s.Definition.SelectionSet) {
						return true
					}
				}
			}
		}
		return false
	}
	if find(op.SelectionSet) {
		err := gqlerror.Errorf("introspection is disabled on this server")
		errcode.Set(err, errcode.ValidationFailed)
		return err
	}
	return nil
}
