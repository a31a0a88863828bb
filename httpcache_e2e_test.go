package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestHTTPCachingThroughTheBinary checks the caching headers, 304 and the
// micro-cache's flags and metrics on the built server.
func TestHTTPCachingThroughTheBinary(t *testing.T) {
	s := MustStartServer(t, "-micro-cache-ttl", "1h", "-micro-cache-bytes", "1MB", "-metrics-addr", "127.0.0.1:0")
	metricsURL := mustMetricsAddr(t, s)
	get := func(path string, hdr ...string) (*http.Response, []byte) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), e2eRequestTimeout)
		defer cancel()
		u := s.URL + path
		if path == "/metrics" { // production: on its own listener
			u = metricsURL + path
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		res, err := s.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, b
	}
	page := "/graphql?query=" + url.QueryEscape(`{ product(id: "p1") { stats { total } comments(first: 5) { totalCount } } }`)
	first, body := get(page)
	if first.StatusCode != http.StatusOK || first.Header.Get("Cache-Control") != "public, max-age=30" || first.Header.Get("ETag") == "" {
		t.Fatalf("first GET: HTTP %d %v %s", first.StatusCode, first.Header, body)
	}
	second, body2 := get(page)
	if !bytes.Equal(body, body2) || second.Header.Get("ETag") != first.Header.Get("ETag") {
		t.Errorf("second GET (a micro-cache hit) differs: %s", body2)
	}
	if nm, b := get(page, "If-None-Match", first.Header.Get("ETag")); nm.StatusCode != http.StatusNotModified || len(b) != 0 {
		t.Errorf("If-None-Match: HTTP %d, %d bytes", nm.StatusCode, len(b))
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
		`comments_http_micro_cache_lookups_total{result="hit"} 2`,
		`comments_http_micro_cache_lookups_total{result="miss"} 1`,
	} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %q:\n%s", want, grepLines(string(metrics), "micro_cache"))
		}
	}
	if !regexp.MustCompile(`(?m)^comments_http_micro_cache_bytes [1-9]`).Match(metrics) {
		t.Errorf("/metrics: micro-cache bytes:\n%s", grepLines(string(metrics), "micro_cache"))
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

func TestByteSizeFlag(t *testing.T) {
	var b byteSize
	for in, want := range map[string]int64{"64MB": 64_000_000, "64MiB": 64 << 20, "512KiB": 512 << 10, "1000": 1000} {
		if err := b.Set(in); err != nil || int64(b) != want {
			t.Errorf("%s: %d, %v; want %d", in, b, err, want)
		}
	}
	if err := b.Set("lots"); err == nil {
		t.Errorf("lots: no error")
	}
}
