package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
	"golang.org/x/sync/errgroup"
)

// HotWriters is how many writers testHotProduct runs on one product.
const HotWriters = 16

// testHotProduct runs HotWriters writers on one product at once (creates of
// every rating, rating and language changes, deletes), half of them on one
// Store and half on another (two gateway instances: their settles group
// within a Store and race across): none may fail, every write's leaderboard
// marker is settled by the time it returns, and the stats, languages and
// leaderboards equal a recount afterwards. The summed stats version grows
// with every write.
func testHotProduct(t *testing.T, tbl table.Table) {
	stores := []*store.Store{store.New(tbl), store.New(tbl)}
	s := stores[0]
	const pid, perWriter = "hot", 8
	live := &liveComments{m: map[string]*store.Comment{}}
	v0 := mustStats(t, s, pid, "").Version
	var g errgroup.Group
	for w := range HotWriters {
		g.Go(func() error {
			mine, err := writeHot(stores[w%len(stores)], pid, w, perWriter)
			if err != nil {
				return fmt.Errorf("writer %d: %w", w, err)
			}
			for _, c := range mine {
				live.put(c)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	checkNoMarkers(t, tbl, "after the writers returned")
	checkStats(t, s, live.values(), []string{pid})
	// Every write (at most HotWriters × perWriter) ADDed 1 to one shard's
	// version; an update that changes nothing writes nothing.
	if v := mustStats(t, s, pid, "").Version; v <= v0 || v > v0+HotWriters*perWriter {
		t.Errorf("summed version %d after %d writes from %d", v, HotWriters*perWriter, v0)
	}
	shards := 0
	for _, k := range store.StatsShardKeys(pid, "") {
		if MustGet(t, tbl, k) != nil {
			shards++
		}
	}
	if shards < 2 {
		t.Errorf("the hot product's writes went to %d counter shards, want several", shards)
	}
}

// writeHot is writer w of testHotProduct: n creates of every rating, rating
// and language changes, and deletes of its own comments of product pid. It
// returns the writer's live comments.
func writeHot(s *store.Store, pid string, w, n int) ([]*store.Comment, error) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(uint64(w), 11))
	var mine []*store.Comment
	for range n {
		var err error
		switch op := rng.IntN(4); {
		case op <= 1 || len(mine) == 0:
			var c *store.Comment
			c, err = s.CreateComment(ctx, store.NewComment{ProductID: pid, Language: []string{"en", "de"}[rng.IntN(2)],
				Rating: 1 + rng.IntN(5), Author: "w", Title: "t", Body: "b"})
			if err == nil {
				mine = append(mine, c)
			}
		case op == 2:
			k := rng.IntN(len(mine))
			r, lang := 1+rng.IntN(5), []string{"en", "de", "fr"}[rng.IntN(3)]
			mine[k], err = s.UpdateComment(ctx, store.CommentUpdate{ID: mine[k].ID, Rating: &r, Language: &lang})
		default:
			k := rng.IntN(len(mine))
			err = s.DeleteComment(ctx, mine[k].ID, store.AnyOwner)
			mine = slices.Delete(mine, k, k+1)
		}
		if err != nil {
			return nil, err
		}
	}
	return mine, nil
}

// testUnshardedStats reads a table written before counter sharding: one
// stats item per (product, language), with the leaderboard keys on it.
// Shard 0 is that item, so the counts read right at once; rebuild-stats
// then moves the leaderboard to its own entries.
func testUnshardedStats(t *testing.T, tbl table.Table) {
	data := Dataset(6)
	putLegacyTable(t, tbl, data)
	s := store.New(tbl)
	ctx := context.Background()
	pids := productIDs(data)
	for _, pid := range pids {
		want := Recount(data, pid, "", nil)
		if st := mustStats(t, s, pid, ""); st.Total != int64(len(want)) {
			t.Errorf("unsharded stats of %s: total %d, want %d", pid, st.Total, len(want))
		}
	}
	if _, err := s.RebuildStats(ctx, 2); err != nil {
		t.Fatal(err)
	}
	checkStats(t, s, data, pids)
}

func valuesOf(cs []*store.Comment) []store.Comment {
	out := make([]store.Comment, len(cs))
	for i, c := range cs {
		out[i] = *c
	}
	return out
}

func productIDs(cs []*store.Comment) []string {
	var out []string
	for _, c := range cs {
		if !slices.Contains(out, c.ProductID) {
			out = append(out, c.ProductID)
		}
	}
	slices.Sort(out)
	return out
}

// testUnsettledLeaderboard leaves the marker of a committed 5-star write
// unsettled, as a crash between the write and its settle would: the next
// topProducts settles it before answering, and deletes the marker.
func testUnsettledLeaderboard(t *testing.T, tbl table.Table) {
	data := Dataset(7)
	s := MustLoad(t, tbl, data)
	// The write of a 5-star English comment of "mid-1", without its settle.
	c := &store.Comment{ID: "crashed", ProductID: "mid-1", Language: "en", Rating: 5, Author: "a", Title: "t", Body: "b",
		CreatedAt: data[0].CreatedAt}
	ops, marker := store.CreateOps(c)
	MustWrite(t, tbl, ops...)
	data = append(data, c)
	checkStats(t, s, data, productIDs(data))
	checkNoMarkers(t, tbl, fmt.Sprintf("after topProducts (the crashed write's was %v)", marker))
}

// checkNoMarkers fails the test when a leaderboard marker is left in tbl.
func checkNoMarkers(t *testing.T, tbl table.Table, when string) {
	t.Helper()
	for n := range store.LeaderShards {
		q := table.Query{HashValue: store.PendingPK(n), Forward: true, Limit: 10}
		if got := MustQueryAll(t, tbl, q); len(got) != 0 {
			t.Errorf("markers left %s: %v", when, keyStrings(got))
		}
	}
}
