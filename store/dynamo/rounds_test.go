package dynamo

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"golang.org/x/sync/errgroup"

	"github.com/acme/comments-gateway/demo"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/dynamo/dynamotest"
)

// roundTrip is one DynamoDB call as the latency proxy saw it.
type roundTrip struct {
	start, end time.Time
	target     string
}

// roundTripKey is the context key of a call's roundTrip in the proxy.
type roundTripKey struct{}

// latencyProxy is a reverse proxy in front of DynamoDB Local that holds
// every call for a fixed time (a region's round trip) and records when each
// call started and ended.
type latencyProxy struct {
	mu    sync.Mutex
	calls []roundTrip
}

// rounds returns the longest chain of calls each of which started after
// the one before it ended: the sequential rounds on the critical path.
func (p *latencyProxy) rounds() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	calls := slices.Clone(p.calls)
	slices.SortFunc(calls, func(a, b roundTrip) int { return a.start.Compare(b.start) })
	depth := make([]int, len(calls))
	best := 0
	for i, c := range calls {
		depth[i] = 1
		for j := range i {
			if !calls[j].end.After(c.start) {
				depth[i] = max(depth[i], depth[j]+1)
			}
		}
		best = max(best, depth[i])
	}
	return best
}

func (p *latencyProxy) reset() {
	p.mu.Lock()
	p.calls = nil
	p.mu.Unlock()
}

// mustLatencyProxy starts the proxy on 127.0.0.1 (stopped at the end of the
// test) and returns a client that goes through it.
func mustLatencyProxy(tb testing.TB, real *dynamodb.Client, hold time.Duration) (*latencyProxy, *dynamodb.Client) {
	tb.Helper()
	target, err := url.Parse(dynamotest.Endpoint(tb))
	if err != nil {
		tb.Fatal(err)
	}
	p := &latencyProxy{}
	rp := httputil.NewSingleHostReverseProxy(target)
	// A call is recorded when DynamoDB's answer arrives, before the proxy
	// passes it on: the client never sees an answer whose call is not
	// recorded yet.
	rp.ModifyResponse = func(resp *http.Response) error {
		rt := resp.Request.Context().Value(roundTripKey{}).(roundTrip)
		rt.end = time.Now()
		p.mu.Lock()
		p.calls = append(p.calls, rt)
		p.mu.Unlock()
		return nil
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rt := roundTrip{start: time.Now(), target: r.Header.Get("X-Amz-Target")}
		time.Sleep(hold)
		rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), roundTripKey{}, rt)))
	}))
	tb.Cleanup(srv.Close)
	c := dynamodb.New(real.Options(), func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	return p, c
}

// TestRoundsPerPage counts the sequential DynamoDB rounds of pages, every
// call held 40 ms by a proxy, the way the resolvers issue them
// (Store.ListComments with the stats loaded alongside the page's reads; a
// product page's fields concurrently), under the balanced sizing and under
// one-round, DynamoDB's default: page 1 of one partition with totalCount,
// a deep merged page with totalCount (from a cursor with counts), a
// product page (stats, languages, merged page 1 with totalCount) on a
// Store that has read the product's stats before (a hint), on a new one
// (cold) and on one that has read only other products' stats, and walks
// of 30 pages of four merged filters (mean and most
// rounds a page). Each single page is also measured the way it was read
// before ListComments: the stats first, then the page. The rounds the
// proxy saw are logged; what is asserted is the merge's own count of its
// query rounds (Trace.Rounds), which no timing can change: under
// one-round no page takes more than two, and the walks' merged pages take
// at most 1.5 on average.
func TestRoundsPerPage(t *testing.T) {
	if testing.Short() {
		t.Skip("holds every DynamoDB call 40 ms")
	}
	real := MustClient(t)
	tbl := MustTable(t, real, real)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a loaded machine
	defer cancel()
	cfg := demo.DefaultConfig()
	cfg.Products, cfg.Comments = 10, 5000
	cs := demo.Generate(demo.NewRand(3), cfg)
	loader := store.New(tbl)
	if err := loader.PutComments(ctx, cs); err != nil {
		t.Fatal(err)
	}
	if _, err := loader.RebuildStats(ctx, 2); err != nil {
		t.Fatal(err)
	}
	var pids []string
	for _, c := range cs {
		if !slices.Contains(pids, c.ProductID) {
			pids = append(pids, c.ProductID)
		}
	}
	proxy, slow := mustLatencyProxy(t, real, 40*time.Millisecond)
	for _, name := range []string{"balanced", "one-round"} {
		t.Run(name, func(t *testing.T) {
			newStore := func() *store.Store {
				return store.New(New(slow, tbl.name), store.WithSizing(store.Sizings[name]))
			}
			r := &roundsRun{t: t, proxy: proxy, pid: pids[0], others: pids[1:], newStore: newStore}
			r.pages()
			r.walks(name == "one-round")
			everyProduct(t, proxy, pids, newStore, name == "one-round")
		})
	}
}

// roundsRun measures the rounds of pages of product pid on stores from
// newStore, whose calls go through proxy.
type roundsRun struct {
	t        *testing.T
	proxy    *latencyProxy
	pid      string
	others   []string // other products
	newStore func() *store.Store
}

// knowingOthers returns a new Store that has read the stats of the other
// products (not of pid): its hints say how ratings are shared elsewhere.
func (r *roundsRun) knowingOthers() *store.Store {
	s := r.newStore()
	for _, pid := range r.others {
		if _, err := s.GetStats(r.t.Context(), []store.StatsID{{ProductID: pid}}); err != nil {
			r.t.Fatal(err)
		}
	}
	return s
}

func (r *roundsRun) statsOf(s *store.Store, lang string) store.StatsFunc {
	return func() (*store.Stats, error) {
		st, err := s.GetStats(r.t.Context(), []store.StatsID{{ProductID: r.pid, Language: lang}})
		if err != nil {
			return nil, err
		}
		return st[0], nil
	}
}

// page lists 20 comments with totalCount; statsFirst reads the stats
// before the page starts, as before ListComments.
func (r *roundsRun) page(s *store.Store, f store.Filter, after *string, statsFirst bool) (*store.Connection, error) {
	n := 20
	stats := r.statsOf(s, f.Language)
	if statsFirst {
		st, err := stats()
		if err != nil {
			return nil, err
		}
		stats = func() (*store.Stats, error) { return st, nil }
	}
	return s.ListComments(r.t.Context(), store.CommentsQuery{ProductID: r.pid, Filter: f, Page: store.PageArgs{First: &n, After: after}, Total: true}, stats)
}

// measure runs fn and returns the calls and the sequential rounds the proxy
// saw.
func (r *roundsRun) measure(fn func() error) (calls, rounds int) {
	r.proxy.reset()
	if err := fn(); err != nil {
		r.t.Fatal(err)
	}
	r.proxy.mu.Lock()
	calls = len(r.proxy.calls)
	r.proxy.mu.Unlock()
	return calls, r.proxy.rounds()
}

var mergedFilter = store.Filter{Ratings: []int{1, 3, 5}}

// pages measures page 1, a merged page 6 and the product page.
func (r *roundsRun) pages() {
	t := r.t
	s := r.newStore()
	var cursor *string // 5 pages deep
	for range 5 {
		c, err := r.page(s, mergedFilter, cursor, false)
		if err != nil {
			t.Fatal(err)
		}
		cursor = &c.Edges[len(c.Edges)-1].Cursor
	}
	productPage := func(s *store.Store, statsFirst bool) func() error {
		return func() error {
			g, gctx := errgroup.WithContext(t.Context())
			g.Go(func() error { _, err := r.statsOf(s, "")(); return err })
			g.Go(func() error { _, err := s.Languages(gctx, r.pid, store.DefaultLanguages); return err })
			g.Go(func() error { _, err := r.page(s, mergedFilter, nil, statsFirst); return err })
			return g.Wait()
		}
	}
	for _, statsFirst := range []bool{false, true} {
		how := map[bool]string{false: "", true: ", stats first"}[statsFirst]
		for _, m := range []struct {
			name string
			fn   func() error
		}{
			{"page 1, one partition, totalCount", func() error { _, err := r.page(s, store.Filter{}, nil, statsFirst); return err }},
			{"merged page 6 [1 3 5], totalCount", func() error { _, err := r.page(s, mergedFilter, cursor, statsFirst); return err }},
			{"product page (stats, languages, merged), hint", productPage(s, statsFirst)},
			{"product page, cold (no hint)", productPage(r.newStore(), statsFirst)},
			{"product page, cold, other products' hints", productPage(r.knowingOthers(), statsFirst)},
		} {
			calls, rounds := r.measure(m.fn)
			t.Logf("%-60s %d calls, %d sequential rounds", m.name+how, calls, rounds)
		}
	}
}

// everyProduct measures, on each product, its product page (with a hint:
// its stats read before) and page 6 of the merged filter, and logs the mean
// and most rounds of each over the products; bounded asserts the merges'
// query rounds (at most 1.5 on average, 2 at most).
func everyProduct(t *testing.T, proxy *latencyProxy, pids []string, newStore func() *store.Store, bounded bool) {
	s := newStore()
	var product, deep [2][]int // [proxy, query] rounds
	for _, pid := range pids {
		r := &roundsRun{t: t, proxy: proxy, pid: pid, newStore: newStore}
		if _, err := r.statsOf(s, "")(); err != nil { // the hint
			t.Fatal(err)
		}
		var c *store.Connection
		_, rounds := r.measure(func() error {
			g, gctx := errgroup.WithContext(t.Context())
			g.Go(func() error { _, err := r.statsOf(s, "")(); return err })
			g.Go(func() error { _, err := s.Languages(gctx, pid, store.DefaultLanguages); return err })
			g.Go(func() (err error) { c, err = r.page(s, mergedFilter, nil, false); return err })
			return g.Wait()
		})
		product[0], product[1] = append(product[0], rounds), append(product[1], c.Trace.Rounds)
		for range 5 {
			if c, err := r.page(s, mergedFilter, &c.Edges[len(c.Edges)-1].Cursor, false); err != nil {
				t.Fatal(err)
			} else {
				_, rounds = r.measure(func() error { _, err := r.page(s, mergedFilter, &c.Edges[len(c.Edges)-1].Cursor, false); return err })
			}
		}
		deep[0] = append(deep[0], rounds)
	}
	for _, m := range []struct {
		name   string
		rounds [2][]int
	}{{"product page (hint)", product}, {"merged page 6 [1 3 5]", deep}} {
		t.Logf("%s on %d products: proxy rounds mean %.2f, most %d", m.name, len(pids), meanOf(m.rounds[0]), slices.Max(m.rounds[0]))
	}
	if bounded && (slices.Max(product[1]) > 2 || meanOf(product[1]) > 1.5) {
		t.Errorf("product pages: query rounds mean %.2f, most %d; want at most 1.5 and 2", meanOf(product[1]), slices.Max(product[1]))
	}
}

func meanOf(xs []int) float64 {
	sum := 0
	for _, x := range xs {
		sum += x
	}
	return float64(sum) / float64(len(xs))
}

// walks pages through 30 pages of merged filters, logging the mean and most
// rounds a page (as the proxy saw them, and as the merge counted its query
// rounds); bounded asserts the merge's counts.
func (r *roundsRun) walks(bounded bool) {
	t := r.t
	for _, f := range []store.Filter{mergedFilter, {Ratings: []int{1, 2}}, {Ratings: []int{4, 5}}, {Ratings: []int{1, 2, 3, 4}}} {
		s := r.newStore()
		var cursor *string
		var sumProxy, maxProxy, sumTrace, maxTrace, pages int
		for range 30 {
			var c *store.Connection
			_, rounds := r.measure(func() (err error) { c, err = r.page(s, f, cursor, false); return err })
			sumProxy, maxProxy = sumProxy+rounds, max(maxProxy, rounds)
			sumTrace, maxTrace = sumTrace+c.Trace.Rounds, max(maxTrace, c.Trace.Rounds)
			pages++
			if !c.HasNextPage {
				break
			}
			cursor = &c.Edges[len(c.Edges)-1].Cursor
		}
		mean := float64(sumTrace) / float64(pages)
		t.Logf("walk %v, %d pages: proxy rounds mean %.2f, most %d; query rounds mean %.2f, most %d",
			f.Ratings, pages, float64(sumProxy)/float64(pages), maxProxy, mean, maxTrace)
		if bounded && (maxTrace > 2 || mean > 1.5) {
			t.Errorf("walk %v: query rounds a page mean %.2f, most %d; want at most 1.5 and 2", f.Ratings, mean, maxTrace)
		}
	}
}
