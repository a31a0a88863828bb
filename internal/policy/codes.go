package policy

// The error codes decided by the operation policy (extensions.code);
// resolvers/codes.go lists every code of the gateway with where it is
// decided.

// Error codes of refused mutations (HTTP 200, a field error, data null),
// and of a refused credential or EXPLAIN (HTTP 401 or 403).
const (
	CodeUnauthenticated = "UNAUTHENTICATED"
	CodeForbidden       = "FORBIDDEN"
)

// Error codes of refused requests (HTTP 4xx; nothing is read from the store).
const (
	CodeComplexity = "COMPLEXITY_LIMIT_EXCEEDED"
	CodeDepth      = "DEPTH_LIMIT_EXCEEDED"
	CodeAliases    = "ALIAS_LIMIT_EXCEEDED"
	CodeSelections = "SELECTION_LIMIT_EXCEEDED"
	CodeEntities   = "ENTITY_LIMIT_EXCEEDED"
)

// CodeThrottled is the error code of an operation refused by the rate
// limit (HTTP 200, like Shopify's THROTTLED: the response says when to retry
// through extensions.cost.throttleStatus).
const CodeThrottled = "THROTTLED"
