// Package resolvers is the GraphQL service of the gateway: the HTTP handler
// (NewHandler), the resolvers gqlgen calls, their dataloaders and the
// conversions between the store's types and the schema's.
//
// A request flows through NewHandler (handler.go), which lists the whole
// /graphql chain in one function: the HTTP edge (package gqlhttp:
// methods, content types, the body limit and read deadline, UTF-8,
// transports, HTTP caching), the operation policy (package policy:
// credentials, in-flight caps, the rate limit and the charge for
// refusals, EXPLAIN, introspection control, the one-pass cost analysis
// before validation, the query caches, the mutation guard), trusted
// documents (package trusted) and the live transport (package livehttp,
// given what it needs in livewire.go). The schema's complexity functions
// are package complexity's. Inside gqlgen's server each operation gets
// its dataloaders (loaders.go, loaderplan.go).
//
// Resolvers stay thin (schema.resolvers.go, entity.resolvers.go): they parse
// and validate arguments with the store's functions, call a dataloader or
// the store.Store, and return store errors as they are. All stats lookups
// of one request become one BatchGet through the Stats loader, all
// comment(id) lookups one through the Comments loader. Errors are translated
// once, by ErrorPresenter: a store error code becomes extensions.code
// (storeCodes), anything without a code is logged and shown as INTERNAL with
// the request id. Codes of refusals (the policy's UNAUTHENTICATED,
// FORBIDDEN, the limits' codes and THROTTLED, the HTTP edge's, the
// subscriptions') are set where they are made; every code a reply may
// carry is listed once, in codes.go.
//
// The *.resolvers.go files are gqlgen's stubs filled in by hand: gqlgen
// keeps their bodies when it regenerates. docs/design.md §5 and §11 walk a
// comments request through this package.
package resolvers
