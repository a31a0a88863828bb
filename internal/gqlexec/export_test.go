package gqlexec

// ForceGenerated makes CommentConnection use the generated marshaller (on)
// or its one pass where it can (off).
func ForceGenerated(on bool) { forceGenerated.Store(on) }

// OnePassPages is how many pages CommentConnection wrote itself.
func OnePassPages() int64 { return onePassPages.Load() }

// Implementors are the implementor lists CommentConnection collects each
// object's fields with, by object type.
var Implementors = map[string][]string{
	"CommentConnection": connectionImplementors, "CommentEdge": edgeImplementors,
	"Comment": commentImplementors, "PageInfo": pageInfoImplementors,
}
