package e2e

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/internal/gqltest"
)

// TestHTTPCachingThroughTheBinary checks the caching headers, 304 and the
// micro-cache's flags and metrics on the built server.
func TestHTTPCachingThroughTheBinary(t *testing.T) {
	s := MustStartServer(t, "-micro-cache-ttl", "1h", "-micro-cache-bytes", "1MB", "-metrics-addr", "127.0.0.1:0")
	metricsURL := mustMetricsAddr(t, s)
	metricsListener := &gqltest.Client{URL: metricsURL, HTTP: s.API.HTTP} // production: on its own listener
	get := func(path string, hdr ...string) (*gqltest.Response, []byte) {
		t.Helper()
		c := s.root
		if path == "/metrics" {
			c = metricsListener
		}
		r := c.MustSend(t, http.MethodGet, path, nil, gqltest.Headers(hdr...))
		return r, r.Body
	}
	page := "/graphql?query=" + url.QueryEscape(`{ product(id: "p1") { stats { total } comments(first: 5) { totalCount } } }`)
	first, body := get(page)
	if first.Status != http.StatusOK || first.Header.Get("Cache-Control") != "public, max-age=30" || first.Header.Get("ETag") == "" {
		t.Fatalf("first GET: HTTP %d %v %s", first.Status, first.Header, body)
	}
	second, body2 := get(page)
	if !bytes.Equal(body, body2) || second.Header.Get("ETag") != first.Header.Get("ETag") {
		t.Errorf("second GET (a micro-cache hit) differs: %s", body2)
	}
	if nm, b := get(page, "If-None-Match", first.Header.Get("ETag")); nm.Status != http.StatusNotModified || len(b) != 0 {
		t.Errorf("If-None-Match: HTTP %d, %d bytes", nm.Status, len(b))
	}
	if priv, _ := get(page, "Authorization", "Bearer x"); priv.Header.Get("Cache-Control") != "private, max-age=30" {
		t.Errorf("with Authorization: Cache-Control %q", priv.Header.Get("Cache-Control"))
	}
	if code, b, err := s.HTTP(context.Background(), http.MethodPost, "/graphql", []byte(`{"query":"{ product(id: \"p1\") { id } }"}`),
		map[string]string{"Content-Type": "application/json"}); err != nil || code != http.StatusOK {
		t.Errorf("POST: %d %v %s", code, err, b)
	}
	_, metrics := get("/metrics")
	for _, want := range []string{
		`comments_cache_lookups_total{cache="micro",result="hit"} 2`,
		`comments_cache_lookups_total{cache="micro",result="miss"} 1`,
	} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %q:\n%s", want, grepLines(string(metrics), `cache="micro"`))
		}
	}
	if !regexp.MustCompile(`(?m)^comments_cache_bytes\{cache="micro"\} [1-9]`).Match(metrics) {
		t.Errorf("/metrics: micro-cache bytes:\n%s", grepLines(string(metrics), `cache="micro"`))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
