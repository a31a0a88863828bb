package store

import (
	"context"
	"sort"
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
// parallel scan of `segments` segments, and rewrites every stats item (with
// its leaderboard keys); stats items of products or languages that no longer
// have comments are zeroed. Run it with writes paused: a comment written
// during the scan may be counted wrongly until the next rebuild.
func (s *Store) RebuildStats(ctx context.Context, segments int) (RebuildResult, error) {
	if segments < 1 {
		segments = 1
	}
	var (
		mu     sync.Mutex
		counts = map[StatsID]*Stats{}
		seen   = map[StatsID]int64{} // existing stats items: their versions
		res    RebuildResult
	)
	g, gctx := errgroup.WithContext(ctx)
	for seg := 0; seg < segments; seg++ {
		g.Go(func() (err error) {
			defer recoverTo(&err)
			local := map[StatsID]*Stats{}
			localSeen := map[StatsID]int64{}
			var n int64
			var start Item
			for {
				items, next, err := s.table.Scan(gctx, seg, segments, start, scanPage)
				if err != nil {
					return err
				}
				for _, it := range items {
					if pid, ok := ProductIDFromPK(it.S(AttrPK)); ok {
						if lang, ok := LangFromStatsSK(it.S(AttrSK)); ok {
							localSeen[StatsID{pid, lang}] = it.N(AttrVersion)
						}
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
	for id := range seen {
		if counts[id] == nil {
			counts[id] = &Stats{ProductID: id.ProductID, Language: id.Language}
		}
	}
	ids := make([]StatsID, 0, len(counts))
	for id, st := range counts {
		ids = append(ids, id)
		if id.Language == "" && st.Total > 0 {
			res.Products++
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		if ids[i].ProductID != ids[j].ProductID {
			return ids[i].ProductID < ids[j].ProductID
		}
		return ids[i].Language < ids[j].Language
	})
	items := make([]Item, len(ids))
	for i, id := range ids {
		counts[id].Version = seen[id] + 1 // cursors issued under the old counts fall back
		items[i] = counts[id].Item()
	}
	res.StatsItems = len(items)
	return res, s.table.BatchPut(ctx, items)
}
