package store

import (
	"context"
	"fmt"
	"math"
	"runtime/debug"
	"slices"

	"golang.org/x/sync/errgroup"
)

// Page size limits.
const (
	DefaultPageSize = 20
	MaxPageSize     = 100
)

// PageArgs are a Relay connection's arguments.
type PageArgs struct {
	First  *int
	After  *string
	Last   *int
	Before *string
}

// Edge is one comment of a page with its cursor.
type Edge struct {
	Cursor  string
	Comment *Comment
}

// Connection is one page of comments.
type Connection struct {
	Edges           []Edge
	HasNextPage     bool
	HasPreviousPage bool
	TotalCount      int64
	Trace           *Trace
}

// Trace records what a page read: its plan and, per partition, the queries
// made and items read. It backs EXPLAIN and the cost accounting.
type Trace struct {
	Plan      Plan
	Reads     []PartitionReads // aligned with Plan.Partitions
	Returned  int
	ItemsRead int
	Calls     int
}

// PartitionReads counts the reads of one partition.
type PartitionReads struct {
	Calls  int
	Items  int
	Limits []int
}

// Page is the validated form of PageArgs (see ParsePage).
type Page struct {
	size     int
	backward bool
	from     string // exclusive start GSISK ("" from the newest/oldest)
	stop     string // exclusive stop GSISK ("" none)
}

// ParsePage validates a connection's arguments without reading anything:
// first or last (0–100, 20 by default), and the cursors.
func ParsePage(a PageArgs) (Page, error) {
	var p Page
	if a.First != nil && a.Last != nil {
		return p, Errorf(EINVALID, "pass either first or last, not both")
	}
	p.size = DefaultPageSize
	switch {
	case a.First != nil:
		p.size = *a.First
	case a.Last != nil:
		p.size = *a.Last
		p.backward = true
	case a.Before != nil && a.After == nil:
		p.backward = true
	}
	if p.size < 0 || p.size > MaxPageSize {
		return p, Errorf(EINVALID, "first and last must be between 0 and %d, got %d", MaxPageSize, p.size)
	}
	var after, before string
	var err error
	if a.After != nil {
		if after, err = DecodeCursor(*a.After); err != nil {
			return p, Errorf(EINVALID, "after: %s", ErrorMessage(err))
		}
	}
	if a.Before != nil {
		if before, err = DecodeCursor(*a.Before); err != nil {
			return p, Errorf(EINVALID, "before: %s", ErrorMessage(err))
		}
	}
	if p.backward {
		p.from, p.stop = before, after
	} else {
		p.from, p.stop = after, before
	}
	return p, nil
}

// ListComments returns one page of product pid's comments matching f, newest
// first, given the stats of (pid, f.Language) (which the caller loads,
// batched, through a dataloader). f must hold a canonical language and
// normalised ratings (see NormalizeRatings). st may be nil when the caller
// does not want TotalCount (it is then -1) and StatsNeeded(f) is false: the
// page is exact all the same, and the stats item is not read.
func (s *Store) ListComments(ctx context.Context, pid string, f Filter, args PageArgs, st *Stats) (*Connection, error) {
	pg, err := ParsePage(args)
	if err != nil {
		return nil, err
	}
	return s.ListPage(ctx, pid, f, pg, st)
}

// ListPage is ListComments with arguments already parsed by ParsePage (a
// caller that checks them before loading the stats parses them once).
func (s *Store) ListPage(ctx context.Context, pid string, f Filter, pg Page, st *Stats) (*Connection, error) {
	if err := ValidateID("product id", pid); err != nil {
		return nil, err
	}
	plan := PlanQuery(pid, f, st, pg.size+1)
	tr := &Trace{Plan: plan, Reads: make([]PartitionReads, len(plan.Partitions))}
	conn := &Connection{TotalCount: plan.Total, Trace: tr}
	if plan.Strategy == StrategyEmpty {
		return conn, nil
	}
	items, more, err := s.merge(ctx, plan, pg, tr)
	if err != nil {
		return nil, err
	}
	conn.Edges = make([]Edge, 0, len(items))
	for _, it := range items {
		c, err := CommentFromItem(it)
		if err != nil {
			return nil, err
		}
		conn.Edges = append(conn.Edges, Edge{Cursor: EncodeCursor(it.S(AttrGSISK)), Comment: c})
	}
	if pg.backward {
		slices.Reverse(conn.Edges)
		conn.HasPreviousPage = more
	} else {
		conn.HasNextPage = more
	}
	tr.Returned = len(conn.Edges)
	for _, r := range tr.Reads {
		tr.ItemsRead += r.Items
		tr.Calls += r.Calls
	}
	return conn, nil
}

// stream is one partition being merged: a buffer of read items, and the key
// to continue from while the partition may hold more.
type stream struct {
	part Partition
	buf  []Item
	next Item // StartKey of the next read; nil once exhausted
	done bool // exhausted (or past the stop bound)
}

// merge reads the plan's partitions and k-way merges them by GSISK, taking
// pg.size items and reporting whether one more exists. A partition whose
// buffer runs dry while it may hold more is read again from its last key
// (refill), so the result is exact for any first-read limit.
func (s *Store) merge(ctx context.Context, plan Plan, pg Page, tr *Trace) ([]Item, bool, error) {
	streams := make([]*stream, len(plan.Partitions))
	for i, p := range plan.Partitions {
		streams[i] = &stream{part: p}
	}
	need := pg.size + 1
	// First round: every partition in parallel, with its planned limit.
	first := make([]int, len(streams))
	for i := range streams {
		first[i] = i
	}
	if err := s.fill(ctx, streams, first, pg, tr, func(st *stream) int { return st.part.Limit }); err != nil {
		return nil, false, err
	}
	out := make([]Item, 0, need)
	for len(out) < need {
		var dry []int
		for i, st := range streams {
			if len(st.buf) == 0 && !st.done {
				dry = append(dry, i)
			}
		}
		if len(dry) > 0 {
			remaining := need - len(out)
			err := s.fill(ctx, streams, dry, pg, tr, func(st *stream) int {
				return refillLimit(remaining, st.part.Count, plan.Total, len(streams))
			})
			if err != nil {
				return nil, false, err
			}
			continue
		}
		best := -1
		for i, st := range streams {
			if len(st.buf) == 0 {
				continue
			}
			if best < 0 || before(st.buf[0].S(AttrGSISK), streams[best].buf[0].S(AttrGSISK), pg.backward) {
				best = i
			}
		}
		if best < 0 {
			break // every partition exhausted
		}
		it := streams[best].buf[0]
		streams[best].buf = streams[best].buf[1:]
		if pg.stop != "" && !before(it.S(AttrGSISK), pg.stop, pg.backward) {
			streams[best].done, streams[best].buf = true, nil
			continue
		}
		if plan.Keep != nil && !slices.Contains(plan.Keep, int(it.N(AttrRating))) {
			continue
		}
		out = append(out, it)
	}
	more := len(out) == need
	if more {
		out = out[:pg.size]
	}
	return out, more, nil
}

// before reports whether sort key a comes before b in the page's order:
// descending (newest first) forward, ascending backward.
func before(a, b string, backward bool) bool {
	if backward {
		return a < b
	}
	return a > b
}

// refillLimit sizes a refill read: the partition's share of the items still
// needed, plus one (the item that shows where the partition continues), at
// most remaining.
func refillLimit(remaining int, count, total int64, k int) int {
	l := remaining
	if k > 1 && total > 0 {
		l = int(math.Ceil(float64(remaining)*float64(count)/float64(total))) + 1
	}
	return max(1, min(l, remaining))
}

// fill reads the streams at idx, each with limit(stream): in parallel on a
// remote store, one after the other on a local one (where a read takes
// microseconds and a goroutine would cost more than it saves).
func (s *Store) fill(ctx context.Context, streams []*stream, idx []int, pg Page, tr *Trace, limit func(*stream) int) error {
	read := func(ctx context.Context, i int, q Query) (err error) {
		defer recoverTo(&err)
		res, err := s.table.Query(ctx, q)
		if err != nil {
			return err
		}
		st := streams[i]
		st.buf = append(st.buf, res.Items...)
		st.next = res.LastKey
		st.done = res.LastKey == nil
		return nil
	}
	queries := make([]Query, len(idx))
	for n, i := range idx {
		st := streams[i]
		lim := limit(st)
		tr.Reads[i].Limits = append(tr.Reads[i].Limits, lim)
		tr.Reads[i].Calls++
		queries[n] = Query{Index: st.part.Index, HashValue: st.part.Key, Forward: pg.backward, Limit: lim, StartKey: st.next}
		if pg.from != "" {
			queries[n].SortValue, queries[n].SortOp = pg.from, SortLess
			if pg.backward {
				queries[n].SortOp = SortGreater
			}
		}
	}
	var err error
	if len(idx) == 1 || s.local {
		for n, i := range idx {
			if err = read(ctx, i, queries[n]); err != nil {
				break
			}
		}
	} else {
		g, gctx := errgroup.WithContext(ctx)
		for n, i := range idx {
			g.Go(func() error { return read(gctx, i, queries[n]) })
		}
		err = g.Wait()
	}
	for _, i := range idx {
		tr.Reads[i].Items += len(streams[i].buf) // the buffers were empty before
	}
	return err
}

// recoverTo turns a panic in a goroutine of ours into an EINTERNAL error (a
// panic there would otherwise end the process: nothing above it recovers).
func recoverTo(err *error) {
	if p := recover(); p != nil {
		*err = Wrap(EINTERNAL, fmt.Errorf("panic: %v\n%s", p, debug.Stack()), "internal error")
	}
}
