// Command schemagen writes what the gateway publishes for client tools into
// a directory (go generate: schema/): schema.graphql, the SDL the server
// serves at /graphql/schema.graphql, and error-codes.json, every
// extensions.code (package resolvers: SDL, ErrorCodesJSON).
//
//	go run ./cmd/schemagen schema
package main
