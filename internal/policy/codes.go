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
