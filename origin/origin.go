package origin

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/rs/cors"
)

// Code is the extensions.code of a request refused for its origin.
const Code = "FORBIDDEN_ORIGIN"

// Flag is the serve flag that lists the allowed origins; a refusal names it.
const Flag = "-cors-origins"

// DevPatterns are the origins dev mode allows when -cors-origins is not
// given: any port of localhost and 127.0.0.1 over http (a Vite or webpack
// dev server).
var DevPatterns = []string{"http://localhost:*", "http://127.0.0.1:*"}

// allowedHeaders are the request headers a cross-origin request may send:
// the API's own, what Apollo Client and urql send (CSRF prevention,
// operation name, client awareness), and W3C trace context (the server
// continues traces).
var allowedHeaders = []string{
	"Content-Type", "Accept", "Authorization", "X-API-Key", "X-Request-Id", "X-Explain",
	"Apollo-Require-Preflight", "X-Apollo-Operation-Name", "Apollographql-Client-Name", "Apollographql-Client-Version",
	"Traceparent", "Tracestate", "Baggage",
}

// Policy is the list of allowed origins and what enforces it. The zero
// (or nil) Policy allows no cross-origin request: same-origin and
// Origin-less requests only.
type Policy struct {
	patterns []string
	cors     *cors.Cors // nil: no patterns, no CORS headers
}

// New returns the policy allowing patterns (exact origins such as
// https://shop.example.com, or with one * wildcard: https://*.example.com,
// http://localhost:*).
func New(patterns []string) *Policy {
	p := &Policy{patterns: patterns}
	if len(patterns) > 0 {
		p.cors = cors.New(cors.Options{
			AllowedOrigins: patterns,
			AllowedMethods: []string{http.MethodGet, http.MethodPost},
			AllowedHeaders: allowedHeaders,
			ExposedHeaders: []string{"X-Request-Id"},
			MaxAge:         600,
		})
	}
	return p
}

// Patterns returns the allowed origins' patterns.
func (p *Policy) Patterns() []string {
	if p == nil {
		return nil
	}
	return p.patterns
}

// Allowed reports whether r may be served whatever it asks: it carries no
// Origin, comes from the host it is sent to, or its Origin matches a
// pattern.
func (p *Policy) Allowed(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" || sameHost(o, r.Host) {
		return true
	}
	return p != nil && p.cors != nil && p.cors.OriginAllowed(r)
}

// sameHost reports whether origin names host (a page of the gateway's own:
// GraphiQL, /demo).
func sameHost(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, host)
}

// Handler answers CORS for the allowed origins around next, and refuses
// with 403 FORBIDDEN_ORIGIN a preflight, a websocket upgrade or an SSE
// request from any other origin. Other requests from such an origin pass
// without CORS headers (the browser withholds the reply from the page).
func (p *Policy) Handler(next http.Handler) http.Handler {
	h := next
	if p != nil && p.cors != nil {
		h = p.cors.Handler(next)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if guarded(r) && !p.Allowed(r) {
			Refuse(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// guarded reports whether r is a request the rule refuses outright from an
// origin outside the list: a CORS preflight, a websocket upgrade (a
// browser does not apply CORS to websockets: without this a foreign page
// could open one with the user's cookies) or an SSE stream.
func guarded(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" ||
		strings.Contains(strings.ToLower(r.Header.Get("Upgrade")), "websocket") ||
		strings.Contains(r.Header.Get("Accept"), "text/event-stream")
}

// maxEcho bounds how much of a refused Origin the reply repeats.
const maxEcho = 200

// Refuse answers r, whose origin is not allowed, with 403 and one error
// coded FORBIDDEN_ORIGIN naming the origin and the flag that allows it.
func Refuse(w http.ResponseWriter, r *http.Request) {
	o := r.Header.Get("Origin")
	if len(o) > maxEcho {
		o = o[:maxEcho] + "…"
	}
	msg := fmt.Sprintf("origin %s is not allowed to use this API from a browser: add it to %s (comma-separated origins, wildcards such as https://*.example.com)", o, Flag)
	body, _ := json.Marshal(map[string]any{"errors": []any{map[string]any{"message": msg, "extensions": map[string]any{"code": Code}}}})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-store")
	h.Add("Vary", "Origin")
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write(body)
}
