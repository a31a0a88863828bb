package store

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/acme/comments-gateway/store/table"
)

// PutComments bulk-loads comments (already validated) with BatchPut. It does
// not touch the stats: run RebuildStats after a bulk load.
func (s *Store) PutComments(ctx context.Context, cs []*Comment) error {
	return s.table.BatchPut(ctx, commentItems(cs))
}

// commentItems returns the items of cs.
func commentItems(cs []*Comment) []table.Item {
	items := make([]table.Item, len(cs))
	for i, c := range cs {
		items[i] = c.Item()
	}
	return items
}

// RebuildResult summarises a RebuildStats run.
type RebuildResult struct {
	Comments   int64 // comments counted
	Products   int   // products with comments
	StatsItems int   // stats items written (including zeroed stale ones)
	// Backfilled counts the published comments written before the helpful
	// twins that the rebuild gave their HSK (helpfulBackfill).
	Backfilled int64
}

// scanPage is the page size of the rebuild scan.
const scanPage = 1000

// RebuildStats recounts every product's stats from the comments with a
// parallel scan of `segments` segments: RebuildStatsWith without progress.
func (s *Store) RebuildStats(ctx context.Context, segments int) (RebuildResult, error) {
	return s.RebuildStatsWith(ctx, RebuildOptions{Segments: segments})
}

// RebuildOptions configures RebuildStatsWith.
type RebuildOptions struct {
	Segments int // parallel scan segments (at least 1 is used)
	// Progress, when set, is called after each page of the scan with the
	// number of items scanned so far (one call at a time).
	Progress func(scanned int64)
}

// RebuildStatsWith recounts every product's stats from the comments with a
// parallel scan, and rewrites every stats item whole: the counts into
// counter shard 0, the other shards deleted, the leaderboard entries (see
// rebuiltItems); stats of products or languages that no longer have
// comments are zeroed. It migrates a table of any earlier design (see
// DesignVersion) and records DesignVersion when done; a table of a newer
// design is refused before the scan. A published comment that lacks its
// HSK (written before the helpful twins) gets it during the scan; then it
// settles the votes of every comment with votes (settleAllVotes), and the
// table is marked as serving MOST_HELPFUL (CheckHelpful). Run it with writes paused: a comment
// written during the scan may be counted wrongly until the next rebuild.
func (s *Store) RebuildStatsWith(ctx context.Context, o RebuildOptions) (RebuildResult, error) {
	return s.rebuildFrom(ctx, func() (*tally, error) { return s.scanTally(ctx, max(o.Segments, 1), o.Progress) })
}

// rebuildFrom reads the recorded design (refusing a newer one before any
// counting), takes the tally that count makes, and writes its stats
// (writeStats).
func (s *Store) rebuildFrom(ctx context.Context, count func() (*tally, error)) (RebuildResult, error) {
	was, err := s.recordedDesign(ctx)
	if err != nil {
		return RebuildResult{}, err
	}
	tally, err := count()
	if err != nil {
		return RebuildResult{}, err
	}
	res, err := s.writeStats(ctx, tally, was)
	if err != nil {
		return res, err
	}
	if err := s.settleAllVotes(ctx, tally.voted); err != nil {
		return res, err
	}
	return res, s.markHelpfulSorted(ctx)
}

// settleAllVotes settles the votes of every comment in voted (a vote
// partition the scan saw; settleVotesOf): a settle a crash cut short is
// completed, and the votes of deleted comments are deleted.
func (s *Store) settleAllVotes(ctx context.Context, voted map[string]bool) error {
	for id := range voted {
		if err := s.settleVotesOf(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// writeStats rewrites the stats items of what tally counted (see
// RebuildStatsWith), and records DesignVersion on a table whose recorded
// design was `was`.
func (s *Store) writeStats(ctx context.Context, tally *tally, was int64) (RebuildResult, error) {
	res := RebuildResult{Comments: tally.comments, Backfilled: tally.backfilled}
	items, deletes := rebuiltItems(tally.counts, tally.seen)
	for id, st := range tally.counts {
		if id.Language == "" && st.Total > 0 {
			res.Products++
		}
	}
	res.StatsItems = len(items)
	if err := s.table.BatchPut(ctx, items); err != nil {
		return res, tableError(err)
	}
	// After the puts: the summed version never goes back.
	if err := s.deleteKeys(ctx, deletes); err != nil {
		return res, err
	}
	if was == DesignVersion {
		return res, nil
	}
	return res, s.recordDesign(ctx, was)
}

// tally is what a rebuild's scan found: the counts per product and
// language, the existing stats and leaderboard items with their versions,
// and the comments with a vote partition.
type tally struct {
	comments   int64
	backfilled int64 // comments given their HSK
	counts     map[StatsID]*Stats
	seen       map[table.Key]int64
	voted      map[string]bool
}

// add counts comment item it (an item of no valid rating is skipped).
func (t *tally) add(it table.Item) {
	t.addComment(it.S(table.AttrProductID), it.S(table.AttrLanguage), int(it.N(table.AttrRating)))
}

// addComment counts a comment of product pid, language lang and rating r
// (skipped when r is not a valid rating).
func (t *tally) addComment(pid, lang string, r int) {
	if r < MinRating || r > MaxRating {
		return
	}
	t.comments++
	for _, id := range []StatsID{{pid, ""}, {pid, lang}} {
		st := t.counts[id]
		if st == nil {
			st = &Stats{ProductID: id.ProductID, Language: id.Language}
			t.counts[id] = st
		}
		st.Counts[r]++
		st.Total++
	}
}

// merge adds the tally o of another segment to t.
func (t *tally) merge(o *tally) {
	t.comments += o.comments
	t.backfilled += o.backfilled
	for id, st := range o.counts {
		if have := t.counts[id]; have != nil {
			for r := range have.Counts {
				have.Counts[r] += st.Counts[r]
			}
			have.Total += st.Total
		} else {
			t.counts[id] = st
		}
	}
	for k, v := range o.seen {
		t.seen[k] = v
	}
	for id := range o.voted {
		t.voted[id] = true
	}
}

func newTally() *tally {
	return &tally{counts: map[StatsID]*Stats{}, seen: map[table.Key]int64{}, voted: map[string]bool{}}
}

// scanTally scans the table in `segments` parallel segments and tallies
// what it finds: comments by product, language and rating, and the items
// of product partitions (stats and leaderboard items) with their versions.
// It gives the published comments that lack their HSK theirs
// (backfillHelpful).
// progress, when set, gets the items scanned so far after each page.
func (s *Store) scanTally(ctx context.Context, segments int, progress func(int64)) (*tally, error) {
	var mu sync.Mutex
	all := newTally()
	var scanned int64 // under mu
	report := func(n int) {
		if progress != nil {
			mu.Lock()
			defer mu.Unlock()
			scanned += int64(n)
			progress(scanned)
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	for seg := 0; seg < segments; seg++ {
		g.Go(func() (err error) {
			defer recoverTo(&err)
			local := newTally()
			var start table.Item
			for {
				items, next, err := s.table.Scan(gctx, seg, segments, start, scanPage)
				if err != nil {
					return tableError(err)
				}
				report(len(items))
				for _, it := range items {
					if _, ok := ProductIDFromPK(it.S(table.AttrPK)); ok {
						local.seen[it.Key()] = it.N(table.AttrVersion)
					} else if _, ok := CommentIDFromPK(it.S(table.AttrPK)); ok && it.S(table.AttrStatus) == "" {
						local.add(it) // only a published comment counts
						done, err := s.backfillHelpful(gctx, it)
						if err != nil {
							return err
						}
						if done {
							local.backfilled++
						}
					} else if id, ok := CommentIDFromVotesPK(it.S(table.AttrPK)); ok {
						local.voted[id] = true
					}
				}
				if next == nil {
					break
				}
				start = next
			}
			mu.Lock()
			defer mu.Unlock()
			all.merge(local)
			return nil
		})
	}
	return all, g.Wait()
}

// deleteKeys deletes the items of keys, MaxWriteOps at a time.
func (s *Store) deleteKeys(ctx context.Context, keys []table.Key) error {
	for len(keys) > 0 {
		n := min(len(keys), table.MaxWriteOps)
		ops := make([]table.Op, n)
		for i, k := range keys[:n] {
			ops[i] = table.Op{Kind: table.OpDelete, Key: k}
		}
		if err := s.table.Write(ctx, ops); err != nil {
			return tableError(err)
		}
		keys = keys[n:]
	}
	return nil
}

// rebuiltItems returns the items a rebuild writes and the keys it deletes:
// for every (product, language) counted or with an existing item, counter
// shard 0 with the counts and the leaderboard entry; the other shards are
// deleted (reads find one item, and writes bring shards back as comments
// hash to them). Shard 0's version is one past the sum of the old shards'
// versions, so the summed version grows (cursors issued under the old
// counts stop trusting them); the entry records the shard versions it
// counts (shard 0's version_5 = its version; deleted shards start again
// from 0, which the entry records as absent).
func rebuiltItems(counts map[StatsID]*Stats, seen map[table.Key]int64) ([]table.Item, []table.Key) {
	ids := map[StatsID]int64{} // the summed versions of the existing shards
	var deletes []table.Key
	for k, v := range seen {
		pid, _ := ProductIDFromPK(k.PK)
		if lang, n, ok := parseStatsSK(k.SK); ok {
			ids[StatsID{pid, lang}] += v
			if n != 0 {
				deletes = append(deletes, k)
			}
		} else if lang, ok := LangFromLeaderSK(k.SK); ok {
			ids[StatsID{pid, lang}] += 0
		}
	}
	for id := range counts {
		ids[id] += 0
	}
	var items []table.Item
	for id, sum := range ids {
		st := counts[id]
		if st == nil {
			st = &Stats{ProductID: id.ProductID, Language: id.Language}
		}
		shard := st.Item()
		shard[table.AttrVersion] = table.N(sum + 1)
		shard[attrVersion5] = table.N(sum + 1)
		leader := LeaderItem(id.ProductID, id.Language, st.Counts[5])
		leader[table.AttrVersion] = table.N(seen[leader.Key()] + 1)
		leader[attrShardVersion(0)] = table.N(sum + 1)
		items = append(items, shard, leader)
	}
	slices.SortFunc(items, func(a, b table.Item) int {
		return cmp.Or(strings.Compare(a.S(table.AttrPK), b.S(table.AttrPK)), strings.Compare(a.S(table.AttrSK), b.S(table.AttrSK)))
	})
	return items, deletes
}
