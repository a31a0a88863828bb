package store

import (
	"context"
	"slices"

	"github.com/acme/comments-gateway/store/table"
)

// The rating orders (OrderHighestRating, OrderLowestRating) read the
// rating partitions one after another, each newest first: no merge. A
// position is a rating and a GSISK, so a page starts with one query at its
// cursor, and takes a second only where it crosses into the next rating
// (more only past ratings with no comment when no stats were read, or past
// a DynamoDB reply cut short at 1 MB): a deep page costs what page 1 costs.

// planSequence plans a page pg of a rating order of product pid's comments
// matching f: the partitions of the selected ratings from the page's start
// to its stop, in reading order (the order's rating sequence, reversed on
// a backward page), each a rating partition of byLangAndRating (with a
// language) or byRating. Ratings whose count in st is 0 are skipped (st
// nil: none is). Limits are set as the page reads (sequence).
func planSequence(pid string, f Filter, pg Page, st *Stats) Plan {
	p := Plan{Order: pg.order, Strategy: StrategySequence, Total: matchTotal(st, f)}
	seq := pg.order.ratingSequence(f)
	if pg.backward {
		slices.Reverse(seq)
	}
	for _, r := range seq {
		if pg.fromRating != 0 && r != pg.fromRating && !pg.ratingBefore(pg.fromRating, r) {
			continue // before the start
		}
		if pg.stopRating != 0 && r != pg.stopRating && !pg.ratingBefore(r, pg.stopRating) {
			continue // past the stop
		}
		if st != nil && st.Count(r) == 0 {
			p.Skipped = append(p.Skipped, r)
			continue
		}
		idx, key := PartitionKey(pid, f.Language, r)
		part := Partition{Index: idx, Key: key, Rating: r}
		if st != nil {
			part.Count = st.Count(r)
		}
		p.Partitions = append(p.Partitions, part)
	}
	if len(p.Partitions) == 0 {
		p.Strategy = StrategyEmpty
	}
	return p
}

// ratingBefore reports whether rating a is read before rating b on page
// pg: a > b in OrderHighestRating, a < b in OrderLowestRating, reversed
// on a backward page.
func (pg Page) ratingBefore(a, b int) bool {
	return (a > b) == (pg.order == OrderHighestRating) != pg.backward
}

// listSequence reads page pg of a rating order. The stats (nil: none
// wanted) load while the first partition is read; they are awaited when
// the page crosses into the next rating, to skip the ratings they count as
// empty, and for totalCount. The first partition is read whatever the
// stats say (one call, no item, when it is empty), and without stats every
// partition is: the page never depends on the counts.
func (s *Store) listSequence(ctx context.Context, pid string, f Filter, pg Page, stats StatsFunc) (*Connection, error) {
	var await func() (*Stats, error)
	if stats != nil {
		await = s.loadStats(stats)
	}
	plan := planSequence(pid, f, pg, nil)
	tr := &Trace{Plan: plan, Reads: make([]partitionReads, len(plan.Partitions))}
	arena := new(table.RecordArena) // the page's records, until they are its comments
	defer arena.Free()
	items, more, err := s.sequence(ctx, pg, tr, arena, await)
	var st *Stats
	if await != nil {
		var serr error
		if st, serr = await(); serr != nil && err == nil {
			err = serr
		}
	}
	if err != nil {
		return nil, err
	}
	tr.Plan.Total = matchTotal(st, f)
	if st != nil {
		for i := range tr.Plan.Partitions {
			tr.Plan.Partitions[i].Count = st.Count(tr.Plan.Partitions[i].Rating)
		}
	}
	conn := &Connection{TotalCount: tr.Plan.Total, Trace: tr}
	return conn, fillConnection(conn, pid, f, pg, items, more, nil, 0)
}

// sequence reads the trace's planned partitions one after another, each
// from the page's start (the first) or its beginning, until it has the
// page and one item more (which shows that more follow), or until the stop.
// Before crossing into a partition, awaitStats (nil: no stats) may skip it:
// it is dropped from the trace's plan and listed as Skipped. The records
// are lent by arena, as merge's are.
func (s *Store) sequence(ctx context.Context, pg Page, tr *Trace, arena *table.RecordArena, awaitStats func() (*Stats, error)) ([]table.Record, bool, error) {
	need := pg.size + 1
	out := make([]table.Record, 0, need)
	kept := tr.Plan.Partitions[:0:0]
	var reads []partitionReads
	for i, part := range tr.Plan.Partitions {
		if len(out) == need {
			break
		}
		if i > 0 {
			skip, err := skipEmpty(part, tr, awaitStats)
			if err != nil {
				return nil, false, err
			}
			if skip {
				continue
			}
		}
		kept = append(kept, part)
		reads = append(reads, partitionReads{})
		r := &reads[len(reads)-1]
		q := table.Query{Index: part.Index, HashValue: part.Key, Forward: pg.asc, Columns: commentColumns, Arena: arena}
		if part.Rating == pg.fromRating && pg.from != "" {
			q.SortValue, q.SortOp = pg.from, table.SortLess
			if pg.asc {
				q.SortOp = table.SortGreater
			}
		}
		for {
			q.Limit = need - len(out)
			r.Limits = append(r.Limits, q.Limit)
			r.Calls++
			tr.Rounds++
			res, err := s.table.Query(ctx, q)
			if err != nil {
				return nil, false, tableError(err)
			}
			r.Items += res.Len()
			for _, it := range records(res) {
				if part.Rating == pg.stopRating && pg.stop != "" && !before(it.S(colGSISK), pg.stop, pg.asc) {
					tr.Plan.Partitions, tr.Reads = kept, reads
					return out, false, nil // the stop: nothing after it
				}
				out = append(out, it)
			}
			if res.LastKey == nil || len(out) == need {
				break
			}
			q.StartKey = res.LastKey
		}
	}
	tr.Plan.Partitions, tr.Reads = kept, reads
	if len(tr.Plan.Partitions) == 0 {
		tr.Plan.Strategy = StrategyEmpty
	}
	if len(out) > pg.size {
		return out[:pg.size], true, nil
	}
	return out, false, nil
}

// skipEmpty reports whether the stats (awaitStats; nil: none) count
// partition part's rating as empty, listing it as Skipped in tr when they do.
func skipEmpty(part Partition, tr *Trace, awaitStats func() (*Stats, error)) (bool, error) {
	if awaitStats == nil {
		return false, nil
	}
	st, err := awaitStats()
	if err != nil || st.Count(part.Rating) != 0 {
		return false, err
	}
	tr.Plan.Skipped = append(tr.Plan.Skipped, part.Rating)
	return true, nil
}
