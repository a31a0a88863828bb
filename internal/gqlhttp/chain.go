package gqlhttp

import (
	"net/http"
	"strings"
)

// Middleware is one layer of an HTTP handler chain: it returns a handler
// that does its part around next.
type Middleware func(next http.Handler) http.Handler

// Chain returns the middleware that applies layers in order, the first
// outermost: Chain(a, b, c)(h) is a(b(c(h))). A nil layer is skipped (a
// part that is off).
func Chain(layers ...Middleware) Middleware {
	return func(h http.Handler) http.Handler {
		for i := len(layers) - 1; i >= 0; i-- {
			if layers[i] != nil {
				h = layers[i](h)
			}
		}
		return h
	}
}

// BrowserPage serves page to a browser opening the endpoint, a GET that
// accepts text/html and has no query string, rather than the
// GraphQL-over-HTTP 400 for a request without a query; every other
// request goes to next. A nil page: no page.
func BrowserPage(page http.Handler) Middleware {
	if page == nil {
		return nil
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && r.URL.RawQuery == "" && r.Header.Get("Upgrade") == "" &&
				strings.Contains(r.Header.Get("Accept"), "text/html") {
				page.ServeHTTP(w, r)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
