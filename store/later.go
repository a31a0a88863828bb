package store

import (
	"context"
	"fmt"

	"github.com/acme/comments-gateway/store/table"
)

// listPageLater is listPage for a caller whose stats are still loading (a
// dataloader thunk): stats is called once, in its own goroutine, and may
// block. The page's reads start at once, in the same round as the stats
// read, sized without them: from the after cursor's counts, else from the
// Store's hint for the product and language (hintPlan), else, for a page
// that is one partition, at the page size (a hint that counts a selected
// rating as empty is not used: only the stats skip a partition). The stats are awaited only for
// what needs them: totalCount, the positions of a first page's cursors,
// and whether the counts show that more follow (asked only when no item
// past the page was read). The page is the one listPage returns with those
// stats; a partition whose stats count is 0 is read (one call, no item)
// rather than skipped. A merge of several ratings with neither cursor
// counts nor a hint waits for the stats, which plan it, unless the sizing
// is one that finishes in a refill (Finish): then each partition is read
// for its share of the page as the ratings of the products the Store has
// read are shared (planBlind), and the finishing refill, if one is
// needed, completes it in a second round.
func (s *Store) listPageLater(ctx context.Context, pid string, f Filter, pg Page, stats StatsFunc) (*Connection, error) {
	var early *Plan // the plan from the hint, when there is one
	if pg.needsStats(pid, f) {
		early = s.earlyPlan(pid, f, pg)
		if early == nil {
			st, err := stats()
			if err != nil {
				return nil, err
			}
			return s.listPage(ctx, pid, f, pg, st)
		}
	}
	await := s.loadStats(stats)
	knownMore := func() bool {
		st, err := await()
		if err != nil {
			return false // the error is returned below
		}
		rem, _, verified := pg.counts(pid, f, st)
		return verified && pg.stop == "" && sum(rem) > int64(pg.size)
	}
	plan := orderPlan(s.planEarly(pid, f, pg, pg.position(pid, f), early), pg.order)
	tr := &Trace{Plan: plan, Reads: make([]partitionReads, len(plan.Partitions))}
	var items []table.Record
	var more bool
	var err error
	arena := new(table.RecordArena) // the page's records, until they are its comments
	defer arena.Free()
	if plan.Strategy != StrategyEmpty {
		items, more, err = s.merge(ctx, plan, pg, tr, arena, knownMore)
	}
	st, serr := await()
	if err != nil {
		return nil, err
	}
	if serr != nil {
		return nil, serr
	}
	rem, version, _ := pg.counts(pid, f, st)
	tr.Plan.Total = matchTotal(st, f)
	tr.Positioned = rem != nil
	tr.KnownMore = knownMore()
	conn := &Connection{TotalCount: tr.Plan.Total, Trace: tr}
	if plan.Strategy == StrategyEmpty {
		return conn, nil
	}
	return conn, fillConnection(conn, pid, f, pg, items, more, rem, version)
}

// earlyPlan is the plan of a page that needs the stats, made before they
// are read: the hint's, or with a sizing that finishes in a refill the
// blind shares; nil when the page must wait for the stats.
func (s *Store) earlyPlan(pid string, f Filter, pg Page) *Plan {
	if hint := s.hints.get(StatsID{ProductID: pid, Language: f.Language}); hint != nil {
		if p, ok := hintPlan(pid, f, hint, pg.size+1, s.sizing); ok {
			return &p
		}
	}
	if s.sizing.Finish {
		// A sizing that finishes in a refill does not wait for the
		// stats on the first page of a product this Store has no hint
		// for: shares as other products' stats share the ratings
		// (equal shares on a new Store), read in the stats' round, and
		// at most one finishing refill. (Reading each partition for the
		// whole page, to be sure of one round, billed 4.5 read units
		// where the shares bill 1.5–2.5.)
		p := planBlind(pid, f, pg.size+1, s.sizing, s.hints.prior())
		return &p
	}
	return nil
}

// planEarly plans the reads of page pg before its stats are known: a merge
// sized by the after cursor's counts (pos), else the hint's plan (early),
// else without stats (one partition, or an empty rating list).
func (s *Store) planEarly(pid string, f Filter, pg Page, pos *Position, early *Plan) Plan {
	// A later page whose cursor counts show more than a page reads no item
	// past it, expecting the stats to confirm the counts (the usual case:
	// no write since the cursor); if they do not, the merge reads that
	// item after all (knownMore is false), one more call only then.
	need := pg.size + 1
	if pos != nil && pg.stop == "" && sum(pos.Remaining) > int64(pg.size) {
		need = pg.size
	}
	switch {
	case pos != nil && statsNeeded(f):
		return Plan{Strategy: StrategyMerge, Partitions: mergePartitions(pid, f.Language, f.Ratings, pos.Remaining, need, s.sizing)}
	case early != nil:
		return *early
	}
	return planQuery(pid, f, nil, need, s.sizing)
}

// loadStats calls stats and returns a function that waits for its result.
// On a remote table stats runs in its own goroutine, alongside the page's
// reads (a panic there is an EINTERNAL error); on a local one, where a
// read takes microseconds and a goroutine would cost more than it saves,
// at the first wait.
func (s *Store) loadStats(stats StatsFunc) func() (*Stats, error) {
	read := func() (r statsResult) {
		r.st, r.err = stats()
		return r
	}
	wait := read
	if !s.local {
		ch := make(chan statsResult, 1)
		go func() {
			var r statsResult
			defer func() {
				if p := recover(); p != nil {
					r.err = Wrap(EINTERNAL, fmt.Errorf("panic: %v", p), "internal error")
				}
				ch <- r
			}()
			r = read()
		}()
		wait = func() statsResult { return <-ch }
	}
	var got *statsResult
	return func() (*Stats, error) {
		if got == nil {
			r := wait()
			got = &r
		}
		return got.st, got.err
	}
}

type statsResult struct {
	st  *Stats
	err error
}
