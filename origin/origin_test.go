package origin_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/origin"
)

// TestOneRule: CORS, websocket upgrades and SSE requests follow the same
// list; requests without Origin and same-host ones always pass; a refused
// one gets 403 FORBIDDEN_ORIGIN naming the origin and the flag.
func TestOneRule(t *testing.T) {
	reached := false
	h := origin.New([]string{"https://shop.example.com", "https://*.shop.example", "http://localhost:*"}).Handler(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached = true }))
	kinds := map[string]func(*http.Request){
		"preflight": func(r *http.Request) {
			r.Method = http.MethodOptions
			r.Header.Set("Access-Control-Request-Method", http.MethodPost)
		},
		"websocket": func(r *http.Request) {
			r.Header.Set("Connection", "Upgrade")
			r.Header.Set("Upgrade", "websocket")
		},
		"sse": func(r *http.Request) {
			r.Method = http.MethodPost
			r.Header.Set("Accept", "text/event-stream")
		},
	}
	for _, tc := range []struct {
		origin, host string
		allowed      bool
	}{
		{"https://shop.example.com", "api.example.com", true},
		{"https://eu.shop.example", "api.example.com", true},
		{"http://localhost:5173", "api.example.com", true},
		{"", "api.example.com", true},                        // curl, a native app
		{"https://api.example.com", "api.example.com", true}, // GraphiQL on the gateway itself
		{"https://evil.example.net", "api.example.com", false},
		{"https://shop.example.com.evil.net", "api.example.com", false},
		{"http://shop.example.com", "api.example.com", false}, // scheme matters
		{"null", "api.example.com", false},
	} {
		for kind, set := range kinds {
			r := httptest.NewRequest(http.MethodGet, "/graphql", nil)
			r.Host = tc.host
			if tc.origin != "" {
				r.Header.Set("Origin", tc.origin)
			}
			set(r)
			w := httptest.NewRecorder()
			reached = false
			h.ServeHTTP(w, r)
			refused := w.Code == http.StatusForbidden
			if refused == tc.allowed {
				t.Errorf("%s from %q: status %d, want allowed=%v", kind, tc.origin, w.Code, tc.allowed)
				continue
			}
			if !refused {
				if kind != "preflight" && !reached {
					t.Errorf("%s from %q: next not reached", kind, tc.origin)
				}
				continue
			}
			if reached {
				t.Errorf("%s from %q: refused but next ran", kind, tc.origin)
			}
			var body struct {
				Errors []struct {
					Message    string
					Extensions map[string]any
				}
			}
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || len(body.Errors) != 1 {
				t.Fatalf("%s: body %s: %v", kind, w.Body, err)
			}
			e := body.Errors[0]
			if e.Extensions["code"] != origin.Code || !strings.Contains(e.Message, tc.origin) || !strings.Contains(e.Message, origin.Flag) {
				t.Errorf("%s from %q: %+v", kind, tc.origin, e)
			}
		}
	}
}

// TestNoPatternsSameOriginOnly: without patterns there is no CORS header,
// and a cross-origin upgrade is refused.
func TestNoPatternsSameOriginOnly(t *testing.T) {
	for _, p := range []*origin.Policy{nil, origin.New(nil)} {
		h := p.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		r := httptest.NewRequest(http.MethodGet, "/graphql", nil)
		r.Header.Set("Origin", "http://localhost:3000")
		r.Header.Set("Upgrade", "websocket")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusForbidden {
			t.Errorf("cross-origin upgrade without patterns: %d", w.Code)
		}
		r = httptest.NewRequest(http.MethodPost, "/graphql", nil)
		r.Header.Set("Origin", "http://localhost:3000")
		w = httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK || w.Header().Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("plain POST without patterns: %d %v", w.Code, w.Header())
		}
	}
}

// TestCORSAllowsClientHeaders: a preflight naming the headers Apollo Client
// and urql send, and W3C trace context, is allowed.
func TestCORSAllowsClientHeaders(t *testing.T) {
	h := origin.New([]string{"https://shop.example.com"}).Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	req := httptest.NewRequest(http.MethodOptions, "/graphql", nil)
	req.Header.Set("Origin", "https://shop.example.com")
	req.Header.Set("Access-Control-Request-Method", http.MethodPost)
	req.Header.Set("Access-Control-Request-Headers", "apollo-require-preflight,apollographql-client-name,apollographql-client-version,baggage,content-type,traceparent,tracestate,x-apollo-operation-name") // sorted, as browsers send it
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Header().Get("Access-Control-Allow-Origin") != "https://shop.example.com" {
		t.Errorf("Access-Control-Allow-Origin %q", w.Header().Get("Access-Control-Allow-Origin"))
	}
	got := strings.ToLower(w.Header().Get("Access-Control-Allow-Headers"))
	for _, want := range []string{"apollo-require-preflight", "x-apollo-operation-name", "apollographql-client-name", "apollographql-client-version", "traceparent", "tracestate", "baggage"} {
		if !strings.Contains(got, want) {
			t.Errorf("Access-Control-Allow-Headers %q lacks %s", got, want)
		}
	}
}
