package gqlexec_test

import (
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/acme/comments-gateway/internal/gqlexec"
)

// TestPagePlansKeptWithoutDirectives: a page's plan is kept for the next
// request of its document exactly when no directive in its selection
// (fragments included) reads the request; the replies of both kinds are
// compared with gqlgen's in TestCommentConnectionMatchesGenerated, which
// sends each document twice with other variables.
func TestPagePlansKeptWithoutDirectives(t *testing.T) {
	kept := map[string]bool{"page": true, "all fields": true, "aliases": true, "typename": true, "fragments": true,
		"merged fields": true, "skip and include": false, "defer": false, "viewerVote (generated)": true}
	for _, c := range connectionCases {
		want, ok := kept[c.name]
		if !ok {
			continue
		}
		oc := operation(t, c.query, map[string]any{"p": "p1", "yes": true, "no": false})
		sel := pageSelection(oc.Operation.SelectionSet)
		if sel == nil {
			t.Fatalf("%s: no Product.comments", c.name)
		}
		for i := range 2 {
			if got := gqlexec.PlanKept(oc, sel); got != want {
				t.Errorf("%s (call %d): kept %v, want %v", c.name, i, got, want)
			}
		}
	}
}

// pageSelection is the selection set of the first Product.comments in set.
func pageSelection(set ast.SelectionSet) ast.SelectionSet {
	for _, s := range set {
		f, ok := s.(*ast.Field)
		if !ok {
			continue
		}
		if f.ObjectDefinition != nil && f.ObjectDefinition.Name == "Product" && f.Name == "comments" {
			return f.SelectionSet
		}
		if sub := pageSelection(f.SelectionSet); sub != nil {
			return sub
		}
	}
	return nil
}
