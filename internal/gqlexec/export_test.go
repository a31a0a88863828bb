package gqlexec

import "github.com/99designs/gqlgen/graphql"

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
}
