package store

import (
	"context"
	"slices"

	"github.com/acme/comments-gateway/store/table"
)

// Page size limits.
const (
	DefaultPageSize = 20
	MaxPageSize     = 100
)

// PageArgs are a Relay connection's arguments, and the order it lists in.
type PageArgs struct {
	// Order is the list's order (the zero value: OrderNewest); a cursor
	// must have been issued in it.
	Order  Order
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
	Reads     []partitionReads // aligned with Plan.Partitions
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

// partitionReads counts the reads of one partition.
type partitionReads struct {
	Calls  int
	Items  int
	Limits []int
}

// Page is the validated form of PageArgs (see ParsePage).
type Page struct {
	order    Order
	size     int
	backward bool
	asc      bool // the partitions are read in ascending sort-key order
	// from and stop are the exclusive start ("" from the first or last
	// comment) and stop ("" none) of the page, as sort keys of the order's
	// partitions: GSISK, or HSK in OrderMostHelpful. In the rating orders
	// they are GSISKs within the ratings fromRating and stopRating.
	from, stop             string
	fromRating, stopRating int
	pos                    *Position // the after cursor's position, on a forward page
}

// ParsePage validates a connection's arguments without reading anything:
// first or last (0–100, 20 by default), and the cursors, which must belong
// to the order.
func ParsePage(a PageArgs) (Page, error) {
	p := Page{order: a.Order}
	if a.Order >= numOrders {
		return p, Invalid("orderBy", "unknown order %d", a.Order)
	}
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
	after, err := pageCursor("after", a.After, a.Order)
	if err != nil {
		return p, err
	}
	before, err := pageCursor("before", a.Before, a.Order)
	if err != nil {
		return p, err
	}
	p.asc = a.Order.ascending(p.backward)
	start, end := after, before
	if p.backward {
		start, end = before, after
	} else {
		p.pos = after.Pos
	}
	if a.Order.byRating() {
		p.from, p.fromRating, p.stop, p.stopRating = start.SortKey, start.Rating, end.SortKey, end.Rating
	} else {
		p.from, p.stop = keyOf(start), keyOf(end)
	}
	return p, nil
}

// keyOf is cursor c's sort key ("" for no cursor).
func keyOf(c Cursor) string {
	if c.SortKey == "" {
		return ""
	}
	return c.key()
}

// pageCursor decodes the cursor c (nil: none) passed as argument arg of a
// list in order o.
func pageCursor(arg string, c *string, o Order) (Cursor, error) {
	if c == nil {
		return Cursor{}, nil
	}
	cur, err := ParseCursor(*c)
	if err != nil {
		return Cursor{}, cursorError(arg, *c)
	}
	if cur.Order != o {
		return Cursor{}, Invalid(arg, "this cursor belongs to orderBy: %s, not %s: pass it with orderBy: %s, or omit %s to start the %s list", cur.Order, o, cur.Order, arg, o)
	}
	return cur, nil
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
// of several ratings does (statsNeeded), unless the after cursor carries a
// position for this filter, whose remaining counts size the reads instead.
func (pg Page) needsStats(pid string, f Filter) bool {
	return statsNeeded(f) && pg.position(pid, f) == nil
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
// resolver passes its request's batched loader of ReadStats, so the stats
// read is shared with the request's other stats and is the Store's hint
// from then on. It is called at most once, possibly in
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
// for its stats, which plan it. A nil stats reads the page without stats
// (TotalCount -1; a merge then sizes its reads with equal shares).
func (s *Store) ListComments(ctx context.Context, q CommentsQuery, stats StatsFunc) (*Connection, error) {
	pg, err := ParsePage(q.Page)
	if err != nil {
		return nil, err
	}
	if err := ValidateID("product id", q.ProductID); err != nil {
		return nil, err
	}
	if pg.order == OrderMostHelpful {
		// A table not yet upgraded to the helpful twins would answer
		// without the comments they lack: refused instead (EUNAVAILABLE).
		if err := s.HelpfulReady(ctx); err != nil {
			return nil, err
		}
	}
	if q.Filter.selectsNone() {
		// No rating selected: an empty page whose total, 0, is known
		// without reading the stats (the trace's total stays -1).
		conn, err := s.listPage(ctx, q.ProductID, q.Filter, pg, nil)
		if err == nil {
			conn.TotalCount = 0
		}
		return conn, err
	}
	if pg.order.byRating() {
		if !q.Total {
			stats = nil
		}
		return s.listSequence(ctx, q.ProductID, q.Filter, pg, stats)
	}
	if stats == nil || !q.Total && !pg.needsStats(q.ProductID, q.Filter) {
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
	rem, version, verified := pg.counts(pid, f, st)
	knownMore := verified && pg.stop == "" && sum(rem) > int64(pg.size)
	need := pg.size + 1 // the item past the page shows that more follow
	if knownMore {
		need = pg.size
	}
	var plan Plan
	if st == nil && rem != nil && statsNeeded(f) {
		// A later page of a merge without stats: sized by the cursor's
		// counts, every selected rating read (no count here is this
		// request's, so none is trusted to be zero).
		plan = Plan{Strategy: StrategyMerge, Partitions: mergePartitions(pid, f.Language, f.Ratings, rem, need, s.sizing)}
	} else {
		plan = planQuery(pid, f, st, need, s.sizing)
	}
	plan = orderPlan(plan, pg.order)
	plan.Total = matchTotal(st, f)
	tr := &Trace{Plan: plan, Reads: make([]partitionReads, len(plan.Partitions)), Positioned: rem != nil, KnownMore: knownMore}
	conn := &Connection{TotalCount: plan.Total, Trace: tr}
	if plan.Strategy == StrategyEmpty {
		return conn, nil
	}
	arena := new(table.RecordArena) // the page's records, until they are its comments
	defer arena.Free()
	items, more, err := s.merge(ctx, plan, pg, tr, arena, func() bool { return knownMore })
	if err != nil {
		return nil, err
	}
	return conn, fillConnection(conn, pid, f, pg, items, more, rem, version)
}

// counts returns the comments after page pg's start, per
// positionRatings(f) (nil: unknown), the version of the stats they were
// counted under, and whether they are exact (counted under st, the stats
// read with this page, nil when none were): on a first page from st, on a
// later page from the after cursor's position.
func (pg Page) counts(pid string, f Filter, st *Stats) (rem []int64, version int64, verified bool) {
	pos := pg.position(pid, f)
	switch {
	case pg.backward:
	case pg.from == "" && st != nil:
		return statsRemaining(st, f), st.Version, true
	case pos != nil:
		// A vote moves a comment across a MOST_HELPFUL cursor without
		// changing the stats: there the counts only size the reads.
		return pos.Remaining, pos.Version, st != nil && st.Version == pos.Version && pg.order != OrderMostHelpful
	}
	return nil, 0, false
}

// fillConnection sets conn's edges, with the cursors of a page whose
// remaining counts at its start are rem (nil: unknown) under stats version
// version, and its "more" flag.
func fillConnection(conn *Connection, pid string, f Filter, pg Page, items []table.Record, more bool, rem []int64, version int64) error {
	tr := conn.Trace
	var next *Position
	if rem != nil {
		next = &Position{Filter: FilterHash(pid, f), Version: version, Remaining: slices.Clone(rem)}
	}
	ratings := positionRatings(f)
	conn.Edges = make([]Edge, 0, len(items))
	comments := make([]Comment, len(items)) // one allocation for the page
	for n, it := range items {
		c := &comments[n]
		if err := commentFrom(it, c); err != nil {
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
		conn.Edges = append(conn.Edges, Edge{Cursor: pg.cursor(it, c, next), Comment: c})
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

// cursor returns the cursor of comment c, read as record it, on page pg,
// with position next (nil: none).
func (pg Page) cursor(it table.Record, c *Comment, next *Position) string {
	cur := Cursor{Order: pg.order, SortKey: it.S(colGSISK), Pos: next}
	switch {
	case pg.order.byRating():
		cur.Rating = c.Rating
	case pg.order == OrderMostHelpful:
		// The HSK read is the position (the helpful attribute may be newer
		// or not projected, and a helpful index holds no GSISK).
		cur.Helpful, cur.SortKey = splitHSK(it.S(colHSK))
	}
	return cur.Encode()
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
