package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCORSAllowsClientHeaders: a preflight naming the headers Apollo Client
// and urql send is allowed, for an allowed origin only.
func TestCORSAllowsClientHeaders(t *testing.T) {
	h := withCORS([]string{"https://shop.example.com"}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	for _, tc := range []struct {
		origin  string
		allowed bool
	}{{"https://shop.example.com", true}, {"https://evil.example.net", false}} {
		req := httptest.NewRequest(http.MethodOptions, "/graphql", nil)
		req.Header.Set("Origin", tc.origin)
		req.Header.Set("Access-Control-Request-Method", http.MethodPost)
		req.Header.Set("Access-Control-Request-Headers", "apollo-require-preflight,apollographql-client-name,apollographql-client-version,content-type,x-apollo-operation-name") // sorted, as browsers send it
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		got := strings.ToLower(w.Header().Get("Access-Control-Allow-Headers"))
		if !tc.allowed {
			if got != "" || w.Header().Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("%s: allowed (%q)", tc.origin, got)
			}
			continue
		}
		if w.Header().Get("Access-Control-Allow-Origin") != tc.origin {
			t.Errorf("%s: Access-Control-Allow-Origin %q", tc.origin, w.Header().Get("Access-Control-Allow-Origin"))
		}
		for _, want := range []string{"apollo-require-preflight", "x-apollo-operation-name", "apollographql-client-name", "apollographql-client-version"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: Access-Control-Allow-Headers %q lacks %s", tc.origin, got, want)
			}
		}
	}
}
