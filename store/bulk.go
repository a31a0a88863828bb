package store

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"
)

// PutComments bulk-loads comments (already validated) with BatchPut. It does
// not touch the stats: run RebuildStats after a bulk load.
func (s *Store) PutComments(ctx context.Context, cs []*Comment) error {
	items := make([]Item, len(cs))
	for i, c := range cs {
		items[i] = c.Item()
	}
	return s.table.BatchPut(ctx, items)
}

// RebuildResult summarises a RebuildStats run.
type RebuildResult struct {
	Comments   int64 // comments counted
	Products   int   // products with comments
	StatsItems int   // stats items written (including zeroed stale ones)
}

// scanPage is the page size of the rebuild scan.
const scanPage = 1000

// RebuildStats recounts every product's stats from the comments with a
// parallel scan of `segments` segments, and rewrites every stats item whole:
// the counts into counter shard 0, the other shards zeroed, the leaderboard
// entries (see rebuiltItems); stats of products or languages that no longer
// have comments are zeroed. Run it with writes paused: a comment written
// during the scan may be counted wrongly until the next rebuild.
func (s *Store) RebuildStats(ctx context.Context, segments int) (RebuildResult, error) {
	if segments < 1 {
		segments = 1
	}
	var (
		mu     sync.Mutex
		counts = map[StatsID]*Stats{}
		seen   = map[Key]int64{} // existing stats and leaderboard items: their versions
		res    RebuildResult
	)
	g, gctx := errgroup.WithContext(ctx)
	for seg := 0; seg < segments; seg++ {
		g.Go(func() (err error) {
			defer recoverTo(&err)
			local := map[StatsID]*Stats{}
			localSeen := map[Key]int64{}
			var n int64
			var start Item
			for {
				items, next, err := s.table.Scan(gctx, seg, segments, start, scanPage)
				if err != nil {
					return err
				}
				for _, it := range items {
					if _, ok := ProductIDFromPK(it.S(AttrPK)); ok {
						localSeen[it.Key()] = it.N(AttrVersion)
						continue
					}
					if _, ok := CommentIDFromPK(it.S(AttrPK)); !ok {
						continue
					}
					pid, lang, r := it.S(AttrProductID), it.S(AttrLanguage), int(it.N(AttrRating))
					if r < MinRating || r > MaxRating {
						continue
					}
					n++
					for _, id := range []StatsID{{pid, ""}, {pid, lang}} {
						st := local[id]
						if st == nil {
							st = &Stats{ProductID: id.ProductID, Language: id.Language}
							local[id] = st
						}
						st.Counts[r]++
						st.Total++
					}
				}
				if next == nil {
					break
				}
				start = next
			}
			mu.Lock()
			defer mu.Unlock()
			res.Comments += n
			for id, st := range local {
				if have := counts[id]; have != nil {
					for r := range have.Counts {
						have.Counts[r] += st.Counts[r]
					}
					have.Total += st.Total
				} else {
					counts[id] = st
				}
			}
			for id, v := range localSeen {
				seen[id] = v
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return res, err
	}
	items := rebuiltItems(counts, seen)
	for id, st := range counts {
		if id.Language == "" && st.Total > 0 {
			res.Products++
		}
	}
	res.StatsItems = len(items)
	return res, s.table.BatchPut(ctx, items)
}

// rebuiltItems returns the items a rebuild writes: for every (product,
// language) counted or with an existing item, every counter shard (the
// counts in shard 0, zeros elsewhere; each shard's version one past the
// old, so the summed version grows) and the leaderboard entry with those
// shard versions. Existing
// shard items past StatsShards are zeroed too.
func rebuiltItems(counts map[StatsID]*Stats, seen map[Key]int64) []Item {
	ids := map[StatsID]bool{}
	for id := range counts {
		ids[id] = true
	}
	for k := range seen {
		pid, _ := ProductIDFromPK(k.PK)
		if lang, _, ok := ParseStatsSK(k.SK); ok {
			ids[StatsID{pid, lang}] = true
		} else if lang, ok := LangFromLeaderSK(k.SK); ok {
			ids[StatsID{pid, lang}] = true
		}
	}
	var items []Item
	write := func(it Item) {
		k := it.Key()
		it[AttrVersion] = seen[k] + 1
		if _, _, ok := ParseStatsSK(k.SK); ok {
			it[AttrVersion5] = it[AttrVersion] // ≥ any earlier version_5, which never passes version
		}
		delete(seen, k)
		items = append(items, it)
	}
	for id := range ids {
		st := counts[id]
		if st == nil {
			st = &Stats{ProductID: id.ProductID, Language: id.Language}
		}
		leader := LeaderItem(id.ProductID, id.Language, st.Counts[5])
		write(st.Item())
		for n := 1; n < StatsShards; n++ {
			write((&Stats{ProductID: id.ProductID, Language: id.Language}).shardItem(n))
		}
		for n := range StatsShards { // the entry counts exactly these shards
			leader[AttrShardVersion(n)] = items[len(items)-StatsShards+n].N(AttrVersion5)
		}
		write(leader)
	}
	for k := range seen { // shards past StatsShards
		pid, _ := ProductIDFromPK(k.PK)
		if lang, n, ok := ParseStatsSK(k.SK); ok {
			write((&Stats{ProductID: pid, Language: lang}).shardItem(n))
		}
	}
	slices.SortFunc(items, func(a, b Item) int {
		return cmp.Or(strings.Compare(a.S(AttrPK), b.S(AttrPK)), strings.Compare(a.S(AttrSK), b.S(AttrSK)))
	})
	return items
}
