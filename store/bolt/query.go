package bolt

import (
	"bytes"
	"cmp"
	"context"
	"strings"

	"go.etcd.io/bbolt"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// span is what a query reads: the key range [prefix+lo, prefix+hi) of a
// bucket, where prefix is the partition's (hash + "\x00" in the items
// bucket, the partition number in an index's) and a nil hi is the end of
// the partition; and the exclusive start key, if any.
type span struct {
	bucket   []byte
	ix       *index // nil for the base table
	lo, hi   []byte
	hashAttr string
	sortAttr string
	start    *startKey
	twin     *twinPlan // on a helpful twin, its zero tail (twin.go)
}

// startKey is a query's StartKey, checked.
type startKey struct{ sort, pk, sk string }

// index returns the index named name (nil: none).
func (t *Table) index(name string) *index {
	for _, ix := range t.indexes {
		if ix.def.Name == name {
			return ix
		}
	}
	return nil
}

// plan validates q and computes the range it reads within its partition.
func (t *Table) plan(q *table.Query) (*span, error) {
	if q.Limit <= 0 {
		return nil, table.Errorf(table.EINVALID, "query limit must be positive, got %d", q.Limit)
	}
	sp := &span{bucket: bucketItems, hashAttr: table.AttrPK, sortAttr: table.AttrSK}
	if q.Index != "" {
		if sp.ix = t.index(q.Index); sp.ix == nil {
			return nil, table.Errorf(table.EINVALID, "unknown index %q", q.Index)
		}
		sp.bucket, sp.hashAttr, sp.sortAttr = sp.ix.bucket, sp.ix.def.Hash, sp.ix.def.Sort
	}
	if err := table.ValidateKeyValue("query hash value", q.HashValue, table.MaxHashKeyLen); err != nil {
		return nil, err
	}
	if q.SortOp != table.SortNone {
		if err := table.ValidateKeyValue("query sort value", q.SortValue, table.MaxSortKeyLen); err != nil {
			return nil, err
		}
	}
	// Within a partition a key is the sort value, then (in an index)
	// "\x00" and the tail. As no value contains "\x00", for a sort value s
	// and a key k of the partition with sort value ks:
	//   ks < s            ⇔ k < s
	//   ks > s            ⇔ k ≥ s+"\x01"
	//   ks begins with s  ⇔ k begins with s
	s := []byte(q.SortValue)
	switch q.SortOp {
	case table.SortNone:
	case table.SortLess:
		sp.hi = s
	case table.SortGreater:
		sp.lo = append(s, 1)
	case table.SortBeginsWith:
		sp.lo, sp.hi = s, prefixEnd(s)
	default:
		return nil, table.Errorf(table.EINVALID, "unknown sort condition %d", q.SortOp)
	}
	if q.StartKey != nil {
		start, err := sp.startKey(q)
		if err != nil {
			return nil, err
		}
		sp.start = start
	}
	if sp.ix != nil && sp.ix.base != nil {
		var err error
		if sp.twin, err = t.planTwin(sp, q); err != nil {
			return nil, err
		}
	}
	return sp, nil
}

// startKey checks q.StartKey.
func (sp *span) startKey(q *table.Query) (*startKey, error) {
	h, err := keyAttr(q.StartKey, sp.hashAttr, table.MaxHashKeyLen)
	if err != nil {
		return nil, prefixed("start key", err)
	}
	if h != q.HashValue {
		return nil, table.Errorf(table.EINVALID, "start key is not in the queried partition")
	}
	st := &startKey{}
	if st.pk, err = keyAttr(q.StartKey, table.AttrPK, table.MaxHashKeyLen); err != nil {
		return nil, prefixed("start key", err)
	}
	if st.sk, err = keyAttr(q.StartKey, table.AttrSK, table.MaxSortKeyLen); err != nil {
		return nil, prefixed("start key", err)
	}
	if sp.ix != nil {
		if st.sort, err = keyAttr(q.StartKey, sp.sortAttr, table.MaxSortKeyLen); err != nil {
			return nil, prefixed("start key", err)
		}
	}
	return st, nil
}

// bounds returns the key range [lo, hi) of the span in the partition whose
// keys begin with prefix (p: the index partition, nil for the base table),
// narrowed by the start key: ascending, from the first key after it;
// descending, up to the last key before it. In a partition of times, a
// condition or start key whose sort value is not a time cannot be a bound;
// match then says which keys of the range the query returns (nil: all).
func (sp *span) bounds(prefix []byte, p *partition, q *table.Query) (lo, hi []byte, match func([]byte) bool) {
	rlo, rhi := sp.lo, sp.hi
	var conds []func(sort string, pk, sk string) bool
	if p != nil && p.kind != kindStrings {
		var cond func(sort string, pk, sk string) bool
		if rlo, rhi, cond = timeBounds(p, q); cond != nil {
			conds = append(conds, cond)
		}
	}
	lo = append(bytes.Clone(prefix), rlo...)
	if rhi != nil {
		hi = append(bytes.Clone(prefix), rhi...)
	} else {
		hi = prefixEnd(prefix)
	}
	if st := sp.start; st != nil {
		var start []byte
		if p == nil {
			start = baseKey(table.Key{PK: st.pk, SK: st.sk})
		} else if k, ok := p.key(entryRef{hash: q.HashValue, sort: st.sort, pk: st.pk, sk: st.sk}); ok {
			start = k
		} else {
			conds = append(conds, func(s, pk, sk string) bool {
				c := cmp.Or(strings.Compare(s, st.sort), strings.Compare(pk, st.pk), strings.Compare(sk, st.sk))
				return q.Forward && c > 0 || !q.Forward && c < 0
			})
		}
		// start+"\x00" is the immediate successor of start.
		if start == nil {
		} else if q.Forward {
			if s := append(start, sep); bytes.Compare(s, lo) > 0 {
				lo = s
			}
		} else if hi == nil || bytes.Compare(start, hi) < 0 {
			hi = start
		}
	}
	if len(conds) == 0 {
		return lo, hi, nil
	}
	return lo, hi, func(k []byte) bool {
		sort, ik, ok := p.decode(k)
		if !ok {
			return true // item reports it
		}
		pk, sk, _ := splitBaseKey(ik)
		for _, c := range conds {
			if !c(sort, pk, sk) {
				return false
			}
		}
		return true
	}
}

// timeBounds returns the range of q's sort condition within partition p of
// times (counted or not), relative to its prefix, or a condition on the sort value when the
// bound is not a time.
func timeBounds(p *partition, q *table.Query) (lo, hi []byte, cond func(sort string, pk, sk string) bool) {
	v := q.SortValue
	switch e, ok := p.appendSort(nil, v); {
	case q.SortOp == table.SortLess && ok:
		return nil, e, nil
	case q.SortOp == table.SortLess:
		return nil, nil, func(s, _, _ string) bool { return s < v }
	case q.SortOp == table.SortGreater && ok:
		return append(e, 1), nil, nil
	case q.SortOp == table.SortGreater:
		return nil, nil, func(s, _, _ string) bool { return s > v }
	case q.SortOp == table.SortBeginsWith:
		return nil, nil, func(s, _, _ string) bool { return strings.HasPrefix(s, v) }
	}
	return nil, nil, nil
}

// key is the LastKey of a page ending with the item of table key pk, sk
// and, on an index, index key hash, sort: the table's key attributes and,
// on an index, the index's.
func (sp *span) key(pk, sk, hash, sort table.Value) table.Item {
	k := table.Item{table.AttrPK: pk, table.AttrSK: sk}
	if sp.ix != nil {
		k[sp.hashAttr] = hash
		k[sp.sortAttr] = sort
	}
	return k
}

// Query runs a key-condition query on the base table (Index "") or an
// index, in one read transaction. On an index it walks the entries of the
// partition and reads each item from the items bucket, returning the
// index's projection of it. LastKey is exact: it is non-nil if and only if
// more items satisfying the condition follow the last one returned. A limit
// below 1, an unknown index, a start key outside the partition or a
// malformed value is store.EINVALID.
func (t *Table) Query(ctx context.Context, q table.Query) (table.QueryResult, error) {
	res, err := t.QueryRound(ctx, []table.Query{q})
	if err != nil {
		return table.QueryResult{}, err
	}
	return res[0], nil
}

// QueryRound runs queries as Query does, all in one read transaction: one
// snapshot of the file, its buckets opened once (table.RoundReader; a merge
// reads its partitions so). Each query is accounted as a call of its own;
// on an error, the queries up to the failed one.
func (t *Table) QueryRound(ctx context.Context, qs []table.Query) (res []table.QueryResult, err error) {
	if len(qs) == 0 {
		return nil, nil
	}
	res = make([]table.QueryResult, len(qs))
	tried := 0 // a call that fails before reading is still accounted
	defer func() {
		for i, q := range qs[:max(tried, 1)] {
			table.Account(ctx, table.Call{Op: table.CallQuery, Index: q.Index, Items: res[i].Len()})
		}
	}()
	if err := ctxErr(ctx); err != nil {
		return res, err
	}
	spans := make([]*span, len(qs))
	for i := range qs {
		if spans[i], err = t.plan(&qs[i]); err != nil {
			return res, err
		}
	}
	err = t.view(func(tx *bbolt.Tx) error {
		snap := snapshot{tx: tx}
		for i, sp := range spans {
			tried = i + 1
			if res[i], err = sp.read(&snap, &qs[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		clear(res)
	}
	return res, err
}

// snapshot is the read transaction of a round of queries and what its
// queries share: the buckets they open and the cursor over the items.
type snapshot struct {
	tx         *bbolt.Tx
	name       []byte        // of the bucket last opened
	bucket     *bbolt.Bucket // the bucket last opened
	cursor     *bbolt.Cursor // over it
	items      *bbolt.Cursor // over the items bucket, once opened
	partitions *bbolt.Bucket
	buf        []byte // for the index entries' item keys
}

// open returns a cursor over the named bucket of the transaction (nil when
// the bucket is missing).
func (s *snapshot) open(name []byte) *bbolt.Cursor {
	if s.bucket == nil || !bytes.Equal(name, s.name) {
		s.name, s.bucket, s.cursor = name, s.tx.Bucket(name), nil
		if s.bucket != nil {
			s.cursor = s.bucket.Cursor()
		}
	}
	return s.cursor
}

// read runs the query of the span in the snapshot.
func (sp *span) read(snap *snapshot, q *table.Query) (table.QueryResult, error) {
	var res table.QueryResult
	if snap.items == nil {
		if items := snap.tx.Bucket(bucketItems); items != nil {
			snap.items = items.Cursor() // one cursor for every item the round reads
		}
		snap.partitions = snap.tx.Bucket(bucketPartitions)
	}
	c := snap.open(sp.bucket)
	if c == nil || snap.items == nil || sp.ix != nil && snap.partitions == nil {
		return res, table.Errorf(table.EINTERNAL, "bolt store has no bucket %q", sp.bucket)
	}
	if sp.twin != nil {
		return sp.readTwin(snap, q)
	}
	prefix := append([]byte(q.HashValue), sep)
	var p *partition
	if sp.ix != nil {
		part, ok := partitions{b: snap.partitions}.get(partitionName(q.HashValue, sp.sortAttr))
		if !ok {
			return res, nil // no item was ever in this partition
		}
		p, prefix = &part, part.prefix
	}
	lo, hi, match := sp.bounds(prefix, p, q)
	page, more := sp.walk(c, lo, hi, match, q)
	r := pageReader{sp: sp, p: p, items: snap.items, buf: snap.buf}
	if sp.ix != nil {
		r.e.sortAttr, r.e.hashAttr, r.e.hash = sp.sortAttr, sp.hashAttr, q.HashValue
		if r.buf == nil {
			r.buf = make([]byte, 0, itemKeyLen)
		}
	}
	if q.Columns != nil {
		r.recs = &recordArena{cols: columnsOf(q.Columns), shared: q.Arena}
		res.Records = make([]table.Record, 0, len(page))
	} else {
		res.Items = make([]table.Item, 0, len(page))
	}
	for _, kv := range page {
		if err := r.read(&res, kv.k, kv.v, len(page)); err != nil {
			return table.QueryResult{}, err
		}
	}
	snap.buf = r.buf
	if more {
		res.LastKey = r.lastKey()
	}
	return res, nil
}

// pair is a key and its value in a bucket, valid during its transaction.
type pair struct{ k, v []byte }

// walk returns the pairs of the page that c's bucket holds in [lo, hi)
// for q, in q's order, and whether more follow them.
func (sp *span) walk(c *bbolt.Cursor, lo, hi []byte, match func([]byte) bool, q *table.Query) ([]pair, bool) {
	page := make([]pair, 0, min(q.Limit, 128))
	e := entries{c: c, lo: lo, hi: hi, match: match, forward: q.Forward}
	for k, v := e.first(); k != nil; k, v = e.next() {
		if len(page) == q.Limit {
			return page, true
		}
		page = append(page, pair{k, v})
	}
	return page, false
}

// entries walks the keys of a cursor's bucket in [lo, hi) that match
// (nil: all), ascending (forward) or descending.
type entries struct {
	c       *bbolt.Cursor
	lo, hi  []byte
	match   func([]byte) bool
	forward bool
}

// first returns the first pair of the walk (a nil key: none).
func (e *entries) first() (k, v []byte) {
	switch {
	case e.forward:
		k, v = e.c.Seek(e.lo)
	case e.hi == nil:
		k, v = e.c.Last()
	default:
		// The last key before hi: Seek finds the first key at or after
		// hi, the one before it is the answer.
		if k, _ = e.c.Seek(e.hi); k == nil {
			k, v = e.c.Last()
		} else {
			k, v = e.c.Prev()
		}
	}
	return e.from(k, v)
}

// next returns the pair after the last one returned (a nil key: none).
func (e *entries) next() (k, v []byte) { return e.from(e.step()) }

// from returns the pair k, v when it is in the walk, else the first one
// after it that is (a nil key: none).
func (e *entries) from(k, v []byte) ([]byte, []byte) {
	for ; k != nil; k, v = e.step() {
		if e.forward && e.hi != nil && bytes.Compare(k, e.hi) >= 0 || !e.forward && bytes.Compare(k, e.lo) < 0 {
			return nil, nil
		}
		if e.match == nil || e.match(k) {
			return k, v
		}
	}
	return nil, nil
}

// step moves the cursor one key in the walk's direction.
func (e *entries) step() ([]byte, []byte) {
	if e.forward {
		return e.c.Next()
	}
	return e.c.Prev()
}

// itemKeyLen is the length of the longest items-bucket key itemKey builds
// (a comment's: COMMENT#id twice), the room of the buffer it builds in.
const itemKeyLen = 2*(len(commentPrefix)+store.MaxIDLen) + 1

// pageReader reads the items of one page of a span, in its transaction.
type pageReader struct {
	sp    *span
	p     *partition // the index partition; nil for the base table
	items *bbolt.Cursor
	e     entryItem    // the current entry; its names and hash value are set once
	buf   []byte       // for the index entries' item keys
	recs  *recordArena // the records of a query with columns (nil: Items)
}

// read appends the item of key k and value v of the span's bucket to res:
// to its Items, or as a record of the query's columns to its Records; hint
// is how many items the read may take.
func (r *pageReader) read(res *table.QueryResult, k, v []byte, hint int) error {
	it, rec, err := r.row(k, v, nil, hint)
	if err == nil {
		appendRow(res, it, rec)
	}
	return err
}

// row reads the item of key k and value v of the span's bucket as its
// query asks: an Item, or a record of the query's columns, decoded into
// room when it is not nil (zero, of the columns' width), else into a
// record of the arena (hint as recordArena.next's).
func (r *pageReader) row(k, v []byte, room table.Record, hint int) (table.Item, table.Record, error) {
	if r.recs == nil {
		it, err := r.item(k, v)
		return it, nil, err
	}
	pk, sk, val, err := r.value(k, v)
	if err != nil {
		return nil, nil, err
	}
	if room == nil {
		room = r.recs.next(hint)
	}
	out := sink{rec: room, cols: r.recs.cols}
	keep, kn := r.projection()
	if err := decodeInto(&out, pk, sk, val, keep, kn); err != nil {
		return nil, nil, err
	}
	return nil, out.rec, nil
}

// appendRow appends an item read by row to res: to its Records when it is
// a record, else to its Items.
func appendRow(res *table.QueryResult, it table.Item, rec table.Record) {
	if rec != nil {
		res.Records = append(res.Records, rec)
	} else {
		res.Items = append(res.Items, it)
	}
}

// projection returns the attributes a read of the span keeps (nil: all)
// and what the current entry tells of its item (nil: no entry).
func (r *pageReader) projection() (*projection, *known) {
	if r.sp.ix == nil {
		return nil, nil
	}
	return r.sp.ix.keep, &r.e.known
}

// value returns the table key and the value, copied, of the item of key k
// and value v of the span's bucket: the item itself in the items bucket,
// the item an index entry points to, whose entry it reads into r.e.
func (r *pageReader) value(k, v []byte) (pk, sk, val string, err error) {
	ix := r.sp.ix
	if ix == nil {
		pk, sk, val, err = copyStored(k, v)
		r.e.pk, r.e.sk = pk, sk
		return pk, sk, val, err
	}
	ik, enc, buf, ok := r.p.itemKey(k, r.buf)
	if r.buf = buf; !ok {
		return "", "", "", table.Wrap(table.EINTERNAL, errCorrupt, "index %s: malformed entry %q", ix.def.Name, k)
	}
	fk, iv := r.items.Seek(ik)
	if !bytes.Equal(fk, ik) || iv == nil {
		return "", "", "", table.Errorf(table.EINTERNAL, "index %s: entry %q of a missing item", ix.def.Name, k)
	}
	val = r.p.readEntry(&r.e, enc, ik, iv)
	return r.e.pk, r.e.sk, val, nil
}

// item returns the item of key k and value v of the span's bucket: the
// item itself in the items bucket, the projection of the item it points to
// in an index.
func (r *pageReader) item(k, v []byte) (table.Item, error) {
	pk, sk, val, err := r.value(k, v)
	if err != nil {
		return nil, err
	}
	keep, kn := r.projection()
	return decodeKeyed(pk, sk, val, keep, kn)
}

// lastKey is the LastKey of a page ending with the item read last, from
// its keys as its entry holds them.
func (r *pageReader) lastKey() table.Item {
	return r.sp.key(table.S(r.e.pk), table.S(r.e.sk), table.S(r.e.hash), table.S(r.e.sort))
}

// Scan reads segment seg of total segments of the base table: the items
// whose PK hashes (FNV-1a) to seg modulo total, in key order, up to limit
// of them after startKey (nil: from the start). The key returned is nil
// exactly when the segment holds nothing more; otherwise it is the key of
// the last item, to pass as the next call's startKey.
func (t *Table) Scan(ctx context.Context, seg, total int, startKey table.Item, limit int) (items []table.Item, last table.Item, err error) {
	defer func() { table.Account(ctx, table.Call{Op: table.CallScan, Items: len(items)}) }()
	if err := ctxErr(ctx); err != nil {
		return nil, nil, err
	}
	if total < 1 || seg < 0 || seg >= total {
		return nil, nil, table.Errorf(table.EINVALID, "scan segment %d of %d is out of range", seg, total)
	}
	if limit <= 0 {
		return nil, nil, table.Errorf(table.EINVALID, "scan limit must be positive, got %d", limit)
	}
	var from []byte
	if startKey != nil {
		pk, err := keyAttr(startKey, table.AttrPK, table.MaxHashKeyLen)
		if err != nil {
			return nil, nil, prefixed("start key", err)
		}
		sk, err := keyAttr(startKey, table.AttrSK, table.MaxSortKeyLen)
		if err != nil {
			return nil, nil, prefixed("start key", err)
		}
		from = append(baseKey(table.Key{PK: pk, SK: sk}), sep)
	}
	more := false
	err = t.view(func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketItems).Cursor()
		var k, v []byte
		if from == nil {
			k, v = c.First()
		} else {
			k, v = c.Seek(from)
		}
		for ; k != nil; k, v = c.Next() {
			if total > 1 && segmentOf(pkOf(k), total) != seg {
				continue
			}
			if len(items) == limit {
				more = true
				break
			}
			it, err := decodeItem(k, v)
			if err != nil {
				return err
			}
			items = append(items, it)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if !more {
		return items, nil, nil
	}
	end := items[len(items)-1]
	return items, table.Item{table.AttrPK: end[table.AttrPK], table.AttrSK: end[table.AttrSK]}, nil
}

// segmentOf is the scan segment of the items of partition pk: a stable hash
// of pk modulo total.
func segmentOf(pk []byte, total int) int {
	const (
		offset64 = 14695981039346656037
		prime64  = 1099511628211
	)
	h := uint64(offset64)
	for _, c := range pk {
		h ^= uint64(c)
		h *= prime64
	}
	return int(h % uint64(total))
}
