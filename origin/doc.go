// Package origin owns the one rule for which browser origins may use the
// API: the same list answers CORS (github.com/rs/cors), websocket upgrades
// and SSE streams. A request without Origin (curl, a native app, a server)
// or from the origin it is sent to is always served; any other origin must
// match a pattern of the list (-cors-origins, one * wildcard each, as rs/cors
// matches them). A preflight, a websocket upgrade or an SSE request from an
// origin outside the list gets 403 with extensions.code FORBIDDEN_ORIGIN;
// no such upgrade ever reaches a websocket library.
package origin
