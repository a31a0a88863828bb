package resolvers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/acme/comments-gateway/demo"
	"github.com/acme/comments-gateway/httpcompress"
	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/metrics"
	"github.com/acme/comments-gateway/obs"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
	"github.com/acme/comments-gateway/store/table"
)

// The handler benchmarks: the whole HTTP handler in process (httptest, no
// network) over a bbolt file loaded with the demo data set (50 products,
// 20,000 comments), wired as cmdServe wires it: the access-log middleware
// (JSON, discarded), Prometheus metrics of every store call, and the handler's
// defaults (loader wait 1ms, limits, APQ). Each operation is run by 8
// concurrent clients (b.RunParallel on 2 cores ≈ wrk -c 8), so ns/op is
// wall time per request at saturation, i.e. 1/throughput, and the
// dataloaders' batching window overlaps with other requests' work as it does
// under load. Commands and results: docs/BENCHMARKS.md.

// benchClients is how many goroutines per GOMAXPROCS issue requests.
const benchClients = 4

// benchEnv is the loaded store and one request per scenario.
type benchEnv struct {
	store   *store.Store
	product string // the product with the most comments
	deep    string // an endCursor of its filtered list, from a walk
	pages   int    // pages walked to reach deep
}

// pageQuery is the filtered page of the comparison (language en,
// ratings 2, 3, 5), as a storefront asks for it.
const pageQuery = `query Page($p: ID!, $after: String) { product(id: $p) {
  comments(language: "en", ratings: [2, 3, 5], first: 20, after: $after) {
    totalCount pageInfo { hasNextPage endCursor }
    edges { cursor node { id rating author title body createdAt } } } } }`

// pageNoTotalQuery is the same page without totalCount (which reads the
// product's stats item).
var pageNoTotalQuery = strings.Replace(pageQuery, "totalCount ", "", 1)

// productQuery is a product page: stats, languages and the first comments.
const productQuery = `query ProductPage($p: ID!) { product(id: $p) {
  stats { total averageRating ratings { rating count } }
  languages { language total }
  comments(first: 10) { totalCount pageInfo { hasNextPage endCursor }
    edges { cursor node { id language rating author title body createdAt } } } } }`

const createQuery = `mutation Create($p: ID!) { createComment(input: {productId: $p,
  language: "en", rating: 4, author: "bench", title: "Benchmark", body: "A comment made by the handler benchmark."}) {
  comment { id createdAt } } }`

// MustBenchEnv loads the demo data set into a bbolt file in tb's temp dir
// and walks the largest product's filtered list for a deep cursor.
func MustBenchEnv(tb testing.TB) *benchEnv {
	tb.Helper()
	tbl := bolttest.Open(tb)
	s := store.New(tbl, store.WithSizing(store.SpreadSizing)) // serve's on bolt (-merge-sizing auto)
	cs := demo.Default()
	ctx := context.Background()
	if err := s.PutComments(ctx, cs); err != nil {
		tb.Fatal(err)
	}
	if _, err := s.RebuildStats(ctx, 2); err != nil {
		tb.Fatal(err)
	}
	counts := map[string]int{}
	for _, c := range cs {
		counts[c.ProductID]++
	}
	e := &benchEnv{store: s}
	for p, n := range counts {
		if n > counts[e.product] || (n == counts[e.product] && p < e.product) {
			e.product = p
		}
	}
	e.walk(tb)
	return e
}

// walk pages through the filtered list to its last page (at most 200
// pages) and keeps the cursor that starts the page before it, a full page.
func (e *benchEnv) walk(tb testing.TB) {
	h := e.handler(tb, gqlhttp.MicroCacheConfig{})
	after := ""
	for e.pages < 200 {
		vars := map[string]any{"p": e.product}
		if after != "" {
			vars["after"] = after
		}
		var out struct {
			Data struct {
				Product struct {
					Comments struct {
						PageInfo struct {
							HasNextPage bool
							EndCursor   string
						}
					}
				}
			}
		}
		rec := serve(h, postRequest(pageQuery, vars))
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || rec.Code != http.StatusOK {
			tb.Fatalf("walk page %d: HTTP %d %v %s", e.pages, rec.Code, err, rec.Body.Bytes())
		}
		pi := out.Data.Product.Comments.PageInfo
		if !pi.HasNextPage {
			break
		}
		// deep is the cursor before the page before the last: a full page.
		e.deep, after = after, pi.EndCursor
		e.pages++
	}
	if e.deep == "" {
		tb.Fatalf("the walk of %s found fewer than three pages", e.product)
	}
}

// handler is the /graphql handler as cmdServe builds it, without
// compression.
func (e *benchEnv) handler(tb testing.TB, micro gqlhttp.MicroCacheConfig) http.Handler {
	return e.handlerWith(tb, resolvers.Config{MicroCache: micro})
}

// handlerWith is the /graphql handler as cmdServe builds it, with cfg's
// settings.
func (e *benchEnv) handlerWith(tb testing.TB, cfg resolvers.Config) http.Handler {
	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	log := slog.New(obs.NewHandler(slog.NewJSONHandler(io.Discard, nil)))
	cfg.Store, cfg.Logger, cfg.Metrics = e.store, log, m
	h := obs.Middleware(log, resolvers.NewHandler(cfg))
	// The server's requests account their store calls to the metrics
	// (cmdServe's http.Server BaseContext).
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(table.WithAccountant(r.Context(), m)))
	})
}

func postRequest(query string, vars map[string]any) *http.Request {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	r := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	return r
}

// getURL is the GET /graphql URL of query with vars (what a CDN caches).
func getURL(query string, vars map[string]any) string {
	v, _ := json.Marshal(vars)
	return "/graphql?query=" + url.QueryEscape(query) + "&variables=" + url.QueryEscape(string(v))
}

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

// runParallel serves requests made by newReq with benchClients clients per
// core and fails on any response that is not a 200 without errors.
func runParallel(b *testing.B, h http.Handler, newReq func() *http.Request) {
	b.Helper()
	rec := serve(h, newReq())
	if rec.Code != http.StatusOK || bytes.Contains(rec.Body.Bytes(), []byte(`"errors"`)) {
		b.Fatalf("HTTP %d %s", rec.Code, rec.Body.Bytes())
	}
	if b.N == 1 {
		var out struct{ Extensions map[string]any }
		_ = json.Unmarshal(rec.Body.Bytes(), &out)
		b.Logf("cost %v, %d response bytes", out.Extensions["cost"], rec.Body.Len())
	}
	b.ReportAllocs()
	b.SetParallelism(benchClients)
	cpu0 := processCPU(b)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if rec := serve(h, newReq()); rec.Code != http.StatusOK {
				panic(fmt.Sprintf("HTTP %d %s", rec.Code, rec.Body.Bytes()))
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

// processCPU is the CPU time (user + system) this process has used: on a
// shared machine the CPU per request is steadier than the wall time.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkHandler runs each scenario through the whole handler:
//
//	go test -run '^$' -bench BenchmarkHandler -benchtime 5s ./resolvers/
func BenchmarkHandler(b *testing.B) {
	e := MustBenchEnv(b)
	h := e.handler(b, gqlhttp.MicroCacheConfig{})
	vars := map[string]any{"p": e.product}
	deepVars := map[string]any{"p": e.product, "after": e.deep}
	b.Logf("product %s: the deep page is page %d (pages of 20)", e.product, e.pages)
	b.Run("page1-GET", func(b *testing.B) {
		u := getURL(pageQuery, vars)
		runParallel(b, h, func() *http.Request { return httptest.NewRequest(http.MethodGet, u, nil) })
	})
	b.Run("page1-POST", func(b *testing.B) {
		runParallel(b, h, func() *http.Request { return postRequest(pageQuery, vars) })
	})
	b.Run("page1-nototal-GET", func(b *testing.B) {
		u := getURL(pageNoTotalQuery, vars)
		runParallel(b, h, func() *http.Request { return httptest.NewRequest(http.MethodGet, u, nil) })
	})
	b.Run("page1-nototal-POST", func(b *testing.B) {
		runParallel(b, h, func() *http.Request { return postRequest(pageNoTotalQuery, vars) })
	})
	b.Run("deep-GET", func(b *testing.B) {
		u := getURL(pageQuery, deepVars)
		runParallel(b, h, func() *http.Request { return httptest.NewRequest(http.MethodGet, u, nil) })
	})
	b.Run("deep-nototal-GET", func(b *testing.B) {
		u := getURL(pageNoTotalQuery, deepVars)
		runParallel(b, h, func() *http.Request { return httptest.NewRequest(http.MethodGet, u, nil) })
	})
	for _, order := range []string{"HIGHEST_RATING", "MOST_HELPFUL"} {
		q := strings.Replace(pageNoTotalQuery, "first: 20,", "orderBy: "+order+", first: 20,", 1)
		b.Run("page1-nototal-"+order+"-GET", func(b *testing.B) {
			u := getURL(q, vars)
			runParallel(b, h, func() *http.Request { return httptest.NewRequest(http.MethodGet, u, nil) })
		})
	}
	b.Run("product-GET", func(b *testing.B) {
		u := getURL(productQuery, vars)
		runParallel(b, h, func() *http.Request { return httptest.NewRequest(http.MethodGet, u, nil) })
	})
	b.Run("mutation-POST", func(b *testing.B) {
		runParallel(b, h, func() *http.Request { return postRequest(createQuery, map[string]any{"p": "bench-product"}) })
	})
	// The page-1 GET with the micro-cache on (500ms, 64MB): all but about
	// one request per 500ms are hits.
	hm := e.handler(b, gqlhttp.MicroCacheConfig{TTL: 500 * time.Millisecond, MaxBytes: 64_000_000})
	b.Run("page1-GET-microcache", func(b *testing.B) {
		u := getURL(pageQuery, vars)
		runParallel(b, hm, func() *http.Request { return httptest.NewRequest(http.MethodGet, u, nil) })
	})
	// The same with compression, as serve has it, for a client that takes
	// gzip.
	compress, err := httpcompress.New(httpcompress.Config{})
	if err != nil {
		b.Fatal(err)
	}
	hz := e.handlerWith(b, resolvers.Config{Compress: compress,
		MicroCache: gqlhttp.MicroCacheConfig{TTL: 500 * time.Millisecond, MaxBytes: 64_000_000}})
	b.Run("page1-GET-microcache-gzip", func(b *testing.B) {
		u := getURL(pageQuery, vars)
		runParallel(b, hz, func() *http.Request {
			r := httptest.NewRequest(http.MethodGet, u, nil)
			r.Header.Set("Accept-Encoding", "gzip")
			return r
		})
	})
}
