package dynamo

import (
	"context"
	"testing"

	"github.com/acme/comments-gateway/demo"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/storetest"
)

// TestRequestReadUnits measures, with the read capacity DynamoDB Local
// reports, what the requests of docs/capacity.md's per-request table read
// (the test's log has the figures) and holds the stats reads to what the
// design promises: a (product, language)'s 8 counter shards in about one
// read unit (a Query billed by size), all languages' in two (its shard 0
// by key and shards 1 to 7 by Query), so that a first page with
// totalCount takes at most 3 read units and a product page at most 6
// (issue 26; before, 9 and 12: a BatchGet of 8 keys bills 8 units).
// The product's comments were written one by one, so every shard exists.
func TestRequestReadUnits(t *testing.T) {
	real := MustClient(t)
	tbl := MustTable(t, real, real)
	pid, lang := storetest.MustLoadReadUnitsData(t, tbl, readUnitsComments())
	size := 20
	page := func(s *store.Store, ctx context.Context, f store.Filter) {
		if _, err := storetest.List(ctx, s, pid, f, store.PageArgs{First: &size}, true); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name     string
		max      float64
		maxItems int64
		read     func(s *store.Store, ctx context.Context)
	}{
		{"stats, all languages", 2, store.StatsShards, func(s *store.Store, ctx context.Context) {
			if _, err := s.GetStats(ctx, []store.StatsID{{ProductID: pid}}); err != nil {
				t.Fatal(err)
			}
		}},
		{"stats, one language", 1, store.StatsShards, func(s *store.Store, ctx context.Context) {
			if _, err := s.GetStats(ctx, []store.StatsID{{ProductID: pid, Language: lang}}); err != nil {
				t.Fatal(err)
			}
		}},
		{"first page with totalCount, all languages", 3, -1, func(s *store.Store, ctx context.Context) { page(s, ctx, store.Filter{}) }},
		{"first page with totalCount, one language", 3, -1, func(s *store.Store, ctx context.Context) { page(s, ctx, store.Filter{Language: lang}) }},
		{"product page: stats, languages, merged page", 6, -1, func(s *store.Store, ctx context.Context) {
			st, err := s.GetStats(ctx, []store.StatsID{{ProductID: pid}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Languages(ctx, pid, store.DefaultLanguages); err != nil {
				t.Fatal(err)
			}
			q := store.CommentsQuery{ProductID: pid, Filter: store.Filter{Ratings: []int{1, 3, 5}}, Page: store.PageArgs{First: &size}, Total: true}
			if _, err := s.ListComments(ctx, q, func() (*store.Stats, error) { return st[0], nil }); err != nil {
				t.Fatal(err) // the product's stats, read once as the gateway's loader does
			}
		}},
	} {
		ctx, usage := store.WithUsage(context.Background())
		c.read(store.New(tbl, store.WithSizing(store.Sizings["one-round"])), ctx) // DynamoDB's default sizing; a new store: no hints
		rcu := usage.ReadCapacity()
		t.Logf("%s: %.1f read units, %d items read, %d calls", c.name, rcu, usage.ItemsRead(), usage.Requests())
		if rcu > c.max {
			t.Errorf("%s: %.1f read units, want at most %.1f", c.name, rcu, c.max)
		}
		if c.maxItems >= 0 && usage.ItemsRead() > c.maxItems {
			t.Errorf("%s: %d items read, more than the %d the complexity limit counts", c.name, usage.ItemsRead(), c.maxItems)
		}
	}
}

// readUnitsComments are the demo comments of the read-unit measure: 400 on
// 2 products.
func readUnitsComments() []*store.Comment {
	cfg := demo.DefaultConfig()
	cfg.Products, cfg.Comments = 2, 400
	return demo.Generate(demo.NewRand(7), cfg)
}
