// Package gqlexec holds what gqlgen's generated execution calls instead of
// some of gqlgen's own helpers. graph/generated.go calls MarshalSlice where
// gqlgen writes graphql.MarshalSliceConcurrently: `go generate` rewrites the
// calls (cmd: internal/gqlexec/rewrite).
package gqlexec
