package resolvers_test

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acme/comments-gateway/internal/gqltest"
	"github.com/acme/comments-gateway/internal/testutil"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
	"github.com/acme/comments-gateway/store/storetest"
	"github.com/acme/comments-gateway/store/table"
)

// testLoaderWait is the dataloaders' batching window in these tests. The
// default (2ms) is tuned for latency; on a loaded 2-core CI machine under
// -race, the 90 resolvers of a 30-product query may take longer than that to
// reach their Load calls, and a late one would start a second batch. 100ms
// makes "one BatchGet per request" deterministic without hiding a real
// batching bug: keys that arrive sequentially (one per request round trip)
// would still show up as several calls. (Measured: 0 splits in 270 runs of
// the 30-product test with three -race test binaries sharing 2 cores; with
// GOMAXPROCS=1 under that load a 20ms window could still close early, 3 in
// 90; hence 100ms.)
const testLoaderWait = 100 * time.Millisecond

// ---------------------------------------------------------------------------
// The data set.

var t0 = time.Date(2024, 3, 1, 8, 0, 0, 0, time.UTC)

// bigID is a product with 60 comments in three languages (en 30, de 20,
// fr 10), no 2-star comment, and two comments with the same createdAt.
const bigID = "big"

// genComments returns the test data set:
//   - p0..p29: 3 to 6 comments each, in en and de (p6, p13, p20, p27 only
//     in de, so their en stats item does not exist), ratings spread;
//   - big: see bigID;
//   - no comments at all for any other product id (e.g. "empty").
func genComments() []*store.Comment {
	var cs []*store.Comment
	add := func(pid string, k int, lang string, rating int, at time.Time) {
		cs = append(cs, &store.Comment{
			ID: fmt.Sprintf("%s-c%03d", pid, k), ProductID: pid, Language: lang, Rating: rating,
			Author: fmt.Sprintf("author %d", k), Title: fmt.Sprintf("title %s %d", pid, k),
			Body: fmt.Sprintf("body of comment %d on %s", k, pid), CreatedAt: at,
		})
	}
	for i := range 30 {
		pid := fmt.Sprintf("p%d", i)
		for k := range 3 + i%4 {
			lang := "en"
			if k%2 == 1 || i%7 == 6 {
				lang = "de"
			}
			add(pid, k, lang, (3*i+k)%5+1, t0.Add(time.Duration(i*100+k)*time.Minute))
		}
	}
	cycle := []int{5, 5, 4, 5, 3, 1, 5, 4, 3, 5, 1, 4}
	for k := range 60 {
		lang := "en"
		switch k % 6 {
		case 3, 4:
			lang = "de"
		case 5:
			lang = "fr"
		}
		at := t0.Add(time.Duration(k) * time.Hour)
		if k == 11 {
			at = t0.Add(10 * time.Hour) // same createdAt as big-c010: ordered by id
		}
		add(bigID, k, lang, cycle[k%len(cycle)], at)
	}
	return cs
}

func idsOf(cs []*store.Comment) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

// ---------------------------------------------------------------------------
// A store.Table decorator that counts calls and can inject faults.

// spyTable counts the calls of every method, records the keys of every
// BatchGet and every Query, and runs optional hooks before the wrapped
// Table (a hook may return an error or panic). Safe for concurrent use.
type spyTable struct {
	table.Table

	mu        sync.Mutex
	calls     map[string]int
	batchKeys [][]table.Key
	queries   []table.Query

	onQuery    func(table.Query) error
	onBatchGet func([]table.Key) error
	onGet      func(table.Key) error
}

func newSpy(t table.Table) *spyTable { return &spyTable{Table: t, calls: map[string]int{}} }

func (s *spyTable) record(method string) {
	s.mu.Lock()
	s.calls[method]++
	s.mu.Unlock()
}

// Reset forgets every call recorded so far.
func (s *spyTable) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = map[string]int{}
	s.batchKeys, s.queries = nil, nil
}

// SetHooks installs fault hooks (nil removes one).
func (s *spyTable) SetHooks(query func(table.Query) error, batchGet func([]table.Key) error, get func(table.Key) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onQuery, s.onBatchGet, s.onGet = query, batchGet, get
}

func (s *spyTable) Calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}

// TotalCalls is the number of calls of any method.
func (s *spyTable) TotalCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		n += c
	}
	return n
}

func (s *spyTable) CallsString() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprint(s.calls)
}

// MustOneBatchGet fails tb unless exactly one BatchGet was made, and
// returns its keys.
func (s *spyTable) MustOneBatchGet(tb testing.TB) []table.Key {
	tb.Helper()
	batches := s.BatchKeys()
	if len(batches) != 1 {
		var sizes []int
		for _, b := range batches {
			sizes = append(sizes, len(b))
		}
		tb.Fatalf("BatchGet calls = %d (keys per call %v), want 1 (calls %s)", len(batches), sizes, s.CallsString())
	}
	return batches[0]
}

func (s *spyTable) BatchKeys() [][]table.Key {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.batchKeys)
}

func (s *spyTable) Queries() []table.Query {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.queries)
}

// StatsQueries and PageQueries split Queries: the reads of counter shards
// (GetStats on a remote table: a base-table Query of a product's "S…"
// sort keys) and the rest.
func (s *spyTable) StatsQueries() []table.Query {
	return slices.DeleteFunc(s.Queries(), func(q table.Query) bool { return !isStatsQuery(q) })
}

func (s *spyTable) PageQueries() []table.Query { return slices.DeleteFunc(s.Queries(), isStatsQuery) }

func isStatsQuery(q table.Query) bool {
	return q.Index == "" && q.SortOp == table.SortBeginsWith && strings.HasPrefix(q.SortValue, "S")
}

func (s *spyTable) Get(ctx context.Context, k table.Key) (table.Item, error) {
	s.mu.Lock()
	s.calls["Get"]++
	hook := s.onGet
	s.mu.Unlock()
	if hook != nil {
		if err := hook(k); err != nil {
			return nil, err
		}
	}
	return s.Table.Get(ctx, k)
}

func (s *spyTable) BatchGet(ctx context.Context, keys []table.Key) ([]table.Item, error) {
	s.mu.Lock()
	s.calls["BatchGet"]++
	s.batchKeys = append(s.batchKeys, slices.Clone(keys))
	hook := s.onBatchGet
	s.mu.Unlock()
	if hook != nil {
		if err := hook(keys); err != nil {
			return nil, err
		}
	}
	return s.Table.BatchGet(ctx, keys)
}

func (s *spyTable) Query(ctx context.Context, q table.Query) (table.QueryResult, error) {
	s.mu.Lock()
	s.calls["Query"]++
	s.queries = append(s.queries, q)
	hook := s.onQuery
	s.mu.Unlock()
	if hook != nil {
		if err := hook(q); err != nil {
			return table.QueryResult{}, err
		}
	}
	return s.Table.Query(ctx, q)
}

func (s *spyTable) Write(ctx context.Context, ops []table.Op) error {
	s.record("Write")
	return s.Table.Write(ctx, ops)
}

func (s *spyTable) BatchPut(ctx context.Context, items []table.Item) error {
	s.record("BatchPut")
	return s.Table.BatchPut(ctx, items)
}

func (s *spyTable) Scan(ctx context.Context, seg, total int, startKey table.Item, limit int) ([]table.Item, table.Item, error) {
	s.record("Scan")
	return s.Table.Scan(ctx, seg, total, startKey, limit)
}

// ---------------------------------------------------------------------------
// The environment: a real bbolt store, loaded, behind the spy and the handler.

type env struct {
	data  []*store.Comment
	spy   *spyTable
	store *store.Store
	h     http.Handler    // the GraphQL handler
	c     *gqltest.Client // h, served on 127.0.0.1
	log   *testutil.SyncBuffer
}

// MustOpenLoaded opens a bbolt store in tb's temp dir and bulk-loads cs.
func MustOpenLoaded(tb testing.TB, cs []*store.Comment) *bolt.Table {
	tb.Helper()
	tbl := bolttest.Open(tb)
	s := store.New(tbl)
	if err := s.PutComments(context.Background(), cs); err != nil {
		tb.Fatalf("PutComments: %v", err)
	}
	if _, err := s.RebuildStats(context.Background(), 2); err != nil {
		tb.Fatalf("RebuildStats: %v", err)
	}
	return tbl
}

// MustEnv returns a handler over a freshly loaded store, with the test
// loader window (see testLoaderWait).
func MustEnv(tb testing.TB) *env {
	tb.Helper()
	return MustEnvWait(tb, testLoaderWait)
}

// MustEnvWait is MustEnv with the given loader window.
func MustEnvWait(tb testing.TB, wait time.Duration) *env {
	tb.Helper()
	return MustEnvData(tb, genComments(), resolvers.Config{LoaderWait: wait})
}

// MustEnvData is a handler configured by cfg over a store loaded with data
// (cfg's Store and Logger are set here).
func MustEnvData(tb testing.TB, data []*store.Comment, cfg resolvers.Config) *env {
	tb.Helper()
	tbl := MustOpenLoaded(tb, data)
	spy := newSpy(tbl)
	s := store.New(spy)
	log := &testutil.SyncBuffer{}
	cfg.Store, cfg.Logger = s, slog.New(slog.NewTextHandler(log, nil))
	h := resolvers.NewHandler(cfg)
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return &env{data: data, spy: spy, store: s, h: h, c: gqltest.New(srv.URL), log: log}
}

// MustDo posts query and returns the response; it fails tb only when the
// request itself fails (an HTTP status >= 400 or an undecodable body).
func (e *env) MustDo(tb testing.TB, query string, opts ...gqltest.Option) *gqltest.Response {
	tb.Helper()
	r := e.c.MustDo(tb, query, nil, opts...)
	if r.Status >= http.StatusBadRequest {
		tb.Fatalf("POST %s: HTTP %d: %s", query, r.Status, r.Body)
	}
	return r
}

// MustQuery posts query, fails tb on any GraphQL error, and decodes data
// into out (when non-nil).
func (e *env) MustQuery(tb testing.TB, query string, out any, opts ...gqltest.Option) *gqltest.Response {
	tb.Helper()
	r := e.MustDo(tb, query, opts...)
	if len(r.Errors) > 0 {
		tb.Fatalf("query %s\nerrors: %s", query, r.RawErrors)
	}
	if out != nil {
		if err := json.Unmarshal(r.Data, out); err != nil {
			tb.Fatalf("decoding data %s: %v", r.Data, err)
		}
	}
	return r
}

// MustOneError checks that r has exactly one error, with code, and returns it.
func MustOneError(tb testing.TB, r *gqltest.Response, code string) gqltest.Error {
	tb.Helper()
	if len(r.Errors) != 1 {
		tb.Fatalf("want exactly one error with code %s, got %d: %s (data %s)", code, len(r.Errors), r.RawErrors, r.Data)
	}
	if got := r.Errors[0].Code(); got != code {
		tb.Fatalf("extensions.code = %q, want %q (error %s)", got, code, r.RawErrors)
	}
	return r.Errors[0]
}

// MustNoData checks that every error's field is null in data, and that
// the error lost only that field: data and every field on the way to it are
// objects (the failed field's siblings are still answered).
func MustNoData(tb testing.TB, r *gqltest.Response) {
	tb.Helper()
	var d any
	if len(r.Data) == 0 { // no data at all: as null
		r.Data = json.RawMessage("null")
	}
	if err := json.Unmarshal(r.Data, &d); err != nil {
		tb.Fatalf("decoding data %s: %v", r.Data, err)
	}
	for _, e := range r.Errors {
		v := d
		for i, p := range e.Path {
			var next any
			switch x := v.(type) {
			case map[string]any:
				k, _ := p.(string)
				next = x[k]
			case []any:
				if n, ok := p.(float64); ok && int(n) < len(x) {
					next = x[int(n)]
				}
			default:
				tb.Fatalf("data at %v is %v: the error at %s nulled more than its field (data %s)", e.Path[:i], v, e.PathString(), r.Data)
			}
			v = next
		}
		if v != nil {
			tb.Fatalf("data at %s = %v after an error, want null (data %s)", e.PathString(), v, r.Data)
		}
	}
}

// leakMarkers are strings of the storage layer that must never reach a client
// in an error message.
var leakMarkers = []string{"PRODUCT#", "COMMENT#", "GSISK", "GSIPK", "bolt", "bbolt", "panic", "goroutine", ".go:"}

func MustNotLeak(tb testing.TB, msg string) {
	tb.Helper()
	for _, m := range leakMarkers {
		if strings.Contains(msg, m) {
			tb.Errorf("error message %q leaks %q", msg, m)
		}
	}
}

// ---------------------------------------------------------------------------
// 1. Batching.

type page struct {
	TotalCount int `json:"totalCount"`
	PageInfo   struct {
		HasNextPage     bool    `json:"hasNextPage"`
		HasPreviousPage bool    `json:"hasPreviousPage"`
		StartCursor     *string `json:"startCursor"`
		EndCursor       *string `json:"endCursor"`
	} `json:"pageInfo"`
	Edges []struct {
		Cursor string `json:"cursor"`
		Node   struct {
			ID string `json:"id"`
		} `json:"node"`
	} `json:"edges"`
	Nodes []struct {
		ID        string `json:"id"`
		Rating    int    `json:"rating"`
		Language  string `json:"language"`
		CreatedAt string `json:"createdAt"`
	} `json:"nodes"`
}

func (p page) NodeIDs() []string {
	out := make([]string, len(p.Nodes))
	for i, n := range p.Nodes {
		out[i] = n.ID
	}
	return out
}

func (p page) EdgeIDs() []string {
	out := make([]string, len(p.Edges))
	for i, e := range p.Edges {
		out[i] = e.Node.ID
	}
	return out
}

type ratingCount struct {
	Rating int `json:"rating"`
	Count  int `json:"count"`
}

type stats struct {
	Language      *string       `json:"language"`
	Total         int           `json:"total"`
	AverageRating *float64      `json:"averageRating"`
	Ratings       []ratingCount `json:"ratings"`
}

func countOf(cs []*store.Comment, pid, lang string) int {
	return len(storetest.Recount(cs, pid, lang, nil))
}

func TestBatchingThirtyProductsOneBatchGet(t *testing.T) {
	e := MustEnv(t)
	var q strings.Builder
	q.WriteString("{\n")
	for i := range 30 {
		fmt.Fprintf(&q, "  p%d: product(id: \"p%d\") { stats { total } s2: stats(language: \"en\") { total } comments(first: 2) { totalCount nodes { id } } }\n", i, i)
	}
	q.WriteString("}")
	e.spy.Reset()

	var got map[string]struct {
		Stats    stats `json:"stats"`
		S2       stats `json:"s2"`
		Comments page  `json:"comments"`
	}
	e.MustQuery(t, q.String(), &got)

	// All stats of the request: 60 distinct (30 products × {all, en}),
	// each read once; comments(…) reuses the loader's (product, all) entry
	// rather than reading it again. A language's counter shards are one
	// Query; those of all languages a Query of shards 1 to 7 and shard 0
	// by key, in one BatchGet for the request.
	keys := e.spy.MustOneBatchGet(t)
	want := map[table.Key]bool{}
	wantStats := map[string]bool{}
	for i := range 30 {
		pid := fmt.Sprintf("p%d", i)
		want[store.StatsKey(pid, "")] = true
		wantStats[store.ProductPK(pid)+" S,"] = true
		wantStats[store.ProductPK(pid)+" "+store.StatsKey(pid, "en").SK] = true
	}
	seen := map[table.Key]bool{}
	for _, k := range keys {
		if !want[k] {
			t.Errorf("unexpected BatchGet key %v", k)
		}
		if seen[k] {
			t.Errorf("duplicate BatchGet key %v", k)
		}
		seen[k] = true
	}
	if len(seen) != len(want) {
		t.Errorf("BatchGet read %d distinct keys, want %d: %v", len(seen), len(want), keys)
	}
	statsRead := map[string]bool{}
	for _, q := range e.spy.StatsQueries() {
		k := q.HashValue + " " + q.SortValue
		if !wantStats[k] || statsRead[k] {
			t.Errorf("unexpected or repeated stats Query %s", k)
		}
		statsRead[k] = true
	}
	if len(statsRead) != len(wantStats) {
		t.Errorf("stats Queries read %d stats, want %d", len(statsRead), len(wantStats))
	}

	// comments: one Query per product's partition, no Get, nothing else.
	if n := e.spy.Calls("Get"); n != 0 {
		t.Errorf("Get calls = %d, want 0", n)
	}
	for _, m := range []string{"Write", "BatchPut", "Scan"} {
		if n := e.spy.Calls(m); n != 0 {
			t.Errorf("%s calls = %d, want 0", m, n)
		}
	}
	qs := e.spy.PageQueries()
	if len(qs) != 30 {
		t.Errorf("page Query calls = %d, want 30 (one per partition)", len(qs))
	}
	perPartition := map[string]int{}
	for _, qq := range qs {
		perPartition[qq.Index+" "+qq.HashValue]++
	}
	for i := range 30 {
		pid := fmt.Sprintf("p%d", i)
		idx, key := store.PartitionKey(pid, "", 0)
		if n := perPartition[idx+" "+key]; n != 1 {
			t.Errorf("partition %s %s queried %d times, want 1", idx, key, n)
		}
	}

	// And the answers are right.
	for i := range 30 {
		pid := fmt.Sprintf("p%d", i)
		p := got[pid]
		if w := countOf(e.data, pid, ""); p.Stats.Total != w || p.Comments.TotalCount != w {
			t.Errorf("%s: stats.total %d, comments.totalCount %d, want %d", pid, p.Stats.Total, p.Comments.TotalCount, w)
		}
		if w := countOf(e.data, pid, "en"); p.S2.Total != w {
			t.Errorf("%s: stats(en).total %d, want %d", pid, p.S2.Total, w)
		}
		if w := idsOf(storetest.Recount(e.data, pid, "", nil)[:2]); !slices.Equal(p.Comments.NodeIDs(), w) {
			t.Errorf("%s: comments(first: 2) = %v, want %v", pid, p.Comments.NodeIDs(), w)
		}
	}
}

func TestBatchingCommentByIDOneBatchGet(t *testing.T) {
	e := MustEnv(t)
	ids := []string{"p0-c000", "p1-c001", "p2-c002", "p3-c000", "p4-c001", "p5-c003", "big-c000", "big-c059", "p29-c005", "no-such-comment"}
	var q strings.Builder
	q.WriteString("{\n")
	for i, id := range ids {
		fmt.Fprintf(&q, "  c%d: comment(id: %q) { id rating language }\n", i, id)
	}
	q.WriteString("}")
	e.spy.Reset()

	var got map[string]*struct {
		ID       string `json:"id"`
		Rating   int    `json:"rating"`
		Language string `json:"language"`
	}
	e.MustQuery(t, q.String(), &got)

	if n := e.spy.Calls("BatchGet"); n != 1 || e.spy.TotalCalls() != 1 {
		t.Fatalf("want exactly one BatchGet and nothing else, got %s", e.spy.CallsString())
	}
	keys := e.spy.BatchKeys()[0]
	if len(keys) != len(ids) {
		t.Errorf("BatchGet keys = %d, want %d", len(keys), len(ids))
	}
	byID := map[string]*store.Comment{}
	for _, c := range e.data {
		byID[c.ID] = c
	}
	for i, id := range ids {
		g := got[fmt.Sprintf("c%d", i)]
		w := byID[id]
		switch {
		case w == nil && g != nil:
			t.Errorf("comment(%q) = %+v, want null", id, g)
		case w != nil && g == nil:
			t.Errorf("comment(%q) = null, want %s", id, id)
		case w != nil && (g.ID != w.ID || g.Rating != w.Rating || g.Language != w.Language):
			t.Errorf("comment(%q) = %+v, want %+v", id, g, w)
		}
	}
}

func TestBatchingTopProductsOneQueryOneBatchGet(t *testing.T) {
	e := MustEnv(t)
	e.spy.Reset()
	var got struct {
		TopProducts []struct {
			Rank          int `json:"rank"`
			FiveStarCount int `json:"fiveStarCount"`
			Product       struct {
				ID    string `json:"id"`
				Stats stats  `json:"stats"`
			} `json:"product"`
		} `json:"topProducts"`
	}
	e.MustQuery(t, `{ topProducts(first: 30) { rank fiveStarCount product { id stats { total } } } }`, &got)

	// The ranking: one Query per leaderboard shard and marker partition;
	// the stats of each ranked product: a Query of its counter shards 1 to
	// 7, and their shards 0 in one BatchGet.
	if n := len(e.spy.PageQueries()); n != 2*store.LeaderShards || len(e.spy.StatsQueries()) != len(got.TopProducts) ||
		e.spy.Calls("BatchGet") != 1 || e.spy.TotalCalls() != 2*store.LeaderShards+len(got.TopProducts)+1 {
		t.Fatalf("want one Query per leaderboard shard and marker partition, one per ranked product (%d), and one BatchGet, got %s",
			len(got.TopProducts), e.spy.CallsString())
	}
	shards := map[string]bool{}
	for _, q := range e.spy.PageQueries() {
		shards[q.Index+" "+q.HashValue] = true
	}
	for n := range store.LeaderShards {
		for _, k := range []string{table.IndexByLangAndRating + " " + store.LeadersShardPK("", n), " " + store.PendingPK(n)} {
			if !shards[k] {
				t.Errorf("no query on %q: %v", k, shards)
			}
		}
	}
	if n := len(e.spy.BatchKeys()[0]); n != len(got.TopProducts) {
		t.Errorf("BatchGet keys = %d, want %d (the counter shard 0 of each ranked product)", n, len(got.TopProducts))
	}

	// The expected leaderboard, recounted from the data.
	five := map[string]int{}
	for _, c := range e.data {
		if c.Rating == 5 {
			five[c.ProductID]++
		}
	}
	var want []string
	for pid := range five {
		want = append(want, pid)
	}
	slices.SortFunc(want, func(a, b string) int {
		if c := cmp.Compare(five[b], five[a]); c != 0 {
			return c
		}
		return strings.Compare(b, a)
	})
	want = want[:min(30, len(want))]
	if len(got.TopProducts) != len(want) {
		t.Fatalf("topProducts has %d entries, want %d", len(got.TopProducts), len(want))
	}
	for i, r := range got.TopProducts {
		pid := want[i]
		if r.Rank != i+1 || r.Product.ID != pid || r.FiveStarCount != five[pid] || r.Product.Stats.Total != countOf(e.data, pid, "") {
			t.Errorf("topProducts[%d] = {rank %d, %s, 5★ %d, total %d}, want {rank %d, %s, 5★ %d, total %d}",
				i, r.Rank, r.Product.ID, r.FiveStarCount, r.Product.Stats.Total, i+1, pid, five[pid], countOf(e.data, pid, ""))
		}
	}
}

// TestLoaderCacheIsPerRequest: the loaders cache for their lifetime, which
// must be one request; stats changed between two requests are seen.
func TestLoaderCacheIsPerRequest(t *testing.T) {
	e := MustEnv(t)
	const q = `{ product(id: "p1") { stats { total ratings { rating count } } en: stats(language: "en") { total } comments(first: 1) { totalCount } } }`
	type ans struct {
		Product struct {
			Stats    stats `json:"stats"`
			En       stats `json:"en"`
			Comments page  `json:"comments"`
		} `json:"product"`
	}
	var before, after ans
	e.MustQuery(t, q, &before)
	e.MustQuery(t, `mutation { createComment(input: {productId: "p1", language: "en", rating: 5, author: "A", title: "T", body: "B"}) { comment { id } } }`, nil)
	e.MustQuery(t, q, &after)

	b, a := before.Product, after.Product
	if a.Stats.Total != b.Stats.Total+1 || a.En.Total != b.En.Total+1 || a.Comments.TotalCount != b.Comments.TotalCount+1 {
		t.Errorf("after a createComment: total %d→%d, en %d→%d, totalCount %d→%d; want each +1",
			b.Stats.Total, a.Stats.Total, b.En.Total, a.En.Total, b.Comments.TotalCount, a.Comments.TotalCount)
	}
	if a.Stats.Ratings[4].Count != b.Stats.Ratings[4].Count+1 {
		t.Errorf("5-star count %d→%d, want +1", b.Stats.Ratings[4].Count, a.Stats.Ratings[4].Count)
	}
}

// TestMutationsMoveStats: update and delete move the comment's counts
// between the stats items (all languages and per language) and the
// leaderboard, as a recount would.
func TestMutationsMoveStats(t *testing.T) {
	e := MustEnv(t)
	const q = `{ product(id: "big") {
	  stats { total ratings { rating count } }
	  en: stats(language: "en") { total ratings { rating count } }
	  de: stats(language: "de") { total ratings { rating count } }
	} top: topProducts(first: 100) { product { id } fiveStarCount } }`
	type ans struct {
		Product struct {
			Stats stats `json:"stats"`
			En    stats `json:"en"`
			De    stats `json:"de"`
		} `json:"product"`
		Top []struct {
			Product       struct{ ID string } `json:"product"`
			FiveStarCount int                 `json:"fiveStarCount"`
		} `json:"top"`
	}
	read := func() ans {
		t.Helper()
		var a ans
		e.MustQuery(t, q, &a)
		return a
	}
	five := func(a ans) int {
		for _, r := range a.Top {
			if r.Product.ID == bigID {
				return r.FiveStarCount
			}
		}
		return 0
	}
	b := read()
	// big-c000 is en, 5 stars: make it de, 2 stars.
	var up struct {
		UpdateComment struct {
			Comment struct {
				Language string `json:"language"`
				Rating   int    `json:"rating"`
				Title    string `json:"title"`
			} `json:"comment"`
		} `json:"updateComment"`
	}
	e.MustQuery(t, `mutation { updateComment(input: {id: "big-c000", language: "DE", rating: 2}) { comment { language rating title } } }`, &up)
	if c := up.UpdateComment.Comment; c.Language != "de" || c.Rating != 2 || c.Title != "title big 0" {
		t.Errorf("updateComment returned %+v", c)
	}
	a := read()
	if a.Product.Stats.Total != b.Product.Stats.Total ||
		a.Product.Stats.Ratings[4].Count != b.Product.Stats.Ratings[4].Count-1 || a.Product.Stats.Ratings[1].Count != 1 ||
		a.Product.En.Total != b.Product.En.Total-1 || a.Product.En.Ratings[4].Count != b.Product.En.Ratings[4].Count-1 ||
		a.Product.De.Total != b.Product.De.Total+1 || a.Product.De.Ratings[1].Count != b.Product.De.Ratings[1].Count+1 {
		t.Errorf("after the update: %+v, before: %+v", a.Product, b.Product)
	}
	if five(a) != five(b)-1 {
		t.Errorf("leaderboard 5★ count of big %d → %d, want -1", five(b), five(a))
	}
	var del struct {
		DeleteComment struct {
			DeletedCommentID string `json:"deletedCommentId"`
		} `json:"deleteComment"`
	}
	e.MustQuery(t, `mutation { deleteComment(input: {id: "big-c000"}) { deletedCommentId } }`, &del)
	if del.DeleteComment.DeletedCommentID != "big-c000" {
		t.Errorf("deletedCommentId %q", del.DeleteComment.DeletedCommentID)
	}
	d := read()
	if d.Product.Stats.Total != b.Product.Stats.Total-1 || d.Product.Stats.Ratings[1].Count != 0 || d.Product.De.Total != b.Product.De.Total {
		t.Errorf("after the delete: %+v", d.Product)
	}
	var got struct{ Comment *struct{ ID string } }
	e.MustQuery(t, `{ comment(id: "big-c000") { id } }`, &got)
	if got.Comment != nil {
		t.Errorf("the deleted comment is still readable")
	}
	MustOneError(t, e.MustDo(t, `mutation { deleteComment(input: {id: "big-c000"}) { deletedCommentId } }`), "NOT_FOUND")
}

func TestTopProductsByLanguage(t *testing.T) {
	e := MustEnv(t)
	for _, lang := range []string{"en", "de", "fr", "ja"} {
		var got struct {
			TopProducts []struct {
				Rank          int                 `json:"rank"`
				FiveStarCount int                 `json:"fiveStarCount"`
				Product       struct{ ID string } `json:"product"`
			} `json:"topProducts"`
		}
		e.MustQuery(t, fmt.Sprintf(`{ topProducts(first: 5, language: %q) { rank fiveStarCount product { id } } }`, strings.ToUpper(lang)), &got)
		five := map[string]int{}
		for _, c := range e.data {
			if c.Rating == 5 && c.Language == lang {
				five[c.ProductID]++
			}
		}
		var want []string
		for pid := range five {
			want = append(want, pid)
		}
		slices.SortFunc(want, func(a, b string) int {
			if c := cmp.Compare(five[b], five[a]); c != 0 {
				return c
			}
			return strings.Compare(b, a)
		})
		want = want[:min(5, len(want))]
		var gotIDs []string
		for i, r := range got.TopProducts {
			gotIDs = append(gotIDs, r.Product.ID)
			if r.Rank != i+1 || r.FiveStarCount != five[r.Product.ID] {
				t.Errorf("%s: entry %d = %+v, want rank %d 5★ %d", lang, i, r, i+1, five[r.Product.ID])
			}
		}
		if !slices.Equal(gotIDs, want) {
			t.Errorf("topProducts(language: %s) = %v, want %v", lang, gotIDs, want)
		}
	}
}

// ---------------------------------------------------------------------------
// 2. Error codes.

type badCase struct {
	name    string
	query   string
	vars    map[string]any
	path    string // the failing field's path
	mention string // the message names the argument (case-insensitive)
	// argument is the expected extensions.argument (mention when empty).
	argument string
}

func validCreate(override map[string]any) map[string]any {
	in := map[string]any{"productId": "p1", "language": "en", "rating": 4, "author": "Ann", "title": "Fine", "body": "Works."}
	for k, v := range override {
		in[k] = v
	}
	return map[string]any{"in": in}
}

func badCases() []badCase {
	comments := func(name, args, mention string) badCase {
		return badCase{name: "comments " + name, query: `{ product(id: "big") { id comments(` + args + `) { totalCount nodes { id } } } }`, path: "product/comments", mention: mention}
	}
	argCase := func(c badCase, argument string) badCase { c.argument = argument; return c }
	cursor := func(name, args, argument string) badCase {
		return argCase(comments(name, args, "is not a cursor from this API: pass `endCursor`/`startCursor` unchanged"), argument)
	}
	stdPadded := base64.URLEncoding.EncodeToString(append([]byte{1}, store.SortKey(t0, "big-c000")...))
	junk := base64.RawURLEncoding.EncodeToString([]byte("\x01this is not a sort key"))
	wrongVersion := base64.RawURLEncoding.EncodeToString(append([]byte{2}, store.SortKey(t0, "big-c000")...))
	badIDInCursor := base64.RawURLEncoding.EncodeToString(append([]byte{1}, store.SortKey(t0, "a/b")...))
	x40 := strings.Repeat("x", 40)
	long65 := strings.Repeat("a", 65)

	cs := []badCase{
		comments("rating 0", `ratings: [0]`, "ratings"),
		comments("rating 6", `ratings: [6]`, "ratings"),
		comments("rating -1", `ratings: [-1]`, "ratings"),
		comments("rating 0 among good ones", `ratings: [5, 0, 3]`, "ratings"),
		comments("first -1", `first: -1`, "first"),
		comments("first 101", `first: 101`, "first"),
		comments("last -1", `last: -1`, "last"),
		comments("last 101", `last: 101`, "last"),
		argCase(comments("first and last", `first: 1, last: 1`, "first"), "last"),
		comments("after empty", `after: ""`, "after"),
		cursor("after garbage", `after: "garbage"`, "after"),
		cursor("after base64 junk", fmt.Sprintf(`after: %q`, junk), "after"),
		cursor("after wrong version", fmt.Sprintf(`after: %q`, wrongVersion), "after"),
		cursor("after padded base64", fmt.Sprintf(`after: %q`, stdPadded), "after"),
		cursor("after bad id in cursor", fmt.Sprintf(`after: %q`, badIDInCursor), "after"),
		cursor("after not base64", `after: "%%%***"`, "after"),
		cursor("after too long", fmt.Sprintf(`after: %q`, strings.Repeat("A", 300)), "after"),
		cursor("before garbage with last", `last: 5, before: "garbage"`, "before"),
		cursor("before garbage alone", `before: "garbage"`, "before"),
		comments("before empty", `before: ""`, "before"),
		comments("language empty", `language: ""`, "language"),
		comments("language en/5", `language: "en/5"`, "language"),
		comments("language 40 x", fmt.Sprintf(`language: %q`, x40), "language"),
		comments("language underscore junk", `language: "not a tag"`, "language"),
		{name: "stats language empty", query: `{ product(id: "big") { stats(language: "") { total } } }`, path: "product/stats", mention: "language"},
		{name: "stats language en/5", query: `{ product(id: "big") { stats(language: "en/5") { total } } }`, path: "product/stats", mention: "language"},
		{name: "stats language 40 x", query: fmt.Sprintf(`{ product(id: "big") { stats(language: %q) { total } } }`, x40), path: "product/stats", mention: "language"},
		{name: "product id empty", query: `{ product(id: "") { id stats { total } } }`, path: "product", mention: "product id", argument: "id"},
		{name: "product id slash", query: `{ product(id: "a/b") { id stats { total } } }`, path: "product", mention: "product id", argument: "id"},
		{name: "product id 65 chars", query: fmt.Sprintf(`{ product(id: %q) { id comments { totalCount } } }`, long65), path: "product", mention: "product id", argument: "id"},
		{name: "product id non-ASCII", query: `{ product(id: "ü") { id languages { language } } }`, path: "product", mention: "product id", argument: "id"},
		{name: "product id with hash", query: `{ product(id: "x#S") { id stats { total } } }`, path: "product", mention: "product id", argument: "id"},
		{name: "comment id with space", query: `{ comment(id: "a b") { id } }`, path: "comment", mention: "comment id", argument: "id"},
		{name: "comment id empty", query: `{ comment(id: "") { id } }`, path: "comment", mention: "comment id", argument: "id"},
		{name: "topProducts first -1", query: `{ topProducts(first: -1) { rank } }`, path: "topProducts", mention: "first"},
		{name: "topProducts first 101", query: `{ topProducts(first: 101) { rank } }`, path: "topProducts", mention: "first"},
		{name: "topProducts language en/5", query: `{ topProducts(language: "en/5") { rank } }`, path: "topProducts", mention: "language"},
		{name: "topProducts language empty", query: `{ topProducts(language: "") { rank } }`, path: "topProducts", mention: "language"},
	}

	const create = `mutation($in: CreateCommentInput!) { createComment(input: $in) { comment { id } } }`
	for _, c := range []struct {
		name, field string
		v           any
		mention     string
	}{
		{"rating 0", "rating", 0, "rating"},
		{"rating 6", "rating", 6, "rating"},
		{"language empty", "language", "", "language"},
		{"language en/5", "language", "en/5", "language"},
		{"author empty", "author", "", "author"},
		{"author blank", "author", " \t\n", "author"},
		{"author 101 chars", "author", strings.Repeat("a", 101), "author"},
		{"title empty", "title", "", "title"},
		{"title 201 chars", "title", strings.Repeat("t", 201), "title"},
		{"body empty", "body", "", "body"},
		{"body 10001 chars", "body", strings.Repeat("b", 10_001), "body"},
		{"productId slash", "productId", "a/b", "productId"},
		{"productId empty", "productId", "", "productId"},
		{"productId 65 chars", "productId", long65, "productId"},
	} {
		cs = append(cs, badCase{name: "createComment " + c.name, query: create, vars: validCreate(map[string]any{c.field: c.v}), path: "createComment", mention: "input." + c.mention})
	}

	const update = `mutation($in: UpdateCommentInput!) { updateComment(input: $in) { comment { id } } }`
	for _, c := range []struct {
		name, field string
		v           any
		mention     string
	}{
		{"rating 0", "rating", 0, "rating"},
		{"rating 6", "rating", 6, "rating"},
		{"language empty", "language", "", "language"},
		{"language en/5", "language", "en/5", "language"},
		{"title empty", "title", "", "title"},
		{"title blank", "title", "   ", "title"},
		{"title 201 chars", "title", strings.Repeat("t", 201), "title"},
		{"body empty", "body", "", "body"},
		{"body 10001 chars", "body", strings.Repeat("b", 10_001), "body"},
	} {
		in := map[string]any{"id": "big-c000", c.field: c.v}
		cs = append(cs, badCase{name: "updateComment " + c.name, query: update, vars: map[string]any{"in": in}, path: "updateComment", mention: "input." + c.mention})
	}
	cs = append(cs,
		badCase{name: "updateComment id with space", query: update, vars: map[string]any{"in": map[string]any{"id": "a b", "rating": 3}}, path: "updateComment", mention: "input.id"},
		badCase{name: "deleteComment id with space", query: `mutation { deleteComment(input: {id: "a b"}) { deletedCommentId } }`, path: "deleteComment", mention: "comment id", argument: "input.id"},
	)
	return cs
}

// TestBadArgumentsAreBadUserInput: every bad argument is one GraphQL error
// with code BAD_USER_INPUT on the field that took it, a message naming the
// argument and nothing of the storage layer, no data for the field, and, as
// every such check happens before reading, no store call at all.
func TestBadArgumentsAreBadUserInput(t *testing.T) {
	e := MustEnv(t)
	for _, c := range badCases() {
		t.Run(c.name, func(t *testing.T) {
			var opts []gqltest.Option
			for k, v := range c.vars {
				opts = append(opts, gqltest.Var(k, v))
			}
			e.spy.Reset()
			r := e.MustDo(t, c.query, opts...)
			err := MustOneError(t, r, "BAD_USER_INPUT")
			MustNoData(t, r)
			if err.PathString() != c.path {
				t.Errorf("error path %q, want %q", err.PathString(), c.path)
			}
			if err.Message == "" || err.Message == "internal error" {
				t.Errorf("message %q says nothing about the argument", err.Message)
			}
			if !strings.Contains(strings.ToLower(err.Message), strings.ToLower(c.mention)) {
				t.Errorf("message %q does not name %q", err.Message, c.mention)
			}
			wantArg := c.argument
			if wantArg == "" {
				wantArg = c.mention
			}
			if got := err.Extensions["argument"]; got != wantArg {
				t.Errorf("extensions.argument = %v, want %q (error %s)", got, wantArg, r.RawErrors)
			}
			MustNotLeak(t, err.Message)
			if n := e.spy.TotalCalls(); n != 0 {
				t.Errorf("a refused request made store calls: %s (Query calls: %d)", e.spy.CallsString(), e.spy.Calls("Query"))
			}
		})
	}
}

// TestBoundaryArgumentsAreAccepted: the limits themselves are valid input.
func TestBoundaryArgumentsAreAccepted(t *testing.T) {
	e := MustEnv(t)
	id64 := strings.Repeat("Z", 63) + "_"
	for _, q := range []string{
		`{ product(id: "big") { comments(first: 0) { totalCount nodes { id } } } }`,
		`{ product(id: "big") { comments(first: 100) { totalCount } } }`,
		`{ product(id: "big") { comments(last: 0) { totalCount } } }`,
		`{ product(id: "big") { comments(last: 100) { totalCount } } }`,
		`{ product(id: "big") { comments(ratings: [1, 5, 5, 1]) { totalCount } } }`,
		`{ product(id: "big") { comments(language: "EN") { totalCount } } }`,
		`{ product(id: "big") { comments(language: "pt-BR") { totalCount } } }`,
		fmt.Sprintf(`{ product(id: %q) { id stats { total } } }`, id64),
		`{ topProducts(first: 0) { rank } }`,
		`{ topProducts(first: 100, language: "DE") { rank } }`,
	} {
		e.MustQuery(t, q, nil)
	}
	// Lengths are counted in characters: 100 two-byte characters is a valid author.
	const create = `mutation($in: CreateCommentInput!) { createComment(input: $in) { comment { id author language } } }`
	var got struct {
		CreateComment struct {
			Comment struct {
				ID       string `json:"id"`
				Author   string `json:"author"`
				Language string `json:"language"`
			} `json:"comment"`
		} `json:"createComment"`
	}
	e.MustQuery(t, create, &got, gqltest.Var("in", validCreate(map[string]any{
		"productId": id64, "language": "EN-gb", "author": strings.Repeat("ü", 100),
		"title": strings.Repeat("t", 200), "body": strings.Repeat("b", 10_000),
	})["in"]))
	if got.CreateComment.Comment.Language != "en-GB" {
		t.Errorf("language stored as %q, want en-GB", got.CreateComment.Comment.Language)
	}
}

func TestMissingCommentIsNotFound(t *testing.T) {
	e := MustEnv(t)
	for _, q := range []string{
		`mutation { updateComment(input: {id: "no-such-comment", rating: 3}) { comment { id } } }`,
		`mutation { deleteComment(input: {id: "no-such-comment"}) { deletedCommentId } }`,
	} {
		e.spy.Reset()
		r := e.MustDo(t, q)
		err := MustOneError(t, r, "NOT_FOUND")
		MustNoData(t, r)
		MustNotLeak(t, err.Message)
		if n := e.spy.Calls("Write"); n != 0 {
			t.Errorf("%s: %d writes, want 0", q, n)
		}
	}
	// comment(id) of a missing comment is null, not an error.
	var got struct{ Comment *struct{ ID string } }
	e.MustQuery(t, `{ comment(id: "no-such-comment") { id } }`, &got)
	if got.Comment != nil {
		t.Errorf("comment(no-such-comment) = %+v, want null", got.Comment)
	}
}

// ---------------------------------------------------------------------------
// 3. Faults.

func TestStoreUnavailableIsUnavailableWithoutPartialPage(t *testing.T) {
	e := MustEnv(t)
	// The pages' Queries fail; the stats' (also Queries) do not.
	e.spy.SetHooks(func(q table.Query) error {
		if isStatsQuery(q) {
			return nil
		}
		return store.Errorf(store.EUNAVAILABLE, "the store is throttling; try again")
	}, nil, nil)

	// comments is nullable: the error nulls only it (product.id stays).
	r := e.MustDo(t, `{ product(id: "big") { id comments(first: 5) { totalCount nodes { id } } } }`)
	err := MustOneError(t, r, "UNAVAILABLE")
	if err.PathString() != "product/comments" {
		t.Errorf("error path %q, want product/comments", err.PathString())
	}
	MustNoData(t, r)
	MustNotLeak(t, err.Message)

	// Deeper down the error stops at the failed field too: the comment
	// and its product stay, comments is null, and no page appears anywhere.
	r = e.MustDo(t, `{ ok: product(id: "p1") { stats { total } } comment(id: "big-c000") { id product { comments(first: 5) { nodes { id } } } } }`)
	err = MustOneError(t, r, "UNAVAILABLE")
	if err.PathString() != "comment/product/comments" {
		t.Errorf("error path %q, want comment/product/comments", err.PathString())
	}
	var got struct {
		OK      *struct{ Stats stats } `json:"ok"`
		Comment json.RawMessage        `json:"comment"`
	}
	if e := json.Unmarshal(r.Data, &got); e != nil {
		t.Fatal(e)
	}
	if want := `{"id":"big-c000","product":{"comments":null}}`; string(got.Comment) != want {
		t.Errorf("data.comment = %s, want %s", got.Comment, want)
	}
	if got.OK == nil || got.OK.Stats.Total != countOf(e.data, "p1", "") {
		t.Errorf("the unaffected field: %s", r.Data)
	}
	if strings.Contains(string(r.Data), "nodes") {
		t.Errorf("a partial page leaked: %s", r.Data)
	}

	// Stats reads failing (BatchGet) are UNAVAILABLE too.
	e.spy.SetHooks(nil, func([]table.Key) error {
		return store.Errorf(store.EUNAVAILABLE, "the store is throttling; try again")
	}, nil)
	r = e.MustDo(t, `{ product(id: "big") { stats { total } } }`)
	MustOneError(t, r, "UNAVAILABLE")
	MustNoData(t, r)
}

func TestUnexpectedErrorIsInternalWithoutDetail(t *testing.T) {
	e := MustEnv(t)
	for _, tc := range []struct {
		name  string
		err   error
		query string
	}{
		{"plain error in comments", errors.New("boom"), `{ product(id: "big") { comments(first: 3) { nodes { id } } } }`},
		{"plain error in languages", errors.New("boom"), `{ product(id: "big") { languages { language } } }`},
		{"plain error in topProducts", errors.New("boom"), `{ topProducts { rank } }`},
		{"wrapped plain error", fmt.Errorf("read PRODUCT#big: %w", errors.New("boom")), `{ product(id: "big") { comments { nodes { id } } } }`},
		{"store INTERNAL error", store.Wrap(store.EINTERNAL, errors.New("boom"), "corrupt item COMMENT#x"), `{ product(id: "big") { comments { nodes { id } } } }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.spy.SetHooks(func(table.Query) error { return tc.err }, nil, nil)
			defer e.spy.SetHooks(nil, nil, nil)
			r := e.MustDo(t, tc.query)
			err := MustOneError(t, r, "INTERNAL")
			if err.Message != "internal error" {
				t.Errorf("message %q, want exactly %q", err.Message, "internal error")
			}
			if strings.Contains(string(r.RawErrors), "boom") || strings.Contains(string(r.RawErrors), "#") {
				t.Errorf("the error shows detail: %s", r.RawErrors)
			}
			MustNoData(t, r)
		})
	}
	if !strings.Contains(e.log.String(), "boom") {
		t.Errorf("the cause of an INTERNAL error is not logged; log:\n%s", e.log.String())
	}
}

// TestPanicInStoreIsInternalAndServerKeepsAnswering: a Table that panics
// where the panic unwinds through a resolver (languages, a mutation's Get)
// or a dataloader batch (stats) yields INTERNAL, and the next request is
// answered normally.
func TestPanicInStoreIsInternalAndServerKeepsAnswering(t *testing.T) {
	e := MustEnv(t)
	for _, tc := range []struct {
		name  string
		hooks func()
		query string
	}{
		{"Query in languages", func() { e.spy.SetHooks(func(table.Query) error { panic("table exploded") }, nil, nil) },
			`{ product(id: "big") { languages { language } } }`},
		{"Query in topProducts", func() { e.spy.SetHooks(func(table.Query) error { panic("table exploded") }, nil, nil) },
			`{ topProducts { rank } }`},
		{"BatchGet in the stats loader", func() { e.spy.SetHooks(nil, func([]table.Key) error { panic("table exploded") }, nil) },
			`{ product(id: "big") { stats { total } } }`},
		{"Get in updateComment", func() { e.spy.SetHooks(nil, nil, func(table.Key) error { panic("table exploded") }) },
			`mutation { updateComment(input: {id: "big-c000", rating: 2}) { comment { id } } }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.hooks()
			r := e.MustDo(t, tc.query)
			e.spy.SetHooks(nil, nil, nil)
			err := MustOneError(t, r, "INTERNAL")
			if err.Message != "internal error" {
				t.Errorf("message %q, want exactly %q", err.Message, "internal error")
			}
			if strings.Contains(string(r.RawErrors), "exploded") {
				t.Errorf("the error shows detail: %s", r.RawErrors)
			}
			MustNoData(t, r)
			var ok struct{ Product struct{ Stats stats } }
			e.MustQuery(t, `{ product(id: "big") { stats { total } } }`, &ok)
			if ok.Product.Stats.Total != 60 {
				t.Errorf("after the panic: total %d, want 60", ok.Product.Stats.Total)
			}
		})
	}
}

// TestPanicInCommentsQueryKeepsServing: the comments field reads its
// partitions in goroutines of its own (an errgroup in store.merge), where
// neither gqlgen's recover nor the dataloader's reaches. A panicking
// Table.Query there must still be an INTERNAL error, not the end of the
// process. The scenario runs in a child process, so a crash fails this test
// instead of killing the whole test binary.
func TestPanicInCommentsQueryKeepsServing(t *testing.T) {
	if os.Getenv("RESOLVERS_TEST_PANIC_CHILD") == "1" {
		e := MustEnv(t)
		e.spy.SetHooks(func(table.Query) error { panic("table exploded") }, nil, nil)
		r := e.MustDo(t, `{ product(id: "big") { comments(first: 3) { nodes { id } } } }`)
		e.spy.SetHooks(nil, nil, nil)
		err := MustOneError(t, r, "INTERNAL")
		if err.Message != "internal error" {
			t.Errorf("message %q, want exactly %q", err.Message, "internal error")
		}
		MustNoData(t, r)
		e.MustQuery(t, `{ product(id: "big") { comments(first: 3) { nodes { id } } } }`, nil)
		return
	}
	if testing.Short() {
		t.Skip("runs a child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPanicInCommentsQueryKeepsServing$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "RESOLVERS_TEST_PANIC_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		head := lines[:min(len(lines), 25)]
		t.Errorf("a panic in Table.Query under the comments field ended the process instead of yielding INTERNAL (%v):\n%s",
			err, strings.Join(head, "\n"))
	}
}

// ---------------------------------------------------------------------------
// 4. Semantics.

func TestStatsAndLanguages(t *testing.T) {
	e := MustEnv(t)
	var got struct {
		Big struct {
			Stats     stats `json:"stats"`
			Fr        stats `json:"fr"`
			Languages []struct {
				Language string `json:"language"`
				Total    int    `json:"total"`
			} `json:"languages"`
		} `json:"big"`
		Empty struct {
			ID        string `json:"id"`
			Stats     stats  `json:"stats"`
			En        stats  `json:"en"`
			Languages []any  `json:"languages"`
			Comments  page   `json:"comments"`
			Filtered  page   `json:"filtered"`
			Backward  page   `json:"backward"`
		} `json:"empty"`
	}
	e.MustQuery(t, `{
	  big: product(id: "big") {
	    stats { language total averageRating ratings { rating count } }
	    fr: stats(language: "FR") { language total averageRating ratings { rating count } }
	    languages { language total }
	  }
	  empty: product(id: "empty") {
	    id
	    stats { language total averageRating ratings { rating count } }
	    en: stats(language: "en") { language total averageRating ratings { rating count } }
	    languages { language }
	    comments { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor } nodes { id } }
	    filtered: comments(language: "en", ratings: [5]) { totalCount nodes { id } }
	    backward: comments(last: 5) { totalCount nodes { id } }
	  }
	}`, &got)

	check := func(name string, st stats, cs []*store.Comment, lang *string) {
		t.Helper()
		if len(st.Ratings) != 5 {
			t.Fatalf("%s: %d rating entries, want 5: %+v", name, len(st.Ratings), st.Ratings)
		}
		var counts [6]int
		sum := 0
		for _, c := range cs {
			counts[c.Rating]++
			sum += c.Rating
		}
		for i, rc := range st.Ratings {
			if rc.Rating != i+1 || rc.Count != counts[i+1] {
				t.Errorf("%s: ratings[%d] = %+v, want {%d %d}", name, i, rc, i+1, counts[i+1])
			}
		}
		if st.Total != len(cs) {
			t.Errorf("%s: total %d, want %d", name, st.Total, len(cs))
		}
		switch {
		case len(cs) == 0 && st.AverageRating != nil:
			t.Errorf("%s: averageRating %v, want null", name, *st.AverageRating)
		case len(cs) > 0 && (st.AverageRating == nil || *st.AverageRating != float64(sum)/float64(len(cs))):
			t.Errorf("%s: averageRating %v, want %v", name, st.AverageRating, float64(sum)/float64(len(cs)))
		}
		if !reflect.DeepEqual(st.Language, lang) {
			t.Errorf("%s: language %v, want %v", name, st.Language, lang)
		}
	}
	fr, en := "fr", "en"
	check("big", got.Big.Stats, storetest.Recount(e.data, bigID, "", nil), nil)
	check("big fr", got.Big.Fr, storetest.Recount(e.data, bigID, "fr", nil), &fr)
	if got.Big.Stats.Ratings[1].Count != 0 {
		t.Errorf("big has no 2-star comment but counts %d", got.Big.Stats.Ratings[1].Count)
	}
	check("empty", got.Empty.Stats, nil, nil)
	check("empty en", got.Empty.En, nil, &en)

	wantLangs := []struct {
		l string
		n int
	}{{"de", 20}, {"en", 30}, {"fr", 10}}
	if len(got.Big.Languages) != len(wantLangs) {
		t.Fatalf("big languages %+v, want %+v", got.Big.Languages, wantLangs)
	}
	for i, w := range wantLangs {
		if g := got.Big.Languages[i]; g.Language != w.l || g.Total != w.n {
			t.Errorf("languages[%d] = %+v, want %s %d (tag order)", i, g, w.l, w.n)
		}
	}

	em := got.Empty
	if em.ID != "empty" || len(em.Languages) != 0 {
		t.Errorf("empty product: id %q, languages %v", em.ID, em.Languages)
	}
	for name, p := range map[string]page{"comments": em.Comments, "filtered": em.Filtered, "backward": em.Backward} {
		if p.TotalCount != 0 || len(p.Nodes) != 0 || len(p.Edges) != 0 || p.PageInfo.HasNextPage || p.PageInfo.HasPreviousPage ||
			p.PageInfo.StartCursor != nil || p.PageInfo.EndCursor != nil {
			t.Errorf("empty product %s: %+v, want an empty page", name, p)
		}
	}
}

func TestEmptyRatingsListReadsNothing(t *testing.T) {
	e := MustEnv(t)
	e.spy.Reset()
	var got struct{ Product struct{ Comments page } }
	e.MustQuery(t, `{ product(id: "big") { comments(ratings: []) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } nodes { id } } } }`, &got)
	p := got.Product.Comments
	if p.TotalCount != 0 || len(p.Nodes) != 0 || p.PageInfo.HasNextPage || p.PageInfo.StartCursor != nil {
		t.Errorf("comments(ratings: []) = %+v, want an empty page with totalCount 0", p)
	}
	if n := e.spy.TotalCalls(); n != 0 {
		t.Errorf("comments(ratings: []) made %d store calls (%s), want 0", n, e.spy.CallsString())
	}
}

// TestZeroCountRatingIsNotRead: big has no 2-star comment; a merge that
// selects rating 2 never queries a rating-2 partition. (A single rating is
// read alongside its stats, so its empty partition costs one call and no
// item instead of a round of waiting.)
func TestZeroCountRatingIsNotRead(t *testing.T) {
	e := MustEnv(t)
	for _, tc := range []struct {
		args    string
		lang    string
		ratings []int
	}{
		{`ratings: [2]`, "", []int{2}},
		{`ratings: [2, 5]`, "", []int{2, 5}},
		{`ratings: [1, 2, 3]`, "", []int{1, 2, 3}},
		{`language: "en", ratings: [2, 4]`, "en", []int{2, 4}},
		{`language: "de", ratings: [1, 2, 3, 4, 5]`, "de", nil},
		{`language: "fr", ratings: [1, 2, 3, 5]`, "fr", []int{1, 2, 3, 5}},
	} {
		e.spy.Reset()
		var got struct{ Product struct{ Comments page } }
		e.MustQuery(t, `{ product(id: "big") { comments(first: 7, `+tc.args+`) { totalCount nodes { id } } } }`, &got)
		_, k2 := store.PartitionKey(bigID, tc.lang, 2)
		single := len(tc.ratings) == 1
		for _, q := range e.spy.Queries() {
			if q.HashValue == k2 && !single {
				t.Errorf("comments(%s) queried the empty partition %s", tc.args, k2)
			}
		}
		all := storetest.Recount(e.data, bigID, tc.lang, tc.ratings)
		if p := got.Product.Comments; p.TotalCount != len(all) || !slices.Equal(p.NodeIDs(), idsOf(all[:min(7, len(all))])) {
			t.Errorf("comments(%s) = %d %v, want %d %v", tc.args, p.TotalCount, p.NodeIDs(), len(all), idsOf(all[:min(7, len(all))]))
		}
		if len(all) == 0 && e.spy.Calls("Query") != 0 && !single {
			t.Errorf("comments(%s) matches nothing but made %d Query calls", tc.args, e.spy.Calls("Query"))
		}
	}
}

func TestDefaultPageSizeAndLastAlone(t *testing.T) {
	e := MustEnv(t)
	var got struct {
		Product struct {
			Def  page `json:"def"`
			Last page `json:"last"`
			En   page `json:"en"`
		}
	}
	e.MustQuery(t, `{ product(id: "big") {
	  def: comments { totalCount pageInfo { hasNextPage hasPreviousPage } nodes { id } }
	  last: comments(last: 3) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { id } } nodes { id createdAt } }
	  en: comments(language: "en", ratings: [1, 3], last: 4) { totalCount pageInfo { hasNextPage hasPreviousPage } nodes { id } }
	} }`, &got)
	all := storetest.Recount(e.data, bigID, "", nil)

	d := got.Product.Def
	if !slices.Equal(d.NodeIDs(), idsOf(all[:20])) || !d.PageInfo.HasNextPage || d.PageInfo.HasPreviousPage || d.TotalCount != 60 {
		t.Errorf("comments (no arguments) = %v next=%v prev=%v total=%d, want the newest 20 %v, next=true",
			d.NodeIDs(), d.PageInfo.HasNextPage, d.PageInfo.HasPreviousPage, d.TotalCount, idsOf(all[:20]))
	}

	l := got.Product.Last
	if w := idsOf(all[len(all)-3:]); !slices.Equal(l.NodeIDs(), w) || !slices.Equal(l.EdgeIDs(), w) {
		t.Errorf("comments(last: 3) = %v, want the oldest three newest first %v", l.NodeIDs(), w)
	}
	if !l.PageInfo.HasPreviousPage || l.PageInfo.HasNextPage {
		t.Errorf("comments(last: 3): hasPreviousPage %v hasNextPage %v, want true false", l.PageInfo.HasPreviousPage, l.PageInfo.HasNextPage)
	}
	if len(l.Edges) == 3 && (l.PageInfo.StartCursor == nil || *l.PageInfo.StartCursor != l.Edges[0].Cursor ||
		l.PageInfo.EndCursor == nil || *l.PageInfo.EndCursor != l.Edges[2].Cursor) {
		t.Errorf("comments(last: 3): start/end cursors do not match the edges")
	}

	f := storetest.Recount(e.data, bigID, "en", []int{1, 3})
	if w := idsOf(f[len(f)-4:]); !slices.Equal(got.Product.En.NodeIDs(), w) || got.Product.En.TotalCount != len(f) {
		t.Errorf("comments(en, [1,3], last: 4) = %v (total %d), want %v (total %d)", got.Product.En.NodeIDs(), got.Product.En.TotalCount, w, len(f))
	}
}

// TestPagingWalksEveryFilter pages forward and backward through big's
// comments under several filters and compares with a recount from the data.
func TestPagingWalksEveryFilter(t *testing.T) {
	e := MustEnvWait(t, 0) // no batching asserted here: the default window
	filters := []struct {
		args    string
		lang    string
		ratings []int
	}{
		{"", "", nil},
		{`language: "en"`, "en", nil},
		{`ratings: [1, 3]`, "", []int{1, 3}},
		{`language: "de", ratings: [4, 5]`, "de", []int{4, 5}},
		{`ratings: [5, 1, 1]`, "", []int{1, 5}},
		{`language: "fr", ratings: [3]`, "fr", []int{3}},
		{`ratings: [2, 4]`, "", []int{2, 4}},
		{`language: "EN", ratings: [1, 3, 4, 5]`, "en", []int{1, 3, 4, 5}},
		{`ratings: [1, 3, 4]`, "", []int{1, 3, 4}},
	}
	for _, f := range filters {
		want := idsOf(storetest.Recount(e.data, bigID, f.lang, f.ratings))
		for _, size := range []int{7, 25} {
			name := fmt.Sprintf("%s/size %d", f.args, size)
			sep := ""
			if f.args != "" {
				sep = ", "
			}
			// Forward.
			var got []string
			cursor := ""
			for i := 0; ; i++ {
				if i > 70 {
					t.Fatalf("%s: forward paging does not end", name)
				}
				args := fmt.Sprintf("%s%sfirst: %d", f.args, sep, size)
				if cursor != "" {
					args += fmt.Sprintf(", after: %q", cursor)
				}
				p := MustPage(t, e, args)
				if p.TotalCount != len(want) {
					t.Errorf("%s: totalCount %d, want %d", name, p.TotalCount, len(want))
				}
				if p.PageInfo.HasPreviousPage {
					t.Errorf("%s: hasPreviousPage true while paging forward", name)
				}
				got = append(got, p.EdgeIDs()...)
				if !p.PageInfo.HasNextPage {
					break
				}
				if len(p.Edges) != size || p.PageInfo.EndCursor == nil {
					t.Fatalf("%s: hasNextPage on a page of %d", name, len(p.Edges))
				}
				cursor = *p.PageInfo.EndCursor
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s forward:\n got %v\nwant %v", name, got, want)
			}
			// Backward.
			got = nil
			cursor = ""
			for i := 0; ; i++ {
				if i > 70 {
					t.Fatalf("%s: backward paging does not end", name)
				}
				args := fmt.Sprintf("%s%slast: %d", f.args, sep, size)
				if cursor != "" {
					args += fmt.Sprintf(", before: %q", cursor)
				}
				p := MustPage(t, e, args)
				if p.PageInfo.HasNextPage {
					t.Errorf("%s: hasNextPage true while paging backward", name)
				}
				got = append(p.EdgeIDs(), got...)
				if !p.PageInfo.HasPreviousPage {
					break
				}
				if len(p.Edges) != size || p.PageInfo.StartCursor == nil {
					t.Fatalf("%s: hasPreviousPage on a page of %d", name, len(p.Edges))
				}
				cursor = *p.PageInfo.StartCursor
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s backward:\n got %v\nwant %v", name, got, want)
			}
		}
	}
}

func MustPage(tb testing.TB, e *env, args string) page {
	tb.Helper()
	var got struct{ Product struct{ Comments page } }
	e.MustQuery(tb, `{ product(id: "big") { comments(`+args+`) {
	  totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { id } } } } }`, &got)
	return got.Product.Comments
}

// TestCursorAcrossFiltersAndBetween: a cursor from one filter resumes after
// that comment under another; after and before together read between.
func TestCursorAcrossFiltersAndBetween(t *testing.T) {
	e := MustEnvWait(t, 0)
	all := storetest.Recount(e.data, bigID, "", nil)
	p := MustPage(t, e, `first: 10`)
	c5 := p.Edges[4].Cursor // the 5th newest comment
	// Under ratings [1, 3]: those older than the 5th newest.
	var want []string
	for _, c := range all[5:] {
		if c.Rating == 1 || c.Rating == 3 {
			want = append(want, c.ID)
		}
	}
	got := MustPage(t, e, fmt.Sprintf(`ratings: [1, 3], first: 100, after: %q`, c5))
	if !slices.Equal(got.EdgeIDs(), want) {
		t.Errorf("after a cursor from another filter:\n got %v\nwant %v", got.EdgeIDs(), want)
	}
	c9 := p.Edges[8].Cursor
	got = MustPage(t, e, fmt.Sprintf(`first: 10, after: %q, before: %q`, c5, c9))
	if w := idsOf(all[5:8]); !slices.Equal(got.EdgeIDs(), w) || got.PageInfo.HasNextPage {
		t.Errorf("between the 5th and 9th: %v next=%v, want %v next=false", got.EdgeIDs(), got.PageInfo.HasNextPage, w)
	}
}

type planEntry struct {
	Product    string  `json:"product"`
	Language   *string `json:"language"`
	Ratings    []int   `json:"ratings"`
	Strategy   string  `json:"strategy"`
	Skipped    []int   `json:"skippedRatings"`
	Partitions []struct {
		Index     string `json:"index"`
		Key       string `json:"key"`
		Rating    int    `json:"rating"`
		Limits    []int  `json:"limits"`
		ItemsRead int    `json:"itemsRead"`
		Calls     int    `json:"calls"`
	} `json:"partitions"`
	Stats *struct {
		ItemsRead int `json:"itemsRead"`
		Calls     int `json:"calls"`
	} `json:"stats"`
	ItemsRead     int `json:"itemsRead"`
	Calls         int `json:"calls"`
	ItemsReturned int `json:"itemsReturned"`
	TotalCount    int `json:"totalCount"`
}

func TestExplain(t *testing.T) {
	e := MustEnvData(t, genComments(), resolvers.Config{LoaderWait: testLoaderWait, OpenExplain: true})
	const q = `{ product(id: "big") {
	  a: comments(ratings: [2, 5], first: 4) { nodes { id } }
	  b: comments(language: "en", first: 3) { totalCount nodes { id } }
	  c: comments(ratings: []) { nodes { id } }
	  e: comments(ratings: [4], first: 2) { nodes { id } }
	  d: comments(ratings: [1, 3], first: 5) { nodes { id } }
	} }`

	e.spy.Reset()
	r := e.MustQuery(t, q, nil, gqltest.Header("X-Explain", "1"))
	raw, ok := r.Extensions["plan"]
	if !ok {
		t.Fatalf("no extensions.plan with X-Explain: 1; extensions %v", r.Extensions)
	}
	rawJSON, _ := json.Marshal(raw)
	var plan []planEntry
	if err := json.Unmarshal(rawJSON, &plan); err != nil {
		t.Fatalf("extensions.plan %s: %v", rawJSON, err)
	}
	var keyed []map[string]json.RawMessage
	_ = json.Unmarshal(rawJSON, &keyed)
	if len(plan) != 5 {
		t.Fatalf("extensions.plan has %d entries, want 5 (one per comments field): %s", len(plan), rawJSON)
	}
	for i, m := range keyed {
		for _, k := range []string{"strategy", "partitions", "skippedRatings", "itemsReturned"} {
			if _, ok := m[k]; !ok {
				t.Errorf("plan[%d] lacks %q: %s", i, k, rawJSON)
			}
		}
	}
	// Entries are recorded as fields finish: find them by their filter.
	find := func(lang string, ratings []int) *planEntry {
		for i := range plan {
			p := &plan[i]
			l := ""
			if p.Language != nil {
				l = *p.Language
			}
			if l == lang && reflect.DeepEqual(p.Ratings, ratings) && (ratings != nil) == (p.Ratings != nil) {
				return p
			}
		}
		t.Fatalf("no plan entry for language %q ratings %v in %s", lang, ratings, rawJSON)
		return nil
	}

	a := find("", []int{2, 5})
	if a.Strategy != "single" || !slices.Equal(a.Skipped, []int{2}) || len(a.Partitions) != 1 || a.ItemsReturned != 4 {
		t.Errorf("ratings [2,5]: %+v, want single, skipped [2], one partition, 4 returned", *a)
	} else if _, k := store.PartitionKey(bigID, "", 5); a.Partitions[0].Key != k || a.Partitions[0].Index != table.IndexByRating ||
		len(a.Partitions[0].Limits) == 0 || a.Partitions[0].Calls != 1 || a.Partitions[0].ItemsRead < 4 {
		t.Errorf("ratings [2,5] partition %+v, want %s %s read once", a.Partitions[0], table.IndexByRating, k)
	}

	b := find("en", nil)
	if _, k := store.PartitionKey(bigID, "en", 0); b.Strategy != "single" || len(b.Partitions) != 1 || b.Partitions[0].Key != k ||
		b.Partitions[0].Index != table.IndexByLang || b.ItemsReturned != 3 || b.TotalCount != 30 {
		t.Errorf("language en: %+v", *b)
	}

	c := find("", []int{})
	if c.Strategy != "empty" || len(c.Partitions) != 0 || c.ItemsReturned != 0 || c.Calls != 0 {
		t.Errorf("ratings []: %+v, want empty, no partitions", *c)
	}

	// Without totalCount a single-partition page does not read the stats.
	if e4 := find("", []int{4}); e4.Strategy != "single" || e4.TotalCount != 0 || !strings.Contains(string(rawJSON), `"totalCount":null`) {
		t.Errorf("ratings [4] without totalCount: %+v, want single with a null total", *e4)
	}

	d := find("", []int{1, 3})
	if d.ItemsReturned != 5 || len(d.Partitions) == 0 {
		t.Errorf("ratings [1,3]: %+v", *d)
	}

	// The stats of (big, all languages), read once for a and d, count in
	// one of their entries; those of (big, en) in b's.
	if (a.Stats == nil) == (d.Stats == nil) || b.Stats == nil || b.Stats.Calls != 1 || b.Stats.ItemsRead == 0 {
		t.Errorf("stats reads: a %+v, d %+v, b %+v; want one of a and d, and b, with theirs", a.Stats, d.Stats, b.Stats)
	}

	// The plan accounts for every call the request made and every item it
	// read: its entries total their partitions' and their stats read's.
	calls, items := 0, 0
	for _, p := range plan {
		pc, pi := 0, 0
		if p.Stats != nil {
			pc, pi = p.Stats.Calls, p.Stats.ItemsRead
		}
		for _, part := range p.Partitions {
			pc += part.Calls
			pi += part.ItemsRead
			if len(part.Limits) != part.Calls {
				t.Errorf("partition %s: %d limits for %d calls", part.Key, len(part.Limits), part.Calls)
			}
		}
		if pc != p.Calls || pi != p.ItemsRead {
			t.Errorf("entry %v %v: calls %d, itemsRead %d; its partitions and stats total %d, %d", p.Language, p.Ratings, p.Calls, p.ItemsRead, pc, pi)
		}
		calls += pc
		items += pi
	}
	if n := e.spy.TotalCalls(); calls != n {
		t.Errorf("plan counts %d calls, the store saw %d (%s)", calls, n, e.spy.CallsString())
	}
	cost, _ := r.Extensions["cost"].(map[string]any)
	if read, _ := cost["itemsRead"].(float64); int(read) != items {
		t.Errorf("plan counts %d items read, extensions.cost %v", items, cost)
	}

	// Without the header (or with another value) there is no plan.
	for _, opts := range [][]gqltest.Option{nil, {gqltest.Header("X-Explain", "0")}} {
		r = e.MustQuery(t, q, nil, opts...)
		if _, ok := r.Extensions["plan"]; ok {
			t.Errorf("extensions.plan present without X-Explain: 1: %v", r.Extensions["plan"])
		}
	}
}

// TestCursorPositionSavesReads: a later page of a merge whose cursor carries
// its position reads no stats item when totalCount is not asked for; a page
// whose stats item still has the cursor's version knows that more follow
// without reading past the page, and one written since reads one item past.
func TestCursorPositionSavesReads(t *testing.T) {
	e := MustEnv(t)
	var got struct{ Product struct{ Comments page } }
	q := `query($after: String) { product(id: "big") { comments(ratings: [1, 3, 5], first: 7, after: $after) { pageInfo { hasNextPage endCursor } nodes { id } } } }`
	all := storetest.Recount(e.data, bigID, "", []int{1, 3, 5})
	e.spy.Reset()
	e.MustQuery(t, q, &got, gqltest.Var("after", nil))
	if n, m := e.spy.Calls("BatchGet"), len(e.spy.StatsQueries()); n != 1 || m != 1 {
		t.Fatalf("first page of a merge: %d BatchGet calls and %d stats Queries, want 1 and 1 (the stats)", n, m)
	}
	for p := 1; got.Product.Comments.PageInfo.HasNextPage; p++ {
		after := got.Product.Comments.PageInfo.EndCursor
		e.spy.Reset()
		e.MustQuery(t, q, &got, gqltest.Var("after", after))
		if n, m := e.spy.Calls("BatchGet"), len(e.spy.StatsQueries()); n != 0 || m != 0 {
			t.Fatalf("page %d of a merge with a positioned cursor: %d BatchGet calls and %d stats Queries, want 0", p+1, n, m)
		}
		if want := idsOf(all[7*p : min(7*p+7, len(all))]); !slices.Equal(got.Product.Comments.NodeIDs(), want) {
			t.Fatalf("page %d = %v, want %v", p+1, got.Product.Comments.NodeIDs(), want)
		}
		if more := len(all) > 7*p+7; got.Product.Comments.PageInfo.HasNextPage != more {
			t.Fatalf("page %d hasNextPage = %v, want %v", p+1, !more, more)
		}
	}

	q = `query($after: String) { product(id: "big") { comments(first: 7, after: $after) { totalCount pageInfo { hasNextPage endCursor } } } }`
	e.MustQuery(t, q, &got, gqltest.Var("after", nil))
	cursor := got.Product.Comments.PageInfo.EndCursor
	limits := func() []int {
		var out []int
		for _, q := range e.spy.PageQueries() {
			out = append(out, q.Limit)
		}
		return out
	}
	e.spy.Reset()
	e.MustQuery(t, q, &got, gqltest.Var("after", cursor))
	if l := limits(); !slices.Equal(l, []int{7}) || !got.Product.Comments.PageInfo.HasNextPage {
		t.Fatalf("page 2 with totalCount, stats unchanged: query limits %v, hasNextPage %v; want [7], true", l, got.Product.Comments.PageInfo.HasNextPage)
	}
	var created struct {
		CreateComment struct{ Comment struct{ ID string } }
	}
	e.MustQuery(t, `mutation { createComment(input: {productId: "big", language: "en", rating: 4, author: "a", title: "t", body: "b"}) { comment { id } } }`, &created)
	e.spy.Reset()
	e.MustQuery(t, q, &got, gqltest.Var("after", cursor))
	// The page's read starts with the stats and trusts the cursor's counts;
	// the stats' new version disagrees, so one more item is read to show
	// that more follow.
	if l := limits(); !slices.Equal(l, []int{7, 1}) || !got.Product.Comments.PageInfo.HasNextPage {
		t.Fatalf("page 2 with totalCount after a write: query limits %v, hasNextPage %v; want [7 1], true", l, got.Product.Comments.PageInfo.HasNextPage)
	}
}
