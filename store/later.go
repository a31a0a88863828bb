package store

import (
	"context"
	"fmt"
)

// ListPageLater is ListPage for a caller whose stats are still loading
// (a dataloader thunk): stats is called once and may block. When the page
// can be planned without them (Page.NeedsStats is false: one partition, or
// a merge sized by its after cursor's counts) its reads start at once, in
// the same round as the stats read, and the stats are awaited only for
// what needs them: totalCount, the positions of a first page's cursors,
// and whether the counts show that more follow (asked only when no item
// past the page was read). The page is the one ListPage returns with those
// stats; its first reads are sized without them (from the cursor's counts
// where it has them), and a partition whose stats count is 0 is read (one
// call, no item) rather than skipped. A merge of several ratings with no
// cursor counts waits for the stats, which plan it.
func (s *Store) ListPageLater(ctx context.Context, pid string, f Filter, pg Page, stats func() (*Stats, error)) (*Connection, error) {
	if err := ValidateID("product id", pid); err != nil {
		return nil, err
	}
	if pg.NeedsStats(pid, f) {
		st, err := stats()
		if err != nil {
			return nil, err
		}
		return s.ListPage(ctx, pid, f, pg, st)
	}
	ch := make(chan statsResult, 1)
	go func() {
		var r statsResult
		defer func() {
			if p := recover(); p != nil {
				r.err = Wrap(EINTERNAL, fmt.Errorf("panic: %v", p), "internal error")
			}
			ch <- r
		}()
		r.st, r.err = stats()
	}()
	var got *statsResult
	await := func() (*Stats, error) {
		if got == nil {
			r := <-ch
			got = &r
		}
		return got.st, got.err
	}
	pos := pg.position(pid, f)
	// rem: the counts after the page's start; from the stats on a first
	// page, else from the cursor, verified by the stats' version.
	counts := func(st *Stats) (rem []int64, version int64, verified bool) {
		switch {
		case pg.backward:
		case pg.from == "":
			return statsRemaining(st, f), st.Version, true
		case pos != nil:
			return pos.Remaining, pos.Version, st.Version == pos.Version
		}
		return nil, 0, false
	}
	knownMore := func() bool {
		st, err := await()
		if err != nil {
			return false // the error is returned below
		}
		rem, _, verified := counts(st)
		return verified && pg.stop == "" && sum(rem) > int64(pg.size)
	}
	// A later page whose cursor counts show more than a page reads no item
	// past it, expecting the stats to confirm the counts (the usual case:
	// no write since the cursor); if they do not, the merge reads that
	// item after all (knownMore is false), one more call only then.
	need := pg.size + 1
	if pos != nil && pg.stop == "" && sum(pos.Remaining) > int64(pg.size) {
		need = pg.size
	}
	var plan Plan
	if pos != nil && StatsNeeded(f) {
		plan = Plan{Strategy: StrategyMerge, Partitions: mergePartitions(pid, f.Language, f.Ratings, pos.Remaining, need, s.sizing)}
	} else {
		plan = planQuery(pid, f, nil, need, s.sizing)
	}
	tr := &Trace{Plan: plan, Reads: make([]PartitionReads, len(plan.Partitions))}
	var items []Item
	var more bool
	var err error
	if plan.Strategy != StrategyEmpty {
		items, more, err = s.merge(ctx, plan, pg, tr, knownMore)
	}
	st, serr := await()
	if err != nil {
		return nil, err
	}
	if serr != nil {
		return nil, serr
	}
	rem, version, _ := counts(st)
	tr.Plan.Total = matchTotal(st, f)
	tr.Positioned = rem != nil
	tr.KnownMore = knownMore()
	conn := &Connection{TotalCount: tr.Plan.Total, Trace: tr}
	if plan.Strategy == StrategyEmpty {
		return conn, nil
	}
	return conn, fillConnection(conn, pid, f, pg, items, more, rem, version)
}

type statsResult struct {
	st  *Stats
	err error
}
