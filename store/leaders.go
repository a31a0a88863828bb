package store

import (
	"context"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"
)

// topOfShards reads the first n entries of every leaderboard partition of
// lang (in parallel on a remote table) and merges them: each partition is
// sorted by GSISK (zero-padded 5-star count, then product id), so the first
// n of the union, in descending GSISK order, are the first n overall.
func (s *Store) topOfShards(ctx context.Context, lang string, n int) ([]Rank, error) {
	heads := make([][]Item, LeaderShards)
	read := func(ctx context.Context, shard int) (err error) {
		defer recoverTo(&err)
		heads[shard], err = s.leaderHead(ctx, LeadersShardPK(lang, shard), n)
		return err
	}
	if s.local {
		for shard := range heads {
			if err := read(ctx, shard); err != nil {
				return nil, err
			}
		}
	} else {
		g, gctx := errgroup.WithContext(ctx)
		for shard := range heads {
			g.Go(func() error { return read(gctx, shard) })
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
	}
	all := slices.Concat(heads...)
	slices.SortFunc(all, func(a, b Item) int { return strings.Compare(b.S(AttrGSISK), a.S(AttrGSISK)) })
	out := make([]Rank, 0, min(n, len(all)))
	for _, it := range all[:min(n, len(all))] {
		pid, _ := ProductIDFromPK(it.S(AttrPK))
		out = append(out, Rank{Rank: len(out) + 1, ProductID: pid, FiveStarCount: it.N(AttrCount(5))})
	}
	return out, nil
}

// leaderHead reads the first n entries of one leaderboard partition,
// highest first.
func (s *Store) leaderHead(ctx context.Context, pk string, n int) ([]Item, error) {
	var out []Item
	q := Query{Index: IndexByLangAndRating, HashValue: pk, Limit: n}
	for len(out) < n {
		res, err := s.table.Query(ctx, q)
		if err != nil {
			return nil, err
		}
		out = append(out, res.Items...)
		if res.LastKey == nil {
			break
		}
		q.StartKey, q.Limit = res.LastKey, n-len(out)
	}
	return out, nil
}
