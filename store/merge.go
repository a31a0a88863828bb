package store

import (
	"context"
	"fmt"
	"math"
	"runtime/debug"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/acme/comments-gateway/store/table"
)

// The k-way merge engine: a page of comments read from one or more index
// partitions (a plan's), merged by sort key (GSISK, or HSK in
// OrderMostHelpful: Page.sortKey) in the page's reading direction
// (Page.asc), exact whatever the first reads' limits (see merge).

// stream is one partition being merged: a buffer of read items, and the key
// to continue from while the partition may hold more.
type stream struct {
	part  Partition
	arena *table.RecordArena // where its reads' records are lent from
	buf   []table.Record
	next  table.Item // StartKey of the next read; nil once exhausted or covered
	done  bool       // exhausted (or past the stop bound)
	// covered is set when a read bounded by until ended at its bound: the
	// partition holds nothing more before that sort key (in page order),
	// and its next read starts past it.
	covered string
	until   string // the bound of the next read (finish), "" for none
}

// merge reads the plan's partitions and k-way merges them by sort key, taking
// pg.size items and reporting whether more follow. A partition whose buffer
// runs dry while it may hold more is read again from its last key (refill),
// so the result is exact for any first-read limit.
//
// The page is exact once every partition that may hold more has shown an
// item past it; such an item also shows that more follow. Only when none is
// buffered does showing "more" take a read: none when knownMore (the counts
// say so), else a read of one item (which costs nothing on an exhausted
// partition). The records are lent by arena: the caller reads them until
// it frees it.
func (s *Store) merge(ctx context.Context, plan Plan, pg Page, tr *Trace, arena *table.RecordArena, knownMore func() bool) ([]table.Record, bool, error) {
	m := &merger{s: s, plan: plan, pg: pg, tr: tr, streams: make([]*stream, len(plan.Partitions)), out: make([]table.Record, 0, pg.size)}
	all := make([]int, len(plan.Partitions))
	for i, p := range plan.Partitions {
		m.streams[i] = &stream{part: p, arena: arena}
		m.counted += p.Count // the partitions' counts, for sizing refills
		all[i] = i
	}
	// First round: every partition in parallel, with its planned limit,
	// or one merged read.
	if s.sizing.Merged && s.merges != nil && len(all) > 1 && s.merges.Merges(plan.Partitions[0].Index) {
		if err := s.mergedRound(ctx, m.streams, pg, tr); err != nil {
			return nil, false, err
		}
	} else if err := s.fill(ctx, m.streams, all, pg, tr, func(st *stream) int { return st.part.Limit }); err != nil {
		return nil, false, err
	}
	for len(m.out) < pg.size {
		best, err := m.next(ctx)
		if err != nil {
			return nil, false, err
		}
		if best < 0 {
			return m.out, false, nil // every partition exhausted
		}
		m.out = append(m.out, m.streams[best].buf[0])
		m.streams[best].buf = m.streams[best].buf[1:]
	}
	more, err := m.more(ctx, knownMore)
	return m.out, more, err
}

// merger is the state of one merge: the partitions' streams and the page
// taken so far.
type merger struct {
	s       *Store
	plan    Plan
	pg      Page
	tr      *Trace
	streams []*stream
	counted int64 // the partitions' counts
	out     []table.Record
}

// heads trims the buffers and returns the stream whose first buffered item
// comes first on the page (-1: none buffered) and the streams that are dry
// (nothing buffered) but may hold more.
func (m *merger) heads() (best int, dry []int) {
	best = -1
	for i, st := range m.streams {
		st.trim(m.pg, m.plan.Keep)
		if len(st.buf) > 0 && (best < 0 || before(m.pg.sortKey(st.buf[0]), m.pg.sortKey(m.streams[best].buf[0]), m.pg.asc)) {
			best = i
		}
	}
	for i, st := range m.streams {
		if len(st.buf) > 0 || st.done {
			continue
		}
		// A covered stream holds nothing before its bound: it is dry only
		// once the page has reached the bound.
		if st.covered != "" && best >= 0 && before(m.pg.sortKey(m.streams[best].buf[0]), st.covered, m.pg.asc) {
			continue
		}
		dry = append(dry, i)
	}
	return best, dry
}

// next returns the stream holding the next item of the page, -1 when all
// are exhausted. Dry partitions may hold it, so they are refilled first,
// each with its share of the items the page still needs (on a remote
// table, together with the partitions about to run dry: nearlyDry).
func (m *merger) next(ctx context.Context) (int, error) {
	for {
		best, dry := m.heads()
		if len(dry) == 0 {
			return best, nil
		}
		remaining := max(m.pg.size-len(m.out), 1)
		if m.s.sizing.Finish {
			if err := m.finish(ctx, remaining); err != nil {
				return -1, err
			}
			continue
		}
		share := func(st *stream) int {
			return refillLimit(remaining, st.part.Count, m.counted, len(m.streams), m.s.sizing.LeanRefill)
		}
		if !m.s.local {
			dry = append(dry, nearlyDry(m.streams, share)...)
		}
		err := m.s.fill(ctx, m.streams, dry, m.pg, m.tr, func(st *stream) int { return max(share(st)-len(st.buf), 1) })
		if err != nil {
			return -1, err
		}
	}
}

// finish is the refill of a Finish sizing, one round after which the page
// is decided. The bound is the buffered item that comes remaining+1-th in
// page order: the page ends before it whatever the partitions still hold.
// Every stream that may hold items before the bound and has not read up to
// it is read up to it (a Query with the bound as its sort condition, so
// nothing past it is read), at most the remaining items and one more. Then
// each stream is exhausted, or covered up to the bound, or holds more
// items before it than the page still takes. With fewer items buffered
// than that, there is no bound, and every stream that may hold more reads
// the remaining items and one more.
func (m *merger) finish(ctx context.Context, remaining int) error {
	bound := m.bound(remaining)
	var short []int
	for i, st := range m.streams {
		switch {
		case st.done:
			continue
		case bound == "":
			if len(st.buf) > remaining {
				continue
			}
		case st.covered != "" && !before(st.covered, bound, m.pg.asc):
			continue // covered up to the bound or past it
		case len(st.buf) > 0 && !before(m.pg.sortKey(st.buf[len(st.buf)-1]), bound, m.pg.asc):
			continue // has read up to the bound
		}
		if bound != "" && st.next != nil {
			st.until = bound
		}
		short = append(short, i)
	}
	return m.s.fill(ctx, m.streams, short, m.pg, m.tr, func(st *stream) int { return max(remaining+1-len(st.buf), 1) })
}

// bound returns the sort key of the buffered item that comes n+1-th in
// page order (of those the page keeps), "" when fewer are buffered.
func (m *merger) bound(n int) string {
	var keys []string
	for _, st := range m.streams {
		for _, it := range st.buf {
			if m.plan.Keep == nil || slices.Contains(m.plan.Keep, int(it.N(colRating))) {
				keys = append(keys, m.pg.sortKey(it))
			}
		}
	}
	if len(keys) <= n {
		return ""
	}
	slices.SortFunc(keys, func(a, b string) int {
		if before(a, b, m.pg.asc) {
			return -1
		}
		return 1
	})
	return keys[n]
}

// more reports whether more items follow the page: a buffered item of any
// stream shows it; else the counts may (knownMore); else the dry
// partitions are read for one item each.
func (m *merger) more(ctx context.Context, knownMore func() bool) (bool, error) {
	for {
		best, dry := m.heads()
		switch {
		case best >= 0:
			return true, nil
		case len(dry) == 0:
			return false, nil
		case knownMore():
			return true, nil // no read needed
		}
		if err := m.s.fill(ctx, m.streams, dry, m.pg, m.tr, func(*stream) int { return 1 }); err != nil {
			return false, err
		}
	}
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

// query is the stream's next read of at most limit items: from its last
// key (StartKey), else past the bound it is covered to, else past the
// page's cursor; on a finish refill (until), up to that bound and no
// further. A Query has one sort condition: a read with a StartKey needs no
// other start, so it can take the bound.
func (st *stream) query(pg Page, limit int) table.Query {
	past, upTo := table.SortLess, table.SortGreater // a descending read
	if pg.asc {
		past, upTo = table.SortGreater, table.SortLess
	}
	q := table.Query{Index: st.part.Index, HashValue: st.part.Key, Forward: pg.asc, Limit: limit, StartKey: st.next, Columns: commentColumns, Arena: st.arena}
	switch {
	case st.until != "" && st.next != nil:
		q.SortValue, q.SortOp = st.until, upTo
	case st.next == nil && st.covered != "":
		q.SortValue, q.SortOp = st.covered, past
	case pg.from != "":
		q.SortValue, q.SortOp = pg.from, past
	}
	return q
}

// trim drops the buffered items that are not on the page: those of ratings
// outside keep (when not nil), and everything from the stop bound on (which
// ends the partition).
func (st *stream) trim(pg Page, keep []int) {
	for len(st.buf) > 0 {
		it := st.buf[0]
		if pg.stop != "" && !before(pg.sortKey(it), pg.stop, pg.asc) {
			st.done, st.buf = true, nil
			return
		}
		if keep != nil && !slices.Contains(keep, int(it.N(colRating))) {
			st.buf = st.buf[1:]
			continue
		}
		return
	}
}

// before reports whether sort key a comes before b in the page's reading
// order: ascending (asc) or descending.
func before(a, b string, asc bool) bool {
	if asc {
		return a < b
	}
	return a > b
}

// sortKey is comment record r's position in the page's partitions: its
// GSISK, or its HSK in OrderMostHelpful.
func (pg Page) sortKey(r table.Record) string { return r.S(pg.order.sortColumn()) }

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

// fill reads the streams at idx, each with limit(stream), in one round
// (readRound).
func (s *Store) fill(ctx context.Context, streams []*stream, idx []int, pg Page, tr *Trace, limit func(*stream) int) error {
	tr.Rounds++
	had := make([]int, len(idx)) // items buffered before this round
	queries := make([]table.Query, len(idx))
	for n, i := range idx {
		st := streams[i]
		had[n] = len(st.buf)
		lim := limit(st)
		tr.Reads[i].Limits = append(tr.Reads[i].Limits, lim)
		tr.Reads[i].Calls++
		queries[n] = st.query(pg, lim)
	}
	err := s.readRound(ctx, queries, func(n int, res table.QueryResult) { streams[idx[n]].take(res) })
	for n, i := range idx {
		tr.Reads[i].Items += len(streams[i].buf) - had[n]
	}
	return err
}

// mergedRound is a first round read by the table's merge
// (table.MergeReader): the page and one item more, in the streams of
// their partitions. Each stream then holds nothing more before the
// merge's bound (covered), or is exhausted.
func (s *Store) mergedRound(ctx context.Context, streams []*stream, pg Page, tr *Trace) error {
	tr.Rounds++
	limit := pg.size + 1
	queries := make([]table.Query, len(streams))
	for i, st := range streams {
		queries[i] = st.query(pg, limit)
	}
	res, bound, err := s.merges.QueryMerged(ctx, queries, limit)
	for i, st := range streams {
		tr.Reads[i].Limits = append(tr.Reads[i].Limits, limit)
		tr.Reads[i].Calls++
		if i < len(res) {
			tr.Reads[i].Items += res[i].Len()
			st.buf = records(res[i]) // the first round: nothing buffered before
		}
		st.done, st.covered = bound == "", bound
	}
	return tableError(err)
}

// readRound runs queries, passing each result to take(n, result): at once
// on a RoundReader, else as each runs them. take is called once for each n,
// from any goroutine.
func (s *Store) readRound(ctx context.Context, queries []table.Query, take func(n int, res table.QueryResult)) error {
	if s.rounds != nil && len(queries) > 1 {
		res, err := s.rounds.QueryRound(ctx, queries)
		if err != nil {
			return tableError(err)
		}
		for n := range queries {
			take(n, res[n])
		}
		return nil
	}
	return s.each(ctx, len(queries), func(ctx context.Context, n int) error {
		res, err := s.table.Query(ctx, queries[n])
		if err != nil {
			return tableError(err)
		}
		take(n, res)
		return nil
	})
}

// maxParallelReads bounds the calls each runs at once: the 16 Queries of
// TopProducts' round, while a batch of up to 100 stats ids (a Query each)
// waits its turn rather than opening 100 connections.
const maxParallelReads = 2 * LeaderShards

// each runs fn(ctx, i) for i in [0, n): in parallel on a remote table (at
// most maxParallelReads at once), one after another on a local one (where
// a read takes microseconds and a goroutine would cost more than it saves)
// or when n is 1.
func (s *Store) each(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	if s.local || n == 1 {
		for i := range n {
			if err := fn(ctx, i); err != nil {
				return err
			}
		}
		return nil
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(maxParallelReads)
	for i := range n {
		g.Go(func() (err error) {
			defer recoverTo(&err)
			return fn(gctx, i)
		})
	}
	return g.Wait()
}

// take appends a read's items to the stream and notes where it stands: more
// to read from next, covered up to its bound, or done.
func (st *stream) take(res table.QueryResult) {
	st.buf = append(st.buf, records(res)...)
	st.next = res.LastKey
	switch {
	case res.LastKey != nil:
	case st.until != "":
		st.covered = st.until // nothing more before the bound
	default:
		st.done = true
	}
	st.until = ""
}

// recoverTo turns a panic in a goroutine of ours into an EINTERNAL error (a
// panic there would otherwise end the process: nothing above it recovers).
func recoverTo(err *error) {
	if p := recover(); p != nil {
		*err = Wrap(EINTERNAL, fmt.Errorf("panic: %v\n%s", p, debug.Stack()), "internal error")
	}
}
