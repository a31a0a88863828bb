package bolt

import (
	"bytes"
	"cmp"
	"strings"

	"github.com/acme/comments-gateway/store/table"
)

// A helpful twin (table.HelpfulIndexes) is sorted by HSK: a comment's
// helpful count in 10 digits, "#" and its GSISK. Most comments have no
// helpful vote: their HSK is zeroHSK + GSISK, and their twin entries would
// repeat, in the same order, their entries in the twin's base index (the
// public index of the same partitions: of table.Indexes, the one with the
// twin's hash attribute). So the bucket of a twin holds only the other
// entries (format 4), and a query on a twin reads what DynamoDB's index
// holds: the stored entries merged with the zero tail, the base index's
// entries of the same partition whose item has the HSK zeroHSK + its
// GSISK, each read as the twin projects it. Its conditions and start key
// on HSK are those of the whole index; skipping a base entry of a voted
// comment needs its item, which a query reads anyway.
const zeroHSK = "0000000000#"

// isZeroHSK reports whether hsk is the HSK of a comment with GSISK gsisk
// and no helpful vote: an entry its twins leave to the base index.
func isZeroHSK(hsk, gsisk string) bool {
	return len(hsk) == len(zeroHSK)+len(gsisk) && strings.HasPrefix(hsk, zeroHSK) && hsk[len(zeroHSK):] == gsisk
}

// zeroTail reports whether item it, whose sort value in a twin is hsk, is
// one of the zero tail rather than stored in the twin.
func zeroTail(hsk string, it table.Item) bool {
	g, ok := it[table.AttrGSISK].Str()
	return ok && isZeroHSK(hsk, g)
}

// twinBase returns the base index of twin d among indexes, or nil when d
// is not a twin.
func twinBase(d table.IndexDef, indexes []*index) *index {
	if d.Sort != table.AttrHSK {
		return nil
	}
	for _, ix := range indexes {
		if ix.def.Hash == d.Hash && ix.def.Sort == table.AttrGSISK && !ix.def.ProjectAll {
			return ix
		}
	}
	return nil
}

// zeroSide tells where sort value s falls against the HSKs of the zero tail
// (zeroHSK followed by a GSISK, never empty): -1 before all of them, 0 when
// it is one of that form, 1 after all of them.
func zeroSide(s string) int {
	switch {
	case strings.HasPrefix(s, zeroHSK) && len(s) > len(zeroHSK):
		return 0
	case s <= zeroHSK:
		return -1
	}
	return 1
}

// twinPlan is the part of a twin query that reads the zero tail: the query
// of the base index whose GSISK condition and start key are those of the
// twin query on the zero tail, and its span; a nil span when no entry of
// the zero tail can satisfy the twin query.
type twinPlan struct {
	q    table.Query
	zero *span
}

// planTwin plans the zero tail of q (checked by plan) on twin sp.ix.
func (t *Table) planTwin(sp *span, q *table.Query) (*twinPlan, error) {
	base := sp.ix.base
	tp := &twinPlan{q: table.Query{Index: base.def.Name, HashValue: q.HashValue, Forward: q.Forward, Limit: q.Limit}}
	var in bool
	if tp.q.SortOp, tp.q.SortValue, in = zeroCond(q.SortOp, q.SortValue); !in {
		return tp, nil
	}
	if st := sp.start; st != nil {
		switch side := zeroSide(st.sort); {
		case side == 0:
			tp.q.StartKey = table.Item{
				base.def.Hash: table.S(q.HashValue), table.AttrGSISK: table.S(st.sort[len(zeroHSK):]),
				table.AttrPK: table.S(st.pk), table.AttrSK: table.S(st.sk),
			}
		case side > 0 == q.Forward:
			return tp, nil // the zero tail is all before the start
		}
	}
	var err error
	tp.zero, err = t.plan(&tp.q)
	return tp, err
}

// zeroCond returns the condition on GSISK that selects the entries of the
// zero tail whose HSK satisfies condition op v, or false when none does.
func zeroCond(op table.SortOp, v string) (table.SortOp, string, bool) {
	rest, inside := strings.CutPrefix(v, zeroHSK)
	side := zeroSide(v)
	switch op {
	case table.SortLess:
		if side == 0 {
			return op, rest, true
		}
		return table.SortNone, "", side > 0
	case table.SortGreater:
		if side == 0 {
			return op, rest, true
		}
		return table.SortNone, "", side < 0
	case table.SortBeginsWith:
		if inside && rest != "" {
			return op, rest, true
		}
		return table.SortNone, "", inside || strings.HasPrefix(zeroHSK, v)
	}
	return op, "", true
}

// twinSource is one of the two ordered sources of a twin query: the
// entries stored in the twin's bucket, or the zero tail in the base
// index's. head is the entry it is at (nil at its end); the zero tail's
// is the entry of an item of the zero tail, read as the query asks (item
// or rec, pageReader.row).
type twinSource struct {
	e      entries
	r      pageReader
	head   []byte
	headV  []byte
	read   bool // the zero tail's head is read: item or rec, sort, pk and sk are its
	item   table.Item
	rec    table.Record
	hsk    int // the column of HSK in a rec
	sort   string
	pk, sk string
}

// newTwinSource returns the source reading the entries of span sp in
// partition p for query q (the twin's or the base index's), projected as
// twin projects them into Items, or into records of recs when it is not
// nil (twinRecords), positioned at its first entry.
func newTwinSource(snap *snapshot, sp, twin *span, p *partition, q *table.Query, recs *recordArena) (*twinSource, error) {
	b := snap.tx.Bucket(sp.bucket)
	if b == nil {
		return nil, table.Errorf(table.EINTERNAL, "bolt store has no bucket %q", sp.bucket)
	}
	lo, hi, match := sp.bounds(p.prefix, p, q)
	s := &twinSource{e: entries{c: b.Cursor(), lo: lo, hi: hi, match: match, forward: q.Forward}}
	s.r = pageReader{sp: twin, p: p, items: snap.items, recs: recs}
	s.r.e.sortAttr, s.r.e.hashAttr, s.r.e.hash = sp.sortAttr, sp.hashAttr, q.HashValue
	if recs != nil {
		s.hsk = recs.cols.Index(table.AttrHSK)
	}
	s.head, s.headV = s.e.first()
	return s, nil
}

// twinRecords returns the record arena of a twin query with columns q,
// nil when it reads Items: without columns, or with columns that leave out
// HSK, which a read of the zero tail tells its items by.
func twinRecords(q *table.Query) *recordArena {
	if q.Columns == nil || q.Columns.Index(table.AttrHSK) < 0 {
		return nil
	}
	return &recordArena{cols: columnsOf(q.Columns), shared: q.Arena}
}

// advance moves to the next entry.
func (s *twinSource) advance() {
	s.head, s.headV = s.e.next()
	s.read = false
}

// fill reads the zero tail's head: past the base entries whose item is not
// of the zero tail, to the next one that is (none: head is nil). A record
// read of an item passed over is the room of the next one; hint is how
// many items the query may still take.
func (s *twinSource) fill(hint int) error {
	for ; s.head != nil && !s.read; s.advance() {
		if bytes.Equal(s.headV, passValue) {
			continue // marked as outside the zero tail: its item is not read
		}
		clear(s.rec)
		it, rec, err := s.r.row(s.head, s.headV, s.rec, hint)
		if err != nil {
			return err
		}
		s.item, s.rec = it, rec
		if hsk, ok := s.headHSK(); ok && isZeroHSK(hsk, s.r.e.sort) {
			s.sort, s.pk, s.sk, s.read = hsk, s.r.e.pk, s.r.e.sk, true
			return nil
		}
	}
	return nil
}

// headHSK returns the HSK of the item read at the head.
func (s *twinSource) headHSK() (string, bool) {
	if s.rec != nil {
		return s.rec[s.hsk].Str()
	}
	return s.item[table.AttrHSK].Str()
}

// take appends the zero tail's head, read, to res: the record is then the
// page's, not the room of the next read.
func (s *twinSource) take(res *table.QueryResult) {
	appendRow(res, s.item, s.rec)
	s.item, s.rec = nil, nil
}

// key returns the stored source's head as (sort, pk, sk).
func (s *twinSource) key() (string, string, string) {
	sort, ik, ok := s.r.p.decode(s.head)
	if !ok {
		return "", "", "" // item reports it
	}
	pk, sk, _ := splitBaseKey(ik)
	return sort, pk, sk
}

// side is zeroSide of the stored source's head, read from the count alone
// in a partition of counted times.
func (s *twinSource) side() int {
	if s.r.p.kind == kindCounted {
		if enc, _, ok := s.r.p.split(s.head); ok && uint40(enc) > 0 {
			return 1
		}
	}
	sort, _, _ := s.key()
	return zeroSide(sort)
}

// readTwin runs the query of span sp, on a twin, in the snapshot: the
// entries of the twin's bucket (stored) merged with the zero tail (zero),
// each source read only as far as the page needs.
func (sp *span) readTwin(snap *snapshot, q *table.Query) (res table.QueryResult, err error) {
	ps := partitions{b: snap.partitions}
	recs := twinRecords(q)
	stored, zero := &twinSource{}, &twinSource{}
	if p, ok := ps.get(partitionName(q.HashValue, sp.sortAttr)); ok {
		if stored, err = newTwinSource(snap, sp, sp, &p, q, recs); err != nil {
			return table.QueryResult{}, err
		}
	}
	if z := sp.twin.zero; z != nil {
		if p, ok := ps.get(partitionName(q.HashValue, z.sortAttr)); ok {
			if zero, err = newTwinSource(snap, z, sp, &p, &sp.twin.q, recs); err != nil {
				return table.QueryResult{}, err
			}
		}
	}
	if recs != nil {
		res.Records = make([]table.Record, 0, min(q.Limit, 128))
	} else {
		res.Items = make([]table.Item, 0, min(q.Limit, 128))
	}
	// The keys of the item read last, made the page's LastKey once it is
	// full: a zero-tail item's sort value in the twin is its HSK.
	var lastPK, lastSK, lastSort string
	for res.Len() < q.Limit {
		left := q.Limit - res.Len()
		src, err := nextSource(stored, zero, q.Forward, left)
		if err != nil {
			return table.QueryResult{}, err
		}
		if src == nil {
			return res, nil
		}
		if src == stored {
			if err := stored.r.read(&res, stored.head, stored.headV, left); err != nil {
				return table.QueryResult{}, err
			}
			lastPK, lastSK, lastSort = stored.r.e.pk, stored.r.e.sk, stored.r.e.sort
		} else {
			zero.take(&res)
			lastPK, lastSK, lastSort = zero.pk, zero.sk, zero.sort
		}
		src.advance()
	}
	// A full page: more follow when either source has an entry left.
	if stored.head == nil {
		if err := zero.fill(1); err != nil {
			return table.QueryResult{}, err
		}
		if zero.head == nil {
			return res, nil
		}
	}
	res.LastKey = sp.key(table.S(lastPK), table.S(lastSK), table.S(q.HashValue), table.S(lastSort))
	return res, nil
}

// nextSource returns the source whose head comes next in the query's
// order (nil when both are at their end): the stored entry when it is on
// the near side of the zero tail, else the first of the two heads; left
// is how many items the query may still take.
func nextSource(stored, zero *twinSource, forward bool, left int) (*twinSource, error) {
	if stored.head != nil {
		if side := stored.side(); forward && side < 0 || !forward && side > 0 {
			return stored, nil
		}
	}
	if err := zero.fill(left); err != nil {
		return nil, err
	}
	switch {
	case zero.head == nil && stored.head == nil:
		return nil, nil
	case zero.head == nil:
		return stored, nil
	case stored.head == nil:
		return zero, nil
	}
	sort, pk, sk := stored.key()
	c := cmp.Or(strings.Compare(sort, zero.sort), strings.Compare(pk, zero.pk), strings.Compare(sk, zero.sk))
	if c < 0 == forward {
		return stored, nil
	}
	return zero, nil
}
