// Package gqlhttp is the GraphQL-over-HTTP edge: what turns an HTTP request
// into a GraphQL operation for gqlgen's executor, and the executor's
// response into an HTTP reply. It knows requests, replies and operations,
// never what they are about: it imports no domain package (no store,
// graph, resolvers, live or nodeid; TestDependencyDirection holds it), and
// serves any schema.
//
// A request meets the edge three times, outermost first:
//
//   - Cache.Middleware (httpcache.go) decides the reply's HTTP caching: a
//     GET query answered without errors gets Cache-Control from its
//     operation's @cacheControl policy (cachecontrol.go, PolicyOf), a strong
//     ETag and 304s; everything else no-store. Hot GET replies may be
//     served from the micro-cache (microcache.go) without running
//     anything, in the encoding the client accepts from the copy the
//     cache keeps of each (microencode.go).
//   - Edge (edge.go, body.go, upgrade.go) refuses what is not a
//     GraphQL-over-HTTP request before gqlgen sees it: the method, the
//     Content-Type, a body too large, too slow, broken or not UTF-8; a POST
//     reaches the next handler with its body in memory.
//   - The transports (transport.go; Transports) decode the request, one
//     JSON object read once, and run it: a request refused before
//     execution is answered without "data", with the status GraphQL over
//     HTTP asks for; a response is written with its data copied as gqlgen
//     marshalled it (response.go). StrictVariables (variables.go) coerces
//     variables as the specification says, every mistake at once.
//
// A reply body written whole leaves in one write call when the server
// listens through ReplyListener with ReplyConnContext (replyconn.go):
// net/http alone sends a reply past its 4 KB buffer in two.
//
// Every refusal is a JSON body with errors[].extensions.code (codes.go,
// WriteError); the messages never echo the body or name a Go type, and
// EdgePresenter and CapErrors (httperrors.go) keep any error list short
// and free of schema names the client did not write.
//
// What the edge needs from the rest of the server comes in as values: the
// schema, the byte budgets, a bytecache.Observer for its metrics, the
// compression outside it, and BeforeEarlyReply for what must be done
// before a refusal is sent early. A server lists its whole chain, these
// layers among its own, in one Chain call (chain.go); BrowserPage there
// gives a browser opening the endpoint a page such as GraphiQL.
package gqlhttp
