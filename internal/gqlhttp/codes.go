package gqlhttp

// Error codes of requests refused at the HTTP edge, before any GraphQL
// processing (each reply is a JSON body with errors[].extensions.code).
// The gateway's whole list of codes, with where each is decided, is
// package resolvers' errorCodes.
const (
	// CodeBadRequest: the body is not a GraphQL-over-HTTP request (invalid
	// JSON, a "query" that is not a string, data after the JSON object, …).
	CodeBadRequest = "BAD_REQUEST"
	// CodeUnsupportedMediaType: a POST whose Content-Type is not
	// application/json (HTTP 415).
	CodeUnsupportedMediaType = "UNSUPPORTED_MEDIA_TYPE"
	// CodeMethodNotAllowed: a method other than GET, POST or OPTIONS, or a
	// mutation sent with GET (HTTP 405 with an Allow header).
	CodeMethodNotAllowed = "METHOD_NOT_ALLOWED"
	// CodeRequestTooLarge: a body over the -max-body-bytes limit (HTTP 413).
	CodeRequestTooLarge = "REQUEST_TOO_LARGE"
	// CodeRequestTimeout: the body did not arrive within the server's read
	// timeout (HTTP 408).
	CodeRequestTimeout = "REQUEST_TIMEOUT"
	// CodeNotFound: no endpoint at this path (HTTP 404); also a missing
	// comment in updateComment and deleteComment.
	CodeNotFound = "NOT_FOUND"
	// CodeTooManyErrors: the last entry of an error list cut at
	// MaxErrors; it says how many errors were left out.
	CodeTooManyErrors = "TOO_MANY_ERRORS"
	// CodeBadUserInput: invalid input; at the edge, a request that is not
	// valid UTF-8 (HTTP 400).
	CodeBadUserInput = "BAD_USER_INPUT"
	// CodeUnavailable: the server cannot answer now; retry (a store
	// EUNAVAILABLE error, a live connection refused during shutdown with
	// HTTP 503).
	CodeUnavailable = "UNAVAILABLE"
	// CodeInternal: anything without a code, shown as "internal error"
	// (a store EINTERNAL error, a panic).
	CodeInternal = "INTERNAL"
)
