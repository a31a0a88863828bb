// Package gqlexec holds what gqlgen's generated execution calls instead of
// some of gqlgen's own code. graph/generated.go calls MarshalSlice where
// gqlgen writes graphql.MarshalSliceConcurrently, and CommentConnection
// around the generated marshaller of a page of comments (a one-pass writer
// for pages whose selection reads only struct fields): `go generate`
// rewrites the calls (internal/gqlexec/generate).
package gqlexec
