package resolvers_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/acme/comments-gateway/httpcompress"
	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/internal/gqltest"
	"github.com/acme/comments-gateway/metrics"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
)

// cacheEnv serves the test data set over HTTP with the given micro-cache.
type cacheEnv struct {
	srv *httptest.Server
	spy *spyTable
	reg *prometheus.Registry
}

func MustCacheEnv(tb testing.TB, micro gqlhttp.MicroCacheConfig) *cacheEnv {
	tb.Helper()
	spy := newSpy(MustOpenLoaded(tb, genComments()))
	e := &cacheEnv{spy: spy}
	e.reg = prometheus.NewRegistry()
	h := resolvers.NewHandler(resolvers.Config{
		Store: store.New(spy), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		LoaderWait: testLoaderWait, MicroCache: micro, Metrics: metrics.New(e.reg), OpenExplain: true,
	})
	e.srv = httptest.NewServer(h)
	tb.Cleanup(e.srv.Close)
	return e
}

// MustGet sends query as GET /graphql?query=… with header pairs.
func (e *cacheEnv) MustGet(tb testing.TB, query string, hdr ...string) *gqltest.Response {
	tb.Helper()
	return e.MustDo(tb, http.MethodGet, "?query="+url.QueryEscape(query), nil, hdr...)
}

// MustDo sends one request to the handler.
func (e *cacheEnv) MustDo(tb testing.TB, method, suffix string, body []byte, hdr ...string) *gqltest.Response {
	tb.Helper()
	return gqltest.New(e.srv.URL).MustSend(tb, method, suffix, body, gqltest.Headers(hdr...))
}

// errorFree reports whether a reply's body is a GraphQL response with data
// and no errors.
func errorFree(tb testing.TB, r *gqltest.Response) bool {
	tb.Helper()
	if !json.Valid(r.Body) {
		tb.Fatalf("HTTP %d %s: not JSON", r.Status, r.Body)
	}
	return len(r.Errors) == 0 && len(r.Data) > 0 && string(r.Data) != "null"
}

// The policy table in docs/caching.md and schema.graphqls: product 300,
// comment(id) 300, topProducts 60, stats 60, languages 60, comments 30;
// the smallest max-age of the selected fields wins.
func TestCacheControlPerField(t *testing.T) {
	e := MustCacheEnv(t, gqlhttp.MicroCacheConfig{})
	cases := []struct{ query, want string }{
		{`{ product(id: "p1") { id } }`, "public, max-age=300"},
		{`{ comment(id: "p1-c000") { id title rating createdAt } }`, "public, max-age=300"},
		{`{ comment(id: "p1-c000") { id product { id } } }`, "public, max-age=300"},
		{`{ comment(id: "no-such-comment") { id } }`, "public, max-age=300"},
		{`{ topProducts(first: 3) { rank fiveStarCount product { id } } }`, "public, max-age=60"},
		{`{ product(id: "p1") { stats { total ratings { rating count } } } }`, "public, max-age=60"},
		{`{ product(id: "p1") { languages { language total } } }`, "public, max-age=60"},
		{`{ product(id: "p1") { comments(first: 2) { totalCount } } }`, "public, max-age=30"},
		// The product page: comments, stats and languages together.
		{`{ product(id: "big") { stats { total } languages { language }
			comments(first: 5) { pageInfo { hasNextPage endCursor } edges { cursor node { id title } } } } }`, "public, max-age=30"},
		{`{ topProducts(first: 1) { rank } comment(id: "p1-c000") { id } }`, "public, max-age=60"},
		// A comment reached through a page inherits the page's 30 s; the
		// product under it (300) does not raise it.
		{`{ product(id: "p1") { comments(first: 1) { nodes { product { id stats { total } } } } } }`, "public, max-age=30"},
		// Fragments and inline fragments count like the fields they hold.
		{`query { ...F } fragment F on Query { product(id: "p1") { ... on Product { comments { totalCount } } } }`, "public, max-age=30"},
		// A root field without a hint (__typename) is not reusable.
		{`{ __typename }`, "no-cache"},
		{`{ __typename product(id: "p1") { id } }`, "no-cache"},
	}
	for _, c := range cases {
		r := e.MustGet(t, c.query)
		if r.Status != http.StatusOK || !errorFree(t, r) {
			t.Fatalf("%s: HTTP %d %s", c.query, r.Status, r.Body)
		}
		if got := r.Header.Get("Cache-Control"); got != c.want {
			t.Errorf("%s:\n Cache-Control %q, want %q", c.query, got, c.want)
		}
		if got := r.Header.Get("Vary"); got != "Accept, Authorization, X-API-Key, X-Explain" {
			t.Errorf("%s: Vary %q", c.query, got)
		}
	}
}

func TestCacheControlPrivateWhenAuthenticated(t *testing.T) {
	e := MustCacheEnv(t, gqlhttp.MicroCacheConfig{})
	query := `{ topProducts(first: 2) { rank } }`
	for _, hdr := range [][]string{{"Authorization", "Bearer k"}, {"X-API-Key", "k"}} {
		r := e.MustGet(t, query, hdr...)
		if got := r.Header.Get("Cache-Control"); got != "private, max-age=60" {
			t.Errorf("with %s: Cache-Control %q, want private, max-age=60", hdr[0], got)
		}
	}
	if r := e.MustGet(t, `{ __typename }`, "X-API-Key", "k"); r.Header.Get("Cache-Control") != "private, no-cache" {
		t.Errorf("maxAge 0 with a key: Cache-Control %q", r.Header.Get("Cache-Control"))
	}
}

func TestCacheControlNoStore(t *testing.T) {
	e := MustCacheEnv(t, gqlhttp.MicroCacheConfig{})
	post := func(query string) *gqltest.Response {
		b, _ := json.Marshal(map[string]any{"query": query})
		return e.MustDo(t, http.MethodPost, "", b)
	}
	cases := []struct {
		name string
		r    *gqltest.Response
	}{
		{"POST query", post(`{ product(id: "p1") { id } }`)},
		{"POST mutation", post(`mutation { createComment(input: {productId: "p1", language: "en", rating: 5, author: "a", title: "t", body: "b"}) { comment { id } } }`)},
		{"GET mutation", e.MustGet(t, `mutation { deleteComment(input: {id: "p1-c000"}) { deletedCommentId } }`)},
		{"GET with a field error", e.MustGet(t, `{ product(id: "bad id!") { id } }`)},
		{"GET with a partial error", e.MustGet(t, `{ ok: product(id: "p1") { id } bad: product(id: "p1") { comments(first: 500) { totalCount } } }`)},
		{"GET validation error", e.MustGet(t, `{ product(id: "p1") { nope } }`)},
		{"GET parse error", e.MustGet(t, `{ product(`)},
		{"GET without a query", e.MustDo(t, http.MethodGet, "", nil)},
	}
	for _, c := range cases {
		if got := c.r.Header.Get("Cache-Control"); got != "no-store" {
			t.Errorf("%s (HTTP %d): Cache-Control %q, want no-store", c.name, c.r.Status, got)
		}
		if c.r.Header.Get("ETag") != "" {
			t.Errorf("%s: an ETag on an uncacheable response", c.name)
		}
	}
	if r := cases[0].r; !errorFree(t, r) {
		t.Errorf("POST query failed: %s", r.Body)
	}
}

func TestETagAndNotModified(t *testing.T) {
	e := MustCacheEnv(t, gqlhttp.MicroCacheConfig{})
	query := `{ product(id: "p1") { stats { total } comments(first: 3) { nodes { id title } } } }`
	r := e.MustGet(t, query)
	sum := sha256.Sum256(r.Body)
	etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:]) + `"`
	if got := r.Header.Get("ETag"); got != etag {
		t.Fatalf("ETag %q, want the body's SHA-256 %s", got, etag)
	}
	if again := e.MustGet(t, query); again.Header.Get("ETag") != etag || !bytes.Equal(again.Body, r.Body) {
		t.Fatalf("the same query on the same data: ETag %q, body changed: %v", again.Header.Get("ETag"), !bytes.Equal(again.Body, r.Body))
	}
	for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
		nm := e.MustGet(t, query, "If-None-Match", inm)
		if nm.Status != http.StatusNotModified || len(nm.Body) != 0 {
			t.Errorf("If-None-Match %s: HTTP %d, %d body bytes; want 304 and none", inm, nm.Status, len(nm.Body))
		}
		if nm.Header.Get("ETag") != etag || nm.Header.Get("Cache-Control") != "public, max-age=30" || nm.Header.Get("Vary") == "" {
			t.Errorf("304 headers: %v", nm.Header)
		}
	}
	if other := e.MustGet(t, query, "If-None-Match", `"something-else"`); other.Status != http.StatusOK || !bytes.Equal(other.Body, r.Body) {
		t.Errorf("a stale If-None-Match: HTTP %d", other.Status)
	}
	// A change of the data changes the body, hence the ETag: the old one
	// gets the full new response.
	b, _ := json.Marshal(map[string]any{"query": `mutation { createComment(input: {productId: "p1", language: "en", rating: 4, author: "a", title: "new", body: "b"}) { comment { id } } }`})
	if m := e.MustDo(t, http.MethodPost, "", b); !errorFree(t, m) {
		t.Fatalf("createComment: %s", m.Body)
	}
	changed := e.MustGet(t, query, "If-None-Match", etag)
	if changed.Status != http.StatusOK || changed.Header.Get("ETag") == etag || !bytes.Contains(changed.Body, []byte(`"new"`)) {
		t.Errorf("after a change: HTTP %d, ETag %s, body %s", changed.Status, changed.Header.Get("ETag"), changed.Body)
	}
}

// metric returns the value of a micro-cache metric (a counter or gauge of
// cache="micro", with the given result label, if any), read from the
// registry.
func (e *cacheEnv) metric(t *testing.T, name, result string) float64 {
	t.Helper()
	mfs, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["cache"] != "micro" || labels["result"] != result {
				continue
			}
			return m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return 0
}

func TestMicroCacheServesHotPages(t *testing.T) {
	e := MustCacheEnv(t, gqlhttp.MicroCacheConfig{TTL: time.Hour})
	page := `{ product(id: "big") { comments(first: 5) { totalCount edges { node { id } } } } }`
	first := e.MustGet(t, page)
	calls := e.spy.TotalCalls()
	for range 3 {
		hit := e.MustGet(t, page)
		if !bytes.Equal(hit.Body, first.Body) || hit.Header.Get("ETag") != first.Header.Get("ETag") ||
			hit.Header.Get("Cache-Control") != "public, max-age=30" || hit.Header.Get("Content-Type") != first.Header.Get("Content-Type") {
			t.Fatalf("hit differs: %v %s\nfirst: %v %s", hit.Header, hit.Body, first.Header, first.Body)
		}
	}
	if e.spy.TotalCalls() != calls {
		t.Errorf("hits read the store: %d calls, want %d", e.spy.TotalCalls(), calls)
	}
	if nm := e.MustGet(t, page, "If-None-Match", first.Header.Get("ETag")); nm.Status != http.StatusNotModified {
		t.Errorf("a hit with If-None-Match: HTTP %d", nm.Status)
	}
	const lookups = "comments_cache_lookups_total"
	if hits, misses := e.metric(t, lookups, "hit"), e.metric(t, lookups, "miss"); hits != 4 || misses != 1 {
		t.Errorf("hits %v misses %v, want 4 and 1", hits, misses)
	}
	// Never served from the cache: credentials and X-Explain (not looked
	// up), errors and max-age 0 (not stored).
	uncached := []struct {
		query string
		hdr   []string
	}{
		{page, []string{"X-API-Key", "k"}},
		{page, []string{"X-Explain", "1"}},
		{`{ product(id: "p1") { comments(first: 500) { totalCount } } }`, nil},
		{`{ __typename product(id: "p2") { stats { total } } }`, nil},
	}
	for _, u := range uncached {
		for i := range 2 {
			e.MustGet(t, u.query, u.hdr...)
			if hits := e.metric(t, lookups, "hit"); hits != 4 {
				t.Errorf("%s %v (request %d) was served from the micro-cache", u.query, u.hdr, i+1)
			}
		}
	}
}

func TestMicroCacheStaysWithinItsBytes(t *testing.T) {
	const maxBytes = 16 << 10
	e := MustCacheEnv(t, gqlhttp.MicroCacheConfig{TTL: time.Hour, MaxBytes: maxBytes})
	query := func(i int) string {
		return fmt.Sprintf(`{ p%d: product(id: "big") { comments(first: 10) { edges { node { id title body author } } } } }`, i)
	}
	total := 0
	for i := range 30 {
		total += len(e.MustGet(t, query(i)).Body)
		if b := e.metric(t, "comments_cache_bytes", ""); b > maxBytes {
			t.Fatalf("after %d pages the cache holds %v bytes, over %d", i+1, b, maxBytes)
		}
	}
	if total < 2*maxBytes {
		t.Fatalf("the test's pages hold %d bytes: too few to need evictions", total)
	}
	if ev := e.metric(t, "comments_cache_evictions_total", ""); ev == 0 {
		t.Errorf("no evictions after %d bytes of pages", total)
	}
	// Least recently used first: the last page is still there, the first is not.
	before := e.spy.TotalCalls()
	e.MustGet(t, query(29))
	if e.spy.TotalCalls() != before {
		t.Errorf("the newest page was evicted")
	}
	e.MustGet(t, query(0))
	if e.spy.TotalCalls() == before {
		t.Errorf("the oldest page is still cached")
	}
}

// Concurrent identical misses share one run (see microCache.getOrJoin): all
// get the same reply, and every request is counted once.
func TestMicroCacheConcurrentMisses(t *testing.T) {
	e := MustCacheEnv(t, gqlhttp.MicroCacheConfig{TTL: time.Hour})
	page := `{ product(id: "big") { stats { total } comments(first: 3) { nodes { id } } } }`
	const n = 8
	replies := make(chan *gqltest.Response, n)
	c := gqltest.New(e.srv.URL)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { // t.Errorf, not t.Fatal: this is not the test's goroutine
			r, err := c.Send(context.Background(), http.MethodGet, "?query="+url.QueryEscape(page), nil)
			if err != nil {
				t.Errorf("GET: %v", err)
				return
			}
			replies <- r
		})
	}
	wg.Wait()
	close(replies)
	var first []byte
	for r := range replies {
		if r.Status != http.StatusOK || !errorFree(t, r) || r.Header.Get("Cache-Control") != "public, max-age=30" {
			t.Fatalf("HTTP %d %v %s", r.Status, r.Header, r.Body)
		}
		if first == nil {
			first = r.Body
		} else if !bytes.Equal(first, r.Body) {
			t.Errorf("replies differ:\n%s\n%s", first, r.Body)
		}
	}
	const lookups = "comments_cache_lookups_total"
	if hits, misses := e.metric(t, lookups, "hit"), e.metric(t, lookups, "miss"); hits+misses != n || misses < 1 {
		t.Errorf("hits %v + misses %v, want %d requests with at least one miss", hits, misses, n)
	}
}

// TestMicroCacheKeepsEncodedCopies: with compression outside the cache
// (as serve has it), a hit for a client that accepts gzip is the reply a
// miss gets (Content-Encoding gzip, the encoding's ETag, the same data),
// written from the encoded copy the cache made on the first hit: later
// hits compress nothing; a client that accepts no encoding gets the plain
// reply, and If-None-Match with the encoded tag gets 304.
func TestMicroCacheKeepsEncodedCopies(t *testing.T) {
	compress, err := httpcompress.New(httpcompress.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var encodes atomic.Int32 // calls of the middleware: one for the chain, one per copy made
	counted := func(next http.Handler) http.Handler { encodes.Add(1); return compress(next) }
	srv := httptest.NewServer(resolvers.NewHandler(resolvers.Config{
		Store: store.New(MustOpenLoaded(t, genComments())), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		MicroCache: gqlhttp.MicroCacheConfig{TTL: time.Hour}, Compress: counted,
	}))
	t.Cleanup(srv.Close)
	page := `{ product(id: "big") { comments(first: 20) { totalCount edges { node { id title body } } } } }`
	tr := &http.Transport{DisableCompression: true} // no Accept-Encoding added, nothing decoded
	t.Cleanup(tr.CloseIdleConnections)
	get := func(hdr ...string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"?query="+url.QueryEscape(page), nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, b
	}
	gunzip := func(b []byte) []byte {
		t.Helper()
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		out, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	miss, missBody := get("Accept-Encoding", "gzip")
	tag := miss.Header.Get("ETag")
	if miss.Header.Get("Content-Encoding") != "gzip" || !strings.HasSuffix(tag, `-gzip"`) {
		t.Fatalf("miss: %v", miss.Header)
	}
	made := encodes.Load()
	for i := range 3 {
		hit, hitBody := get("Accept-Encoding", "gzip")
		if hit.Header.Get("Content-Encoding") != "gzip" || hit.Header.Get("ETag") != tag ||
			hit.Header.Get("Cache-Control") != miss.Header.Get("Cache-Control") ||
			!bytes.Equal(gunzip(hitBody), gunzip(missBody)) {
			t.Fatalf("hit %d differs from the miss: %v\nmiss: %v", i, hit.Header, miss.Header)
		}
	}
	if n := encodes.Load() - made; n != 1 {
		t.Errorf("3 hits made %d encoded copies, want 1", n)
	}
	plain, plainBody := get()
	if plain.Header.Get("Content-Encoding") != "" || !bytes.Equal(plainBody, gunzip(missBody)) ||
		plain.Header.Get("ETag") != strings.TrimSuffix(tag, `-gzip"`)+`"` {
		t.Errorf("a client without Accept-Encoding: %v %s", plain.Header, plainBody)
	}
	if nm, _ := get("Accept-Encoding", "gzip", "If-None-Match", tag); nm.StatusCode != http.StatusNotModified || nm.Header.Get("ETag") != tag {
		t.Errorf("If-None-Match %s: HTTP %d %v", tag, nm.StatusCode, nm.Header)
	}
}
