// Command rewrite makes gqlgen's generated execution (the files given as
// arguments) call package gqlexec where gqlgen's own code is slower than it
// needs to be: gqlexec.MarshalSlice instead of
// graphql.MarshalSliceConcurrently, and gqlexec.CommentConnection around
// the generated marshaller of a page of comments. `go generate` runs it
// after gqlgen (see generate.go); running it twice changes nothing.
package main
