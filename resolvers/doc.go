// Package resolvers is the GraphQL service of the gateway: the HTTP handler
// (NewHandler), the resolvers gqlgen calls, and the policy that applies to a
// whole operation before or after them.
//
// A request flows through NewHandler (handler.go). First the HTTP edge
// (package gqlhttp: methods, content types, the body limit and read
// deadline, UTF-8); the rate limit's charge for refusals
// (ratelimit_refused.go); trusted documents (package trusted). Then a
// context with the request timeout, a store.Usage for extensions.cost and,
// on X-Explain: 1, an EXPLAIN collector (policy/explain.go); then gqlgen's server
// with its transports (package gqlhttp's for POST and GET, package livehttp for
// websocket and SSE), strict variables (gqlhttp), the one-pass cost
// analysis before validation (cost.go, package cost), the APQ and query
// caches, the rate limit (ratelimit.go), introspection control
// (policy/introspection.go), per-operation dataloaders (loaders.go,
// loaderplan.go) and, on mutations, access control (policy/mutationguard.go,
// policy/access.go). Around it all, gqlhttp's Cache gives GET query responses
// Cache-Control (their @cacheControl policy), an ETag and 304s, POST and
// failed responses no-store, and serves hot GET responses from the
// optional micro-cache.
//
// Resolvers stay thin (schema.resolvers.go, entity.resolvers.go): they parse
// and validate arguments with the store's functions, call a dataloader or
// the store.Store, and return store errors as they are. All stats lookups
// of one request become one BatchGet through the Stats loader, all
// comment(id) lookups one through the Comments loader. Errors are translated
// once, by ErrorPresenter: a store error code becomes extensions.code
// (storeCodes), anything without a code is logged and shown as INTERNAL with
// the request id. Codes of refusals made here (UNAUTHENTICATED, FORBIDDEN,
// the limits' codes, THROTTLED, the HTTP edge's, the subscriptions') are set
// where they are made; every code a reply may carry is named and listed
// once, in codes.go.
//
// The *.resolvers.go files are gqlgen's stubs filled in by hand: gqlgen
// keeps their bodies when it regenerates. docs/design.md §5 and §11 walk a
// comments request through this package.
package resolvers
