// Command rewrite makes gqlgen's generated execution (the files given as
// arguments) call gqlexec.MarshalSlice instead of
// graphql.MarshalSliceConcurrently. `go generate` runs it after gqlgen (see
// generate.go); running it twice changes nothing.
package main
