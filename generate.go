package main

// Regenerate graph/ and the resolver stubs in resolvers/ from schema.graphqls
// (configuration in gqlgen.yml), then let the generated lists marshal their
// elements without a goroutine each when nothing can be gained from one
// (package internal/gqlexec).
//go:generate go tool gqlgen generate
//go:generate go run ./internal/gqlexec/rewrite graph/generated.go graph/federation.go

// Then publish the schema and the error codes for client tools
// (schema/schema.graphql, schema/error-codes.json).
//go:generate go run ./cmd/schemagen schema
