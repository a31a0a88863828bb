package gqlexec

import (
	"slices"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// OnePass reports whether m, what CommentConnection returned, is its own
// one-pass marshaller rather than the generated one's.
func OnePass(m graphql.Marshaler) bool {
	_, ok := m.(*connectionJSON)
	return ok
}

// Implementors are the implementor lists CommentConnection collects each
// object's fields with, by object type.
var Implementors = map[string][]string{
	"CommentConnection": connectionImplementors, "CommentEdge": edgeImplementors,
	"Comment": commentImplementors, "PageInfo": pageInfoImplementors,
	"Query": queryImplementors, "Product": productImplementors,
}

// PlanKept plans the page of sel as CommentConnection does and reports
// whether its plan is kept for the next request of the document.
func PlanKept(oc *graphql.OperationContext, sel ast.SelectionSet) bool {
	connectionPlans.plan(oc, sel, connectionPlan)
	ids, _ := nodeIDs(sel)
	connectionPlans.mu.RLock()
	defer connectionPlans.mu.RUnlock()
	cp, kept := connectionPlans.plans[planKey{first: ids[0], n: len(ids)}]
	return kept && slices.Equal(cp.nodes, ids)
}

// PageOperation reports whether PageQuery runs oc's operation itself.
func PageOperation(oc *graphql.OperationContext) bool {
	_, ok := planPage(oc)
	return ok
}

// OnlyField is onlyField for any name: the one field sel selects on an
// object of type typ.
func OnlyField(oc *graphql.OperationContext, sel ast.SelectionSet, typ string) graphql.CollectedField {
	f, _ := onlyField(oc, sel, Implementors[typ], "")
	return f
}
