package e2e

// The query-cache rows of the hostile suite (issue 23): documents that are
// almost all comment pass every limit, so the caches of query texts and
// what is derived from them (parsed documents, APQ, cost analysis) must be
// bounded in bytes, not in entries, and a document too large to cache must
// be freed after its request.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acme/comments-gateway/internal/gqltest"
)

// The comment-padding attack: floodQueries distinct documents of about
// floodQueryBytes each (under the default 1 MiB body limit), two at a time,
// and the peak RSS growth they may cause.
const (
	floodQueries    = 1000
	floodQueryBytes = 1_000_000
	floodRSS        = 150 << 20
)

// paddedQuery is the i-th distinct document of the attack: a comment of
// about size bytes, then `{ __typename }` (one field, a few tokens).
func paddedQuery(i, size int) string {
	return fmt.Sprintf("# %07d ", i) + strings.Repeat("x", size) + "\n{ __typename }"
}

// paddedBody is the request body of paddedQuery(i, size), written without
// a JSON encoder (the text needs no escape but its newline); with apq it
// also registers the text as an automatic persisted query (its SHA-256).
func paddedBody(i, size int, apq bool) []byte {
	q := paddedQuery(i, size)
	var b bytes.Buffer
	b.Grow(len(q) + 200)
	b.WriteString(`{"query":"`)
	b.WriteString(strings.Replace(q, "\n", `\n`, 1))
	b.WriteString(`"`)
	if apq {
		sum := sha256.Sum256([]byte(q))
		fmt.Fprintf(&b, `,"extensions":{"persistedQuery":{"version":1,"sha256Hash":%q}}`, hex.EncodeToString(sum[:]))
	}
	b.WriteString("}")
	return b.Bytes()
}

// sendPadded sends the documents [from, to) of size bytes, two at a time
// (every other one an APQ registration), and fails on any answer that is
// not `{"data":{"__typename":"Query"}}`.
func sendPadded(t *testing.T, s *Server, from, to, size int) {
	t.Helper()
	client := &gqltest.Client{URL: s.URL + "/graphql", HTTP: &http.Client{Timeout: e2eRequestTimeout, Transport: &http.Transport{Proxy: nil}}}
	defer client.HTTP.CloseIdleConnections()
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for w := range 2 {
		wg.Go(func() {
			for i := from + w; i < to; i += 2 {
				r, err := client.Send(context.Background(), http.MethodPost, "", paddedBody(i, size, i%4 < 2))
				if err == nil && (r.Status != http.StatusOK || !bytes.Contains(r.Body, []byte(`"__typename":"Query"`))) {
					err = fmt.Errorf("document %d: HTTP %d: %.300s", i, r.Status, r.Body)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestBudgetCommentPaddedQueriesAreNotPinned: 1,000 distinct 1 MB
// documents, half of them registered with APQ, grow the peak RSS by at most
// floodRSS, and none stays in a cache: after a collection the live heap is
// back near where it started. Then documents just under the cached size,
// many times the caches' budgets, fill the caches only to their budgets
// (the least recently used evicted) and leave the live heap within them.
func TestBudgetCommentPaddedQueriesAreNotPinned(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the binary")
	}
	const budget = 4 << 20 // each query cache's, in the second part
	s := MustStartBudgetServer(t, "-store", "bolt:caches.db", "-metrics-addr", "127.0.0.1:0", "-pprof",
		"-document-cache-bytes", "4MiB", "-cost-cache-bytes", "4MiB", "-apq-cache-bytes", "4MiB")
	m := &metricsReader{t: t, url: mustMetricsAddr(t, s)}
	pid := s.cmd.Process.Pid
	sendPadded(t, s, 0, 4, 1000) // warm up: the first requests' allocations
	live0 := m.liveHeap()
	cpu0, rss0 := mustProcUsage(t, pid)

	start := time.Now()
	sendPadded(t, s, 0, floodQueries, floodQueryBytes)
	cpu1, rss1 := mustProcUsage(t, pid)
	live1 := m.liveHeap()
	t.Logf("%d documents of %d bytes in %s: %s CPU, peak RSS %d → %d MiB (+%d MiB), live heap %d → %d MiB",
		floodQueries, floodQueryBytes, time.Since(start).Round(time.Millisecond), cpu1-cpu0, rss0>>20, rss1>>20, (rss1-rss0)>>20, live0>>20, live1>>20)
	if rss1-rss0 > floodRSS {
		t.Errorf("the peak RSS grew by %d MiB; the budget is %d MiB", (rss1-rss0)>>20, floodRSS>>20)
	}
	if live1-live0 > 16<<20 {
		t.Errorf("after a collection the live heap is %d MiB, %d MiB more than before the attack: documents stay pinned", live1>>20, (live1-live0)>>20)
	}
	m.checkCaches(budget)

	// Documents just under the largest cached text (32 KiB): each cache
	// takes them until its budget is spent, then evicts.
	sendPadded(t, s, floodQueries, floodQueries+400, 32<<10-100)
	live2 := m.liveHeap()
	t.Logf("then 400 documents of 32 KiB: live heap %d MiB", live2>>20)
	for _, c := range []string{"documents", "cost", "apq"} {
		if m.value("comments_cache_evictions_total", c) == 0 {
			t.Errorf("cache %s evicted nothing", c)
		}
	}
	m.checkCaches(budget)
	if live2-live0 > 3*budget+16<<20 {
		t.Errorf("after a collection the live heap is %d MiB, %d MiB more than before: more than the caches' budgets (3 × %d MiB)", live2>>20, (live2-live0)>>20, budget>>20)
	}
}

// metricsReader reads the server's /metrics (and forces a collection through
// pprof).
type metricsReader struct {
	t   *testing.T
	url string
}

func (m *metricsReader) get(path string) string {
	m.t.Helper()
	r := (&gqltest.Client{URL: m.url, HTTP: &http.Client{Timeout: e2eRequestTimeout, Transport: &http.Transport{Proxy: nil}}}).MustSend(m.t, http.MethodGet, path, nil)
	if r.Status != http.StatusOK {
		m.t.Fatalf("GET %s%s: HTTP %d", m.url, path, r.Status)
	}
	return string(r.Body)
}

// value is the sample of metric name with cache="cache" (or with no
// labels when cache is ""); 0 when there is none.
func (m *metricsReader) value(name, cache string) float64 {
	m.t.Helper()
	labels := ""
	if cache != "" {
		labels = `\{cache="` + regexp.QuoteMeta(cache) + `"\}`
	}
	match := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + labels + ` (\S+)$`).FindStringSubmatch(m.get("/metrics"))
	if match == nil {
		return 0
	}
	v, err := strconv.ParseFloat(match[1], 64)
	if err != nil {
		m.t.Fatalf("%s: %v", name, err)
	}
	return v
}

// liveHeap collects (pprof's heap profile with gc=1) and returns the heap's
// allocated bytes: what is reachable.
func (m *metricsReader) liveHeap() int64 {
	m.t.Helper()
	m.get("/debug/pprof/heap?gc=1")
	return int64(m.value("go_memstats_heap_alloc_bytes", ""))
}

// checkCaches fails when a query cache holds more than budget bytes.
func (m *metricsReader) checkCaches(budget int64) {
	m.t.Helper()
	for _, c := range []string{"documents", "cost", "apq"} {
		n, entries := m.value("comments_cache_bytes", c), m.value("comments_cache_entries", c)
		m.t.Logf("cache %s: %.0f entries, %.0f bytes", c, entries, n)
		if n > float64(budget) {
			m.t.Errorf("cache %s holds %.0f bytes; its budget is %d", c, n, budget)
		}
	}
}
