package gqlhttp

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
)

// Connection upgrades. A request asking to upgrade to anything but a
// WebSocket (h2c, …) is served as plain HTTP (a server may ignore Upgrade);
// a WebSocket upgrade goes to the transports with its refusal, if any,
// turned into a coded JSON error (gqlgen's "transport not supported" and
// a WebSocket library's text/plain refusals have no code).

// forUpgrade prepares an upgrade request for the transports: it drops a
// non-WebSocket Upgrade header, and wraps w for a WebSocket one.
func forUpgrade(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
	up := r.Header.Get("Upgrade")
	switch {
	case up == "":
		return w
	case !hasToken(up, "websocket"):
		r.Header.Del("Upgrade")
		return w
	}
	return &codedRefusal{ResponseWriter: w}
}

func hasToken(list, token string) bool {
	for t := range strings.SplitSeq(list, ",") {
		if strings.EqualFold(strings.TrimSpace(t), token) {
			return true
		}
	}
	return false
}

// codedRefusal passes a response through, except that a 4xx or 5xx status
// becomes a coded JSON error (whatever status and body follow it are
// dropped: gqlgen writes its own after the library's). It hijacks for a
// WebSocket library as the writer it wraps does. (An origin outside the
// list never gets here: package origin refuses it first.)
type codedRefusal struct {
	http.ResponseWriter
	refused bool
}

// WriteHeader implements http.ResponseWriter.
func (w *codedRefusal) WriteHeader(status int) {
	if w.refused {
		return
	}
	if status < http.StatusBadRequest {
		w.ResponseWriter.WriteHeader(status)
		return
	}
	w.refused = true
	w.Header().Del("Content-Length")
	w.Header().Del("X-Content-Type-Options")
	WriteError(w.ResponseWriter, status, CodeBadRequest,
		fmt.Sprintf("the WebSocket upgrade was refused (HTTP %d): connect with a GraphQL WebSocket client (subprotocol graphql-transport-ws) if this server offers subscriptions, or send queries and mutations with POST", status))
}

// Write implements http.ResponseWriter.
func (w *codedRefusal) Write(b []byte) (int, error) {
	if w.refused {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *codedRefusal) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Hijack implements http.Hijacker (WebSocket libraries assert it).
func (w *codedRefusal) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// Flush implements http.Flusher.
func (w *codedRefusal) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }
