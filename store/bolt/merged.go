package bolt

import (
	"bytes"
	"cmp"
	"context"

	"go.etcd.io/bbolt"

	"github.com/acme/comments-gateway/store/table"
)

// Merges reports whether QueryMerged reads the partitions of index: every
// index but the helpful twins, whose queries read two buckets (twin.go).
func (t *Table) Merges(index string) bool {
	ix := t.index(index)
	return ix != nil && ix.base == nil
}

// QueryMerged runs queries of one index in one direction as one k-way
// merge by sort value, ties by table key (table.MergeReader), in one read
// transaction: it walks the partitions' index entries side by side and
// reads from the items bucket only the items it returns, the first limit
// of the merge (and those after them of the same sort value). A merged
// page of n items so reads n items, where reading each partition for its
// share reads more, or reads again. It fails as Query does, and with
// EINVALID on queries of several indexes or directions.
func (t *Table) QueryMerged(ctx context.Context, qs []table.Query, limit int) (res []table.QueryResult, bound string, err error) {
	res = make([]table.QueryResult, len(qs))
	defer func() {
		for i, q := range qs {
			table.Account(ctx, table.Call{Op: table.CallQuery, Index: q.Index, Items: res[i].Len()})
		}
	}()
	if err := ctxErr(ctx); err != nil {
		return res, "", err
	}
	if limit <= 0 {
		return res, "", table.Errorf(table.EINVALID, "query limit must be positive, got %d", limit)
	}
	heads := make([]mergeHead, len(qs))
	for i := range qs {
		q := qs[i] // a copy: the limit is the merge's
		q.Limit = limit
		if q.Index == "" || q.Index != qs[0].Index || q.Forward != qs[0].Forward {
			return res, "", table.Errorf(table.EINVALID, "a merged read is of queries of one index in one direction")
		}
		if heads[i].sp, err = t.plan(&q); err != nil {
			return res, "", err
		}
		if heads[i].sp.twin != nil {
			return res, "", table.Errorf(table.EINVALID, "index %s is not read as one merge (Merges)", q.Index)
		}
		heads[i].q, heads[i].n = q, i
	}
	err = t.view(func(tx *bbolt.Tx) error {
		m := merge{heads: heads}
		if qs[0].Columns != nil {
			m.recs = &recordArena{cols: columnsOf(qs[0].Columns), shared: qs[0].Arena}
		}
		if err := m.open(tx); err != nil {
			return err
		}
		got := m.room(limit)
		if bound, err = m.read(got, limit); err == nil {
			copy(res, got)
		}
		return err
	})
	if err != nil {
		clear(res)
		return res, "", err
	}
	return res, bound, nil
}

// merge is the state of a merged read: one head per query.
type merge struct {
	heads []mergeHead
	// mixed is set when the partitions hold their sort values in different
	// kinds, so that entries compare by their decoded sort values rather
	// than by their keys.
	mixed bool
	recs  *recordArena // the records of queries with columns (nil: Items)
}

// mergeHead is one query of a merged read: its walk of the index entries,
// positioned at the next entry to merge (k nil: none left).
type mergeHead struct {
	n    int // the query's index
	sp   *span
	q    table.Query
	p    partition
	e    entries
	r    pageReader
	k, v []byte
}

// open positions each head at the first entry of its query in transaction
// tx.
func (m *merge) open(tx *bbolt.Tx) error {
	b, items, parts := tx.Bucket(m.heads[0].sp.bucket), tx.Bucket(bucketItems), tx.Bucket(bucketPartitions)
	if b == nil || items == nil || parts == nil {
		return table.Errorf(table.EINTERNAL, "bolt store has no bucket %q", m.heads[0].sp.bucket)
	}
	ic := items.Cursor() // one cursor for every item the merge reads
	// One block for the heads' item keys: each head builds its entries'
	// keys in its own part (itemKey).
	keys := make([]byte, len(m.heads)*itemKeyLen)
	var kind byte // of the first partition found
	for i := range m.heads {
		h := &m.heads[i]
		p, ok := partitions{b: parts}.get(partitionName(h.q.HashValue, h.sp.sortAttr))
		if !ok {
			continue // no item was ever in this partition
		}
		h.p = p
		if kind == 0 {
			kind = p.kind
		}
		m.mixed = m.mixed || p.kind != kind
		lo, hi, match := h.sp.bounds(p.prefix, &h.p, &h.q)
		h.e = entries{c: b.Cursor(), lo: lo, hi: hi, match: match, forward: h.q.Forward}
		h.r = pageReader{sp: h.sp, p: &h.p, items: ic, recs: m.recs, buf: keys[i*itemKeyLen : i*itemKeyLen : (i+1)*itemKeyLen]}
		h.r.e.sortAttr, h.r.e.hashAttr, h.r.e.hash = h.sp.sortAttr, h.sp.hashAttr, h.q.HashValue
		h.k, h.v = h.e.first()
	}
	return nil
}

// room returns results for the merge's queries with room for an equal
// share of limit items each, and a few more.
func (m *merge) room(limit int) []table.QueryResult {
	res := make([]table.QueryResult, len(m.heads))
	for i := range res {
		if m.recs != nil {
			res[i].Records = make([]table.Record, 0, min(limit, limit/len(res)+4))
		} else {
			res[i].Items = make([]table.Item, 0, min(limit, limit/len(res)+4))
		}
	}
	return res
}

// read takes the first limit entries of the merge, and those after them
// of the same sort value, reading each one's item into its query's result;
// it returns the merge's bound (table.MergeReader).
func (m *merge) read(res []table.QueryResult, limit int) (string, error) {
	var last *mergeHead
	var lastK []byte
	for n := 0; ; n++ {
		h := m.first()
		if h == nil {
			return "", nil
		}
		if n >= limit && !m.sameSort(last.p, lastK, h.p, h.k) {
			return last.r.e.sort, nil // the sort value of the item read last
		}
		if err := h.r.read(&res[h.n], h.k, h.v, limit+1-n); err != nil {
			return "", err
		}
		last, lastK = h, h.k
		h.k, h.v = h.e.next()
	}
}

// first returns the head whose entry comes first in the merge (nil: none
// left).
func (m *merge) first() *mergeHead {
	var best *mergeHead
	for i := range m.heads {
		h := &m.heads[i]
		if h.k != nil && (best == nil || m.before(h, best)) {
			best = h
		}
	}
	return best
}

// before reports whether head a's entry comes before head b's in the
// merge's direction.
func (m *merge) before(a, b *mergeHead) bool {
	c := m.compare(a.p, a.k, b.p, b.k)
	if a.q.Forward {
		return c < 0
	}
	return c > 0
}

// compare orders entry ka of partition pa and kb of pb by sort value, then
// table key. Partitions of one kind hold both in the order of their keys
// past the partition's number.
func (m *merge) compare(pa partition, ka []byte, pb partition, kb []byte) int {
	if !m.mixed {
		return bytes.Compare(ka[len(pa.prefix):], kb[len(pb.prefix):])
	}
	sa, ia, _ := pa.decode(ka)
	sb, ib, _ := pb.decode(kb)
	return cmp.Or(cmp.Compare(sa, sb), bytes.Compare(ia, ib))
}

// sameSort reports whether entries ka of pa and kb of pb have one sort
// value.
func (m *merge) sameSort(pa partition, ka []byte, pb partition, kb []byte) bool {
	if !m.mixed {
		ea, _, oka := pa.split(ka)
		eb, _, okb := pb.split(kb)
		return oka && okb && bytes.Equal(ea, eb)
	}
	sa, _, _ := pa.decode(ka)
	sb, _, _ := pb.decode(kb)
	return sa == sb
}
