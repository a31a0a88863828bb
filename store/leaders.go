package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/acme/comments-gateway/store/table"
)

// The leaderboard entries (LeaderKey) hold each product's exact 5-star
// count, which only one item can hold, so they are not written under a
// condition in the comment's transaction (writers of a hot product would
// take turns on them). Instead:
//
//  1. the transaction that changes a product's 5-star count also puts a
//     marker (pendingOp), a new item no other writer touches;
//  2. after it commits, the writer settles the product's entries
//     (settle): it reads the entry and the counter shards, and
//     writes the summed 5-star count with the shard versions it was summed
//     from, unless the entry already counts everything read; then deletes
//     the marker. The writers of one Store settle the same entries one
//     round at a time, each round for every marker queued when it starts
//     (settleQueued);
//  3. a marker left by a crash (or a failed settle) is settled by the next
//     topProducts before it answers (topOfShards), so the leaderboard is
//     never read without every committed change.
//
// Why that is exact: every write that changes a shard's 5-star count ADDs 1
// to its version_5, so those versions order the shard's 5-star counts. The entry records the
// vector of shard versions its count was summed from and is only replaced
// by a sum over a vector that dominates it (every shard at least as new).
// A writer's read follows its commit, so once the entry's vector dominates
// that read, it counts the write; and every shard's last write is read by
// its own writer, so when all markers are settled the entry's vector is
// the shards' own and its count is theirs.

// pendingReadLimit is how many markers of each leaderboard partition a
// topProducts reads and settles. More are pending only while that many
// writes of one partition's products are in flight (their writers settle
// them) or after as many were cut short (the following calls settle them).
const pendingReadLimit = 2

// TopProductsReads is the most items TopProducts(n) reads (one attempt of
// each settle; a settle that lost a race reads again): the first n entries
// of each leaderboard partition, twice when it settled markers, and up to
// pendingReadLimit markers of each partition with their settles (up to
// three languages: an update's all, old and new).
func TopProductsReads(n int) int {
	return 2*LeaderShards*n + LeaderShards*pendingReadLimit*(1+3*settleReadsPerLanguage)
}

const (
	pendingPrefix = "LBPENDING" + shardSep // PK of the markers, by LeaderShard
	// maxSettle bounds the read-and-write rounds of one settle; each failed
	// round means another writer settled the entry meanwhile.
	maxSettle = 50
)

// attrVersion5 is the attribute of a counter shard that counts the writes
// that changed its count_5 (ADD 1), the version the leaderboard entries
// follow: writes of other ratings leave the entries settled.
const attrVersion5 = "version_5"

// attrShardVersion names the attribute of a leaderboard entry that holds the
// version of counter shard n its count was summed from.
func attrShardVersion(n int) string { return fmt.Sprintf("sv_%d", n) }

// PendingPK is the partition of the leaderboard markers of products in
// leaderboard shard n.
func PendingPK(n int) string { return pendingPrefix + fmt.Sprint(n) }

// pendingOp puts a marker saying that the leaderboard entries of pid in
// langs ("" for all languages) are to be settled.
func pendingOp(pid string, langs []string) table.Op {
	k := table.Key{PK: PendingPK(LeaderShard(pid)), SK: fmt.Sprintf("%s#%016x", pid, rand.Uint64())}
	it := table.Item{table.AttrPK: table.S(k.PK), table.AttrSK: table.S(k.SK), table.AttrProductID: table.S(pid), table.AttrLanguage: table.S(strings.Join(langs, ","))}
	return table.Op{Kind: table.OpPut, Key: k, Item: it, Conds: []table.Cond{{Kind: table.CondNotExists}}}
}

// CreateOps returns the atomic write that creates comment c (as
// CreateComment makes it, c already validated) and the key of its
// leaderboard marker (the zero Key when its 5-star count is unchanged).
// Written alone, it is a create cut short before its settle, as by a crash:
// for tests.
func CreateOps(c *Comment) ([]table.Op, table.Key) {
	d := statsDelta{}
	d.add(c, +1)
	ops := append(deltaOps(c.ProductID, d), table.Op{Kind: table.OpPut, Key: CommentKey(c.ID), Item: c.Item(), Conds: []table.Cond{{Kind: table.CondNotExists}}})
	for _, op := range ops {
		if strings.HasPrefix(op.Key.PK, pendingPrefix) {
			return ops, op.Key
		}
	}
	return ops, table.Key{}
}

// commitSettled commits ops with change ch (commit) and then settles the
// leaderboard entries a marker among them names. The write is the
// mutation: once it has committed, a failed settle is not an error of the
// mutation (its marker stays, and the next topProducts settles it).
func (s *Store) commitSettled(ctx context.Context, ops []table.Op, ch Change) error {
	if err := s.commit(ctx, ops, ch); err != nil {
		return err
	}
	for _, op := range ops {
		if strings.HasPrefix(op.Key.PK, pendingPrefix) {
			_ = s.settleQueued(ctx, op.Item)
		}
	}
	return nil
}

// settle brings the leaderboard entries that markers name (one product and
// language list, see settleQueued) up to date and deletes the markers: one
// BatchGet of the entries and their counter shards, one Write of the
// entries that are behind (each on condition that it is still the one
// read) with the markers' deletes. It makes every entry count at least the
// shards of its first read, so every write to them that committed before
// the call; after a lost race, an entry that another writer brought that
// far is left alone.
func (s *Store) settle(ctx context.Context, markers []table.Item) error {
	pid := markers[0].S(table.AttrProductID)
	langs := strings.Split(markers[0].S(table.AttrLanguage), ",")
	var keys []table.Key
	for _, lang := range langs {
		keys = append(append(keys, LeaderKey(pid, lang)), StatsShardKeys(pid, lang)...)
	}
	const per = settleReadsPerLanguage // an entry and its shards
	var need [][]table.Item            // per language, the shards of the first read: what the entry must count
	backoff := time.Millisecond
	for attempt := 1; ; attempt++ {
		items, err := s.table.BatchGet(ctx, keys)
		if err != nil {
			return tableError(err)
		}
		ops, mixed := []table.Op{}, false
		for i, lang := range langs {
			entry, shards := items[i*per], items[i*per+1:(i+1)*per]
			if len(need) <= i {
				need = append(need, shards)
			}
			if newer, _ := compareShards(entry, need[i]); !newer {
				continue // the entry counts the first read (and so this write)
			}
			switch newer, older := compareShards(entry, shards); {
			case newer && older: // the read mixes states older and newer than the entry's
				mixed = true
			case newer: // the read dominates the entry: replace it
				ops = append(ops, leaderSetOp(pid, lang, entry, shards))
			}
		}
		if !mixed {
			for _, m := range markers {
				ops = append(ops, table.Op{Kind: table.OpDelete, Key: m.Key()})
			}
			err = s.table.Write(ctx, ops)
			if ErrorCode(err) != ECONFLICT {
				return tableError(err)
			}
		}
		if attempt == maxSettle {
			return Errorf(EUNAVAILABLE, "leaderboard entry of %q keeps changing; try again", pid)
		}
		if err := sleep(ctx, backoff/2+rand.N(backoff)); err != nil {
			return err
		}
		backoff = min(backoff*2, 50*time.Millisecond)
	}
}

// compareShards compares the shard versions a leaderboard entry was summed
// from with those of shards: newer, some shard is newer than the entry's;
// older, some is older.
func compareShards(entry table.Item, shards []table.Item) (newer, older bool) {
	for n, it := range shards {
		v, w := it.N(attrVersion5), entry.N(attrShardVersion(n))
		newer = newer || v > w
		older = older || v < w
	}
	return newer, older
}

// leaderSetOp replaces the leaderboard entry of (pid, lang), read as entry,
// with the 5-star count of shards and their versions, on condition that the
// entry is still the one read (its version).
func leaderSetOp(pid, lang string, entry table.Item, shards []table.Item) table.Op {
	st := SumStats(pid, lang, shards)
	op := table.Op{Kind: table.OpUpdate, Key: LeaderKey(pid, lang), Add: map[string]int64{table.AttrVersion: 1},
		Set: table.Item{table.AttrCount(5): table.N(st.Counts[5])}}
	for n, it := range shards {
		op.Set[attrShardVersion(n)] = table.N(it.N(attrVersion5))
	}
	if v, ok := entry[table.AttrVersion].Num(); ok {
		op.Conds = []table.Cond{{Kind: table.CondEquals, Attr: table.AttrVersion, Value: table.N(v)}}
	} else {
		op.Conds = []table.Cond{{Kind: table.CondAbsent, Attr: table.AttrVersion}}
	}
	if st.Counts[5] > 0 {
		op.Set[table.AttrGSIPK] = table.S(LeadersShardPK(lang, LeaderShard(pid)))
		op.Set[table.AttrGSISK] = table.S(LeadersSK(st.Counts[5], pid))
	} else {
		op.Remove = []string{table.AttrGSIPK, table.AttrGSISK}
	}
	return op
}

// sleep waits d, or until ctx is done (an EUNAVAILABLE error).
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return Wrap(EUNAVAILABLE, ctx.Err(), "request cancelled")
	case <-t.C:
		return nil
	}
}

// topOfShards reads the first n entries of every leaderboard partition of
// lang and, in the same round, the first pendingReadLimit markers of each
// (writes whose entries are not settled yet); it settles those (rare:
// writes in flight, or cut short by a crash) and reads the partitions
// again. Each partition is sorted by GSISK
// (zero-padded 5-star count, then product id), so the first n of the union,
// in descending GSISK order, are the first n overall.
func (s *Store) topOfShards(ctx context.Context, lang string, n int) ([]Rank, error) {
	heads := make([][]table.Item, LeaderShards)
	markers := make([][]table.Item, LeaderShards)
	err := s.each(ctx, 2*LeaderShards, func(ctx context.Context, i int) (err error) {
		if i < LeaderShards {
			heads[i], err = s.queryAll(ctx, table.Query{Index: table.IndexByLangAndRating, HashValue: LeadersShardPK(lang, i), Limit: n}, n)
		} else {
			markers[i-LeaderShards], err = s.queryAll(ctx, table.Query{HashValue: PendingPK(i - LeaderShards), Forward: true, Limit: pendingReadLimit}, pendingReadLimit)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if pending := slices.Concat(markers...); len(pending) > 0 {
		for _, m := range pending {
			if err := s.settle(ctx, []table.Item{m}); err != nil {
				return nil, err
			}
		}
		err := s.each(ctx, LeaderShards, func(ctx context.Context, i int) (err error) {
			heads[i], err = s.queryAll(ctx, table.Query{Index: table.IndexByLangAndRating, HashValue: LeadersShardPK(lang, i), Limit: n}, n)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	all := slices.Concat(heads...)
	slices.SortFunc(all, func(a, b table.Item) int { return strings.Compare(b.S(table.AttrGSISK), a.S(table.AttrGSISK)) })
	out := make([]Rank, 0, min(n, len(all)))
	for _, it := range all[:min(n, len(all))] {
		pid, _ := ProductIDFromPK(it.S(table.AttrPK))
		out = append(out, Rank{Rank: len(out) + 1, ProductID: pid, FiveStarCount: it.N(table.AttrCount(5))})
	}
	return out, nil
}

// queryAll reads q page by page until max items (max < 0: all of them).
func (s *Store) queryAll(ctx context.Context, q table.Query, max int) ([]table.Item, error) {
	var out []table.Item
	for max < 0 || len(out) < max {
		res, err := s.table.Query(ctx, q)
		if err != nil {
			return nil, tableError(err)
		}
		out = append(out, res.Items...)
		if res.LastKey == nil {
			break
		}
		q.StartKey = res.LastKey
		if max >= 0 {
			q.Limit = max - len(out)
		}
	}
	return out, nil
}
