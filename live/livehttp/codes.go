package livehttp

// Error codes (extensions.code) of live connections. The gateway's whole
// list of codes, with where each is decided, is package resolvers'
// errorCodes.
const (
	// CodeSlowConsumer: a subscription whose client did not read its
	// events fast enough was ended.
	CodeSlowConsumer = "SLOW_CONSUMER"
	// CodeLimitExceeded: too many subscriptions on one connection, or too
	// many live connections of one client (HTTP 429).
	CodeLimitExceeded = "LIMIT_EXCEEDED"
	// CodeInFlight: a query or mutation over a websocket while its
	// connection or client has the most allowed in flight; over HTTP, a
	// request while its client has the most allowed in flight (HTTP 429).
	CodeInFlight = "IN_FLIGHT_LIMIT_EXCEEDED"
)
