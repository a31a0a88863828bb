package main

// Regenerate graph/ and the resolver stubs in resolvers/ from schema.graphqls
// (configuration in gqlgen.yml).
//go:generate go tool gqlgen generate
