package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// mustMetricsAddr returns the metrics listener's address from the server's
// JSON log ("metrics listening", logged before the API listens).
func mustMetricsAddr(t *testing.T, s *Server) string {
	t.Helper()
	for deadline := time.Now().Add(e2eListenTimeout); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, line := range strings.Split(s.stderr.String(), "\n") {
			var rec struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "metrics listening" {
				return "http://" + rec.Addr
			}
		}
	}
	t.Fatalf("no \"metrics listening\" log line:\n%s", tail(s.stderr.String(), 2000))
	return ""
}

// TestMetricsListener: in production /metrics is not on the API listener
// but on -metrics-addr's, with pprof only when -pprof is given; neither
// listener serves the other's paths.
func TestMetricsListener(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the binary")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*e2eRequestTimeout)
	defer cancel()
	get := func(url string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := (&http.Client{Transport: &http.Transport{Proxy: nil}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, pprofOn := range []bool{true, false} {
		args := []string{"-metrics-addr", "127.0.0.1:0"}
		if pprofOn {
			args = append(args, "-pprof")
		}
		s := MustStartServer(t, args...)
		m := mustMetricsAddr(t, s)
		// A request first, so that the gateway's own series have a sample.
		if status, _ := get(s.URL + "/graphql?query=%7B__typename%7D"); status != 200 {
			t.Fatalf("GET /graphql: %d", status)
		}
		for _, c := range []struct {
			url    string
			status int
			has    string
		}{
			{s.URL + "/metrics", 404, ""},
			{s.URL + "/debug/pprof/", 404, ""},
			{m + "/metrics", 200, "go_goroutines"},
			{m + "/metrics", 200, "process_cpu_seconds_total"},
			{m + "/graphql", 404, ""},
			{m + "/healthz", 404, ""},
			{m + "/debug/pprof/", map[bool]int{true: 200, false: 404}[pprofOn], map[bool]string{true: "goroutine", false: ""}[pprofOn]},
			{m + "/debug/pprof/heap?debug=1", map[bool]int{true: 200, false: 404}[pprofOn], ""},
		} {
			status, body := get(c.url)
			if status != c.status || !strings.Contains(body, c.has) {
				t.Errorf("pprof %v: GET %s: HTTP %d, want %d with %q: %.200s", pprofOn, c.url, status, c.status, c.has, body)
			}
		}
		s.Stop(t)
	}
}

// TestMetricsDevMode: dev mode without -metrics-addr keeps /metrics on the
// API listener, for convenience.
func TestMetricsDevMode(t *testing.T) {
	s := MustServeInProcess(t, nil) // no command word: dev mode
	if r := s.Do(t, "GET", "/metrics", ""); r.status != 200 || !strings.Contains(r.body, "go_goroutines") {
		t.Errorf("dev mode /metrics: %d", r.status)
	}
	if r := s.Do(t, "GET", "/debug/pprof/", ""); r.status != 404 {
		t.Errorf("dev mode /debug/pprof/ on the API listener: %d, want 404", r.status)
	}
}
