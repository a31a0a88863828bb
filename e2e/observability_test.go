//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The files whose PromQL the observability test checks.
var (
	alertRules = filepath.Join(moduleRoot, "deploy", "observability", "alerts.yml")
	dashboard  = filepath.Join(moduleRoot, "deploy", "observability", "dashboard.json")
)

// metricNameRE matches the gateway's metric names in PromQL: its own
// (comments_*) and the Go client's runtime and process collectors.
var metricNameRE = regexp.MustCompile(`\b(?:comments|go|process)_[a-z0-9_]+\b`)

// TestObservabilityNamesOnlyExportedMetrics serves the gateway with its
// metrics listener and the micro-cache on, sends real traffic (a POST
// query, GET queries the micro-cache answers, a mutation, a subscription
// that receives its event), scrapes /metrics, and checks that every metric
// the Prometheus alert rules and the Grafana dashboard in
// deploy/observability name is one of the exported samples — a renamed
// metric would otherwise leave a panel empty and an alert silent.
func TestObservabilityNamesOnlyExportedMetrics(t *testing.T) {
	exprs := append(mustAlertExprs(t), mustDashboardExprs(t)...)
	if len(exprs) < 10 {
		t.Fatalf("found %d PromQL expressions in %s and %s; the parser lost some", len(exprs), alertRules, dashboard)
	}
	s := MustStartServer(t, "-store", "bolt:"+filepath.Join(t.TempDir(), "obs.db"), "-metrics-addr", "127.0.0.1:0", "-micro-cache-ttl", "5s")
	exported := mustExportedSamples(t, s, mustMetricsURL(t, s))
	for _, e := range exprs {
		names := metricNameRE.FindAllString(e, -1)
		if len(names) == 0 {
			t.Errorf("PromQL %q names no gateway metric (comments_*, go_*, process_*)", e)
		}
		for _, n := range names {
			if !exported[n] {
				t.Errorf("PromQL %q names %s, which /metrics does not export after real traffic", e, n)
			}
		}
	}
}

// mustAlertExprs returns the expr of every rule in the alert rules file
// (inline, or a YAML block scalar on the lines below).
func mustAlertExprs(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(alertRules)
	if err != nil {
		t.Fatal(err)
	}
	var exprs []string
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		indent := len(lines[i]) - len(strings.TrimLeft(lines[i], " "))
		rest, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), "expr:")
		if !ok {
			continue
		}
		rest = strings.TrimSpace(rest)
		if rest != "|" && rest != ">" {
			exprs = append(exprs, rest)
			continue
		}
		var block []string
		for i+1 < len(lines) && (strings.TrimSpace(lines[i+1]) == "" || len(lines[i+1])-len(strings.TrimLeft(lines[i+1], " ")) > indent) {
			i++
			block = append(block, strings.TrimSpace(lines[i]))
		}
		exprs = append(exprs, strings.TrimSpace(strings.Join(block, " ")))
	}
	return exprs
}

// mustDashboardExprs returns the expr of every panel target.
func mustDashboardExprs(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(dashboard)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboard, err)
	}
	var exprs []string
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("dashboard panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	return exprs
}

var metricsAddrRE = regexp.MustCompile(`"msg":"metrics listening","addr":"(127\.0\.0\.1:[0-9]+)"`)

// mustMetricsURL reads the metrics listener's address from the server's log.
func mustMetricsURL(t *testing.T, s *Server) string {
	t.Helper()
	deadline := time.Now().Add(e2eListenTimeout)
	for {
		if m := metricsAddrRE.FindStringSubmatch(s.stderr.String()); m != nil {
			return "http://" + m[1] + "/metrics"
		}
		if time.Now().After(deadline) {
			t.Fatalf("no `metrics listening` line in the log:\n%s", tail(s.stderr.String(), 4000))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// mustExportedSamples sends the traffic and returns the sample names
// /metrics exports (histograms as their _bucket, _sum and _count).
func mustExportedSamples(t *testing.T, s *Server, metricsURL string) map[string]bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sub, err := subscribe(ctx, s.URL, `subscription { commentAdded(productId: "obs") { id } }`, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	MustQuery(t, s, `mutation { createComment(input: {productId: "obs", language: "en", rating: 5, author: "o", title: "t", body: "b"}) { comment { id } } }`, nil, nil)
	select {
	case _, ok := <-sub.Events:
		if !ok {
			t.Fatalf("subscription ended: %v", sub.err)
		}
	case <-ctx.Done():
		t.Fatal("no commentAdded event within a minute")
	}
	MustQuery(t, s, `{ product(id: "obs") { comments(first: 5) { totalCount } } }`, nil, nil)
	for range 2 { // a miss, then a hit
		get := s.URL + `/graphql?query=` + strings.ReplaceAll(`{topProducts(first:3){fiveStarCount}}`, " ", "")
		resp, err := http.Get(get)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	resp, err := http.Get(metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	names := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.IndexAny(line, "{ "); i > 0 {
			names[line[:i]] = true
		}
	}
	if !names["comments_http_micro_cache_lookups_total"] || !names["comments_live_delivery_seconds_count"] {
		t.Fatalf("the traffic left no micro-cache lookup or live delivery in /metrics:\n%s", fmt.Sprint(names))
	}
	return names
}
