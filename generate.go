package main

// Regenerate graph/ and the resolver stubs in resolvers/ from the schema
// (configuration in gqlgen.yml) with `go generate ./...`, the only way:
// internal/gqlexec/generate runs gqlgen through its API, then lets the
// generated lists marshal their elements without a goroutine each and a
// page of comments in one pass where nothing is lost (package
// internal/gqlexec). gqlgen's own command alone would build without them.
//go:generate go run ./internal/gqlexec/generate

// Then publish the schema and the error codes for client tools
// (schema/schema.graphql, schema/error-codes.json).
//go:generate go run ./cmd/schemagen schema
