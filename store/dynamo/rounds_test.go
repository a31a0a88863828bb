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
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rt := roundTrip{start: time.Now(), target: r.Header.Get("X-Amz-Target")}
		time.Sleep(hold)
		rp.ServeHTTP(w, r)
		rt.end = time.Now()
		p.mu.Lock()
		p.calls = append(p.calls, rt)
		p.mu.Unlock()
	}))
	tb.Cleanup(srv.Close)
	c := dynamodb.New(real.Options(), func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	return p, c
}

// TestRoundsPerPage counts the sequential DynamoDB rounds of three pages,
// every call held 40 ms by a proxy, the way the resolvers issue them
// (Store.ListComments with the stats loaded alongside the page's reads; a
// product page's fields concurrently): page 1 of one partition with
// totalCount, a deep merged page with totalCount (from a cursor with
// counts), and a product page (stats, languages, merged page 1 with
// totalCount), the last on a Store that has read the product's stats
// before (a hint) and on a new one (cold). Each is also measured the way
// it was read before ListComments: the stats first, then the page.
func TestRoundsPerPage(t *testing.T) {
	if testing.Short() {
		t.Skip("holds every DynamoDB call 40 ms")
	}
	real := MustClient(t)
	tbl := MustTable(t, real, real)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a loaded machine
	defer cancel()
	cfg := demo.DefaultConfig()
	cfg.Products, cfg.Comments = 2, 3000
	cs := demo.Generate(demo.NewRand(3), cfg)
	loader := store.New(tbl)
	if err := loader.PutComments(ctx, cs); err != nil {
		t.Fatal(err)
	}
	if _, err := loader.RebuildStats(ctx, 2); err != nil {
		t.Fatal(err)
	}
	pid := cs[0].ProductID
	proxy, slow := mustLatencyProxy(t, real, 40*time.Millisecond)
	for _, name := range []string{"balanced", "few-rounds"} {
		t.Run(name, func(t *testing.T) { roundsPerPage(t, tbl.name, slow, proxy, pid, store.Sizings[name]) })
	}
}

func roundsPerPage(t *testing.T, table string, slow *dynamodb.Client, proxy *latencyProxy, pid string, sizing store.Sizing) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	newStore := func() *store.Store { return store.New(New(slow, table), store.WithSizing(sizing)) }
	s := newStore()
	statsOf := func(s *store.Store, lang string) store.StatsFunc {
		return func() (*store.Stats, error) {
			st, err := s.GetStats(ctx, []store.StatsID{{ProductID: pid, Language: lang}})
			if err != nil {
				return nil, err
			}
			return st[0], nil
		}
	}
	// page lists 20 comments with totalCount; statsFirst reads the stats
	// before the page starts, as before ListComments.
	page := func(s *store.Store, f store.Filter, after *string, statsFirst bool) (*store.Connection, error) {
		n := 20
		stats := statsOf(s, f.Language)
		if statsFirst {
			st, err := stats()
			if err != nil {
				return nil, err
			}
			stats = func() (*store.Stats, error) { return st, nil }
		}
		return s.ListComments(ctx, store.CommentsQuery{ProductID: pid, Filter: f, Page: store.PageArgs{First: &n, After: after}, Total: true}, stats)
	}
	merged := store.Filter{Ratings: []int{1, 3, 5}}
	// A cursor 5 pages deep.
	var cursor *string
	for range 5 {
		c, err := page(s, merged, cursor, false)
		if err != nil {
			t.Fatal(err)
		}
		cursor = &c.Edges[len(c.Edges)-1].Cursor
	}
	measure := func(name string, fn func() error) {
		proxy.reset()
		if err := fn(); err != nil {
			t.Fatal(err)
		}
		t.Logf("%-52s %d calls, %d sequential rounds", name, len(proxy.calls), proxy.rounds())
	}
	productPage := func(s *store.Store, statsFirst bool) func() error {
		return func() error {
			g, gctx := errgroup.WithContext(context.Background())
			g.Go(func() error { _, err := statsOf(s, "")(); return err })
			g.Go(func() error { _, err := s.Languages(gctx, pid, store.DefaultLanguages); return err })
			g.Go(func() error { _, err := page(s, merged, nil, statsFirst); return err })
			return g.Wait()
		}
	}
	for _, statsFirst := range []bool{false, true} {
		how := map[bool]string{false: "", true: ", stats first"}[statsFirst]
		measure("page 1, one partition, totalCount"+how, func() error { _, err := page(s, store.Filter{}, nil, statsFirst); return err })
		measure("merged page 6 [1 3 5], totalCount"+how, func() error { _, err := page(s, merged, cursor, statsFirst); return err })
		measure("product page (stats, languages, merged), hint"+how, productPage(s, statsFirst))
		measure("product page, cold (no hint)"+how, productPage(newStore(), statsFirst))
	}
}
