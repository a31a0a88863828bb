package policy

import (
	"fmt"
	"net/http"

	"github.com/acme/comments-gateway/internal/clientslots"
	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/live/livehttp"
)

// DefaultMaxRequestsInFlight is how many GraphQL-over-HTTP requests of one
// client are served at once (resolvers.Config.MaxRequestsInFlight).
const DefaultMaxRequestsInFlight = 32

// LimitInFlight bounds the GraphQL-over-HTTP requests of each client
// (ClientID: a JWT's subject, else the address; API keys are not bounded)
// being served at once to limit (no bound when limit is 0 or less). A
// request holds its slot from here until its handler returns, so until its
// reply is written: a client that does not read its replies holds its
// slots. One over the limit gets 429 IN_FLIGHT_LIMIT_EXCEEDED with
// Retry-After, before its body is read. Websocket and SSE requests have
// their own caps (livehttp/conn.go), and a preflight holds nothing.
func LimitInFlight(limit int) gqlhttp.Middleware {
	if limit <= 0 {
		return nil
	}
	return func(next http.Handler) http.Handler { return inFlightSlots(limit, next) }
}

// inFlightSlots is LimitInFlight's handler around next.
func inFlightSlots(limit int, next http.Handler) http.Handler {
	slots := clientslots.New(limit)
	msg := fmt.Sprintf("too many requests in flight for this client: at most %d; wait for a reply before sending more", limit)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions || livehttp.IsLiveRequest(r) {
			next.ServeHTTP(w, r)
			return
		}
		release, ok := slots.Take(ClientID(r))
		if !ok {
			gqlhttp.WriteError(w, http.StatusTooManyRequests, livehttp.CodeInFlight, msg, "Retry-After", "1")
			return
		}
		defer release()
		next.ServeHTTP(w, r)
	})
}
