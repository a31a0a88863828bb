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
	if q.Filter.selectsNone() {
		// No rating selected: an empty page whose total, 0, is known
		// without reading the stats (the trace's total stays -1).
		conn, err := s.listPage(ctx, q.ProductID, q.Filter, pg, nil)
		if err == nil {
			conn.TotalCount = 0
		}
		return conn, err
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
	plan.Total = matchTotal(st, f)
	tr := &Trace{Plan: plan, Reads: make([]partitionReads, len(plan.Partitions)), Positioned: rem != nil, KnownMore: knownMore}
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
		return pos.Remaining, pos.Version, st != nil && st.Version == pos.Version
	}
	return nil, 0, false
}

// fillConnection sets conn's edges, with the cursors of a page whose
// remaining counts at its start are rem (nil: unknown) under stats version
// version, and its "more" flag.
func fillConnection(conn *Connection, pid string, f Filter, pg Page, items []table.Item, more bool, rem []int64, version int64) error {
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
		conn.Edges = append(conn.Edges, Edge{Cursor: EncodePositionCursor(it.S(table.AttrGSISK), next), Comment: c})
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
