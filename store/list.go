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
	Rounds    int // query rounds: reads made one after another (a round's queries run in parallel)
	// Positioned: the page knew the comments remaining after its start
	// (from the stats on a first page, else from its after cursor).
	Positioned bool
	// KnownMore: those counts were exact and showed that more follow, so no
	// item past the page was read.
	KnownMore bool
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
	from     string    // exclusive start GSISK ("" from the newest/oldest)
	stop     string    // exclusive stop GSISK ("" none)
	pos      *Position // the after cursor's position, on a forward page
}

// ParsePage validates a connection's arguments without reading anything:
// first or last (0–100, 20 by default), and the cursors.
func ParsePage(a PageArgs) (Page, error) {
	var p Page
	if a.First != nil && a.Last != nil {
		return p, Invalid("last", "pass either first or last, not both")
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
		arg := "first"
		if a.Last != nil {
			arg = "last"
		}
		return p, OutOfRange(arg, 0, MaxPageSize, p.size)
	}
	var after, before Cursor
	var err error
	if a.After != nil {
		if after, err = ParseCursor(*a.After); err != nil {
			return p, cursorError("after", *a.After)
		}
	}
	if a.Before != nil {
		if before, err = ParseCursor(*a.Before); err != nil {
			return p, cursorError("before", *a.Before)
		}
	}
	if p.backward {
		p.from, p.stop = before.SortKey, after.SortKey
	} else {
		p.from, p.stop, p.pos = after.SortKey, before.SortKey, after.Pos
	}
	return p, nil
}

// cursorError says that c, given as argument arg, is not a cursor this API
// issued, and what to pass instead.
func cursorError(arg, c string) *Error {
	if c == "" {
		return Invalid(arg, "%s must not be empty: pass `endCursor`/`startCursor` unchanged, or omit %s", arg, arg)
	}
	shown := c
	if r := []rune(c); len(r) > 40 {
		shown = string(r[:40]) + "…"
	}
	return Invalid(arg, "`%s` is not a cursor from this API: pass `endCursor`/`startCursor` unchanged", shown)
}

// position returns the after cursor's position if it was issued for
// product pid and filter f, nil otherwise.
func (pg Page) position(pid string, f Filter) *Position {
	if pg.pos == nil || pg.backward || pg.pos.Filter != FilterHash(pid, f) || len(pg.pos.Remaining) != len(positionRatings(f)) {
		return nil
	}
	return pg.pos
}

// needsStats reports whether reading page pg of product pid's comments
// matching f needs the stats of (pid, f.Language), totalCount aside: a merge
// of several ratings does (StatsNeeded), unless the after cursor carries a
// position for this filter, whose remaining counts size the reads instead.
func (pg Page) needsStats(pid string, f Filter) bool {
	return StatsNeeded(f) && pg.position(pid, f) == nil
}

// CommentsQuery is one comments connection of one product.
type CommentsQuery struct {
	ProductID string
	// Filter must hold a canonical language and normalised ratings (see
	// NormalizeRatings).
	Filter Filter
	Page   PageArgs
	// Total asks for the connection's TotalCount (it is -1 otherwise, unless
	// the page needed the stats anyway).
	Total bool
}

// StatsFunc returns the stats of the product and language being listed. A
// resolver passes its request's batched loader, so the stats read is shared
// with the request's other stats. It is called at most once, possibly in
// another goroutine while the page's reads run.
type StatsFunc func() (*Stats, error)

// ListComments returns one page of comments, newest first: it validates
// the arguments, decides whether the stats are needed (for totalCount, or to
// size a merge of several ratings), and reads the page in the same round as
// the stats: its queries are sized from what is known without them (the
// after cursor's counts, or the stats this Store last saw for the product
// and language, a hint), and corrected by a refill only when the stats
// disagree. The page never depends on the hint: a dry partition is always
// read again, and a partition the hint counts as empty is read all the same.
// Only a merge of several ratings with neither cursor counts nor a hint waits
// for its stats, which plan it.
func (s *Store) ListComments(ctx context.Context, q CommentsQuery, stats StatsFunc) (*Connection, error) {
	pg, err := ParsePage(q.Page)
	if err != nil {
		return nil, err
	}
	if err := ValidateID("product id", q.ProductID); err != nil {
		return nil, err
	}
	if !q.Total && !pg.needsStats(q.ProductID, q.Filter) {
		return s.listPage(ctx, q.ProductID, q.Filter, pg, nil)
	}
	return s.listPageLater(ctx, q.ProductID, q.Filter, pg, stats)
}

// listPage reads page pg given the stats st (nil: not wanted).
//
// A forward page knows, when it can, how many matching comments remain after
// its start, per selected rating: on the first page from the stats, on a
// later page from the after cursor's Position. Those counts size a merge's
// reads (so a later page of a merge needs no stats item), and every cursor of
// the page carries them on. When the stats read with the page have the
// version the counts were derived under (or this is the first page), they
// are exact, and a page they show is followed by more is read without the
// item past it. The counts never end a page or a partition early: "no more"
// is always shown by a read, which costs no item when it is true.
func (s *Store) listPage(ctx context.Context, pid string, f Filter, pg Page, st *Stats) (*Connection, error) {
	if err := ValidateID("product id", pid); err != nil {
		return nil, err
	}
	var rem []int64   // comments after the page's start, per positionRatings(f); nil unknown
	var version int64 // of the stats rem was counted under
	verified := false // rem is exact: counted under the stats read with this page
	pos := pg.position(pid, f)
	switch {
	case pg.backward:
	case pg.from == "" && st != nil:
		rem, version, verified = statsRemaining(st, f), st.Version, true
	case pos != nil:
		rem, version = pos.Remaining, pos.Version
		verified = st != nil && st.Version == pos.Version
	}
	knownMore := verified && pg.stop == "" && sum(rem) > int64(pg.size)
	need := pg.size + 1 // the item past the page shows that more follow
	if knownMore {
		need = pg.size
	}
	var plan Plan
	if st == nil && rem != nil && StatsNeeded(f) {
		// A later page of a merge without stats: sized by the cursor's
		// counts, every selected rating read (no count here is this
		// request's, so none is trusted to be zero).
		plan = Plan{Strategy: StrategyMerge, Partitions: mergePartitions(pid, f.Language, f.Ratings, rem, need, s.sizing)}
	} else {
		plan = planQuery(pid, f, st, need, s.sizing)
	}
	plan.Total = matchTotal(st, f)
	tr := &Trace{Plan: plan, Reads: make([]PartitionReads, len(plan.Partitions)), Positioned: rem != nil, KnownMore: knownMore}
	conn := &Connection{TotalCount: plan.Total, Trace: tr}
	if plan.Strategy == StrategyEmpty {
		return conn, nil
	}
	items, more, err := s.merge(ctx, plan, pg, tr, func() bool { return knownMore })
	if err != nil {
		return nil, err
	}
	return conn, fillConnection(conn, pid, f, pg, items, more, rem, version)
}

// fillConnection sets conn's edges, with the cursors of a page whose
// remaining counts at its start are rem (nil: unknown) under stats version
// version, and its "more" flag.
func fillConnection(conn *Connection, pid string, f Filter, pg Page, items []Item, more bool, rem []int64, version int64) error {
	tr := conn.Trace
	var next *Position
	if rem != nil {
		next = &Position{Filter: FilterHash(pid, f), Version: version, Remaining: slices.Clone(rem)}
	}
	ratings := positionRatings(f)
	conn.Edges = make([]Edge, 0, len(items))
	for _, it := range items {
		c, err := CommentFromItem(it)
		if err != nil {
			return err
		}
		if next != nil {
			i := 0
			if ratings[0] != 0 {
				i = slices.Index(ratings, c.Rating)
			}
			if i >= 0 && next.Remaining[i] > 0 {
				next.Remaining[i]--
			}
		}
		conn.Edges = append(conn.Edges, Edge{Cursor: EncodePositionCursor(it.S(AttrGSISK), next), Comment: c})
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
	return nil
}

// statsRemaining returns the counts of a Position of filter f at the start
// of the list, from its stats.
func statsRemaining(st *Stats, f Filter) []int64 {
	rs := positionRatings(f)
	out := make([]int64, len(rs))
	for i, r := range rs {
		if r == 0 {
			out[i] = st.Total
		} else {
			out[i] = st.Count(r)
		}
	}
	return out
}

// matchTotal returns the number of comments matching f, or -1 without stats.
func matchTotal(st *Stats, f Filter) int64 {
	if st == nil {
		return -1
	}
	if f.Ratings == nil {
		return st.Total
	}
	var n int64
	for _, r := range f.Ratings {
		n += st.Count(r)
	}
	return n
}

func sum(ns []int64) int64 {
	var t int64
	for _, n := range ns {
		t += n
	}
	return t
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
// pg.size items and reporting whether more follow. A partition whose buffer
// runs dry while it may hold more is read again from its last key (refill),
// so the result is exact for any first-read limit.
//
// The page is exact once every partition that may hold more has shown an
// item past it; such an item also shows that more follow. Only when none is
// buffered does showing "more" take a read: none when knownMore (the counts
// say so), else a read of one item (which costs nothing on an exhausted
// partition).
func (s *Store) merge(ctx context.Context, plan Plan, pg Page, tr *Trace, knownMore func() bool) ([]Item, bool, error) {
	streams := make([]*stream, len(plan.Partitions))
	for i, p := range plan.Partitions {
		streams[i] = &stream{part: p}
	}
	// First round: every partition in parallel, with its planned limit.
	first := make([]int, len(streams))
	for i := range streams {
		first[i] = i
	}
	if err := s.fill(ctx, streams, first, pg, tr, func(st *stream) int { return st.part.Limit }); err != nil {
		return nil, false, err
	}
	var counted int64 // the partitions' counts, for sizing refills
	for _, p := range plan.Partitions {
		counted += p.Count
	}
	out := make([]Item, 0, pg.size)
	// next returns the stream holding the next item of the page, refilling
	// dry partitions first (they may hold it); -1 when all are exhausted.
	// With anyItem, a buffered item of any stream will do (it shows that more
	// follow), and dry partitions are refilled only when none is buffered.
	next := func(anyItem bool) (int, error) {
		for {
			for _, st := range streams {
				st.trim(pg, plan.Keep)
			}
			best := -1
			var dry []int
			for i, st := range streams {
				switch {
				case len(st.buf) > 0:
					if best < 0 || before(st.buf[0].S(AttrGSISK), streams[best].buf[0].S(AttrGSISK), pg.backward) {
						best = i
					}
				case !st.done:
					dry = append(dry, i)
				}
			}
			if len(dry) == 0 || (anyItem && best >= 0) {
				return best, nil
			}
			if anyItem && knownMore() {
				return len(streams), nil // more follow; no read needed
			}
			remaining := max(pg.size-len(out), 1)
			share := func(st *stream) int {
				return refillLimit(remaining, st.part.Count, counted, len(streams), s.sizing.LeanRefill)
			}
			if !anyItem && !s.local {
				dry = append(dry, nearlyDry(streams, share)...)
			}
			err := s.fill(ctx, streams, dry, pg, tr, func(st *stream) int {
				if anyItem {
					return 1
				}
				return max(share(st)-len(st.buf), 1)
			})
			if err != nil {
				return -1, err
			}
		}
	}
	for len(out) < pg.size {
		best, err := next(false)
		if err != nil {
			return nil, false, err
		}
		if best < 0 {
			return out, false, nil // every partition exhausted
		}
		out = append(out, streams[best].buf[0])
		streams[best].buf = streams[best].buf[1:]
	}
	best, err := next(true)
	if err != nil {
		return nil, false, err
	}
	return out, best >= 0, nil
}

// nearlyDry returns the streams that may hold more and buffer fewer items
// than their share of what the page still needs: on a remote store a
// refill round reads them too, so that they do not each cost a round of
// their own when they run dry in turn (a round is a network round trip;
// an item past the page costs almost nothing in a Query billed by size).
func nearlyDry(streams []*stream, share func(*stream) int) []int {
	var out []int
	for i, st := range streams {
		if !st.done && len(st.buf) > 0 && len(st.buf) < share(st) {
			out = append(out, i)
		}
	}
	return out
}

// trim drops the buffered items that are not on the page: those of ratings
// outside keep (when not nil), and everything from the stop bound on (which
// ends the partition).
func (st *stream) trim(pg Page, keep []int) {
	for len(st.buf) > 0 {
		it := st.buf[0]
		if pg.stop != "" && !before(it.S(AttrGSISK), pg.stop, pg.backward) {
			st.done, st.buf = true, nil
			return
		}
		if keep != nil && !slices.Contains(keep, int(it.N(AttrRating))) {
			st.buf = st.buf[1:]
			continue
		}
		return
	}
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
// needed, rounded up (lean: down, at least 1), at most remaining.
func refillLimit(remaining int, count, total int64, k int, lean bool) int {
	l := remaining
	if k > 1 && total > 0 {
		share := float64(remaining) * float64(count) / float64(total)
		if lean {
			l = int(math.Floor(share))
		} else {
			l = int(math.Ceil(share))
		}
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
			return tableError(err)
		}
		st := streams[i]
		st.buf = append(st.buf, res.Items...)
		st.next = res.LastKey
		st.done = res.LastKey == nil
		return nil
	}
	tr.Rounds++
	had := make([]int, len(idx)) // items buffered before this round
	for n, i := range idx {
		had[n] = len(streams[i].buf)
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
	for n, i := range idx {
		tr.Reads[i].Items += len(streams[i].buf) - had[n]
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
