package bolt

import (
	"bytes"
	"context"

	"go.etcd.io/bbolt"

	"github.com/acme/comments-gateway/store"
)

// span is the key range [lo, hi) of a bucket that a query reads.
type span struct {
	bucket   []byte
	ix       *index // nil for the base table
	lo, hi   []byte
	hashAttr string
	sortAttr string
}

// plan validates q and computes the key range it reads.
func (t *Table) plan(q *store.Query) (*span, error) {
	if q.Limit <= 0 {
		return nil, store.Errorf(store.EINVALID, "query limit must be positive, got %d", q.Limit)
	}
	sp := &span{bucket: bucketItems, hashAttr: store.AttrPK, sortAttr: store.AttrSK}
	if q.Index != "" {
		for _, ix := range t.indexes {
			if ix.def.Name == q.Index {
				sp.ix = ix
			}
		}
		if sp.ix == nil {
			return nil, store.Errorf(store.EINVALID, "unknown index %q", q.Index)
		}
		sp.bucket, sp.hashAttr, sp.sortAttr = sp.ix.bucket, sp.ix.def.Hash, sp.ix.def.Sort
	}
	if err := store.ValidateKeyValue("query hash value", q.HashValue, store.MaxHashKeyLen); err != nil {
		return nil, err
	}
	// Every key of the partition begins with prefix = hash + "\x00"; the
	// sort value follows, then (in an index) "\x00" and the table key. As no
	// value contains "\x00", for a sort value s and a key k of the partition
	// with sort value ks:
	//   ks < s            ⇔ k < prefix+s
	//   ks > s            ⇔ k ≥ prefix+s+"\x01"
	//   ks begins with s  ⇔ k begins with prefix+s
	prefix := append([]byte(q.HashValue), sep)
	sp.lo, sp.hi = prefix, prefixEnd(prefix)
	if q.SortOp != store.SortNone {
		if err := store.ValidateKeyValue("query sort value", q.SortValue, store.MaxSortKeyLen); err != nil {
			return nil, err
		}
	}
	withSort := func(tail ...byte) []byte {
		b := append(bytes.Clone(prefix), q.SortValue...)
		return append(b, tail...)
	}
	switch q.SortOp {
	case store.SortNone:
	case store.SortLess:
		sp.hi = withSort()
	case store.SortGreater:
		sp.lo = withSort(1)
	case store.SortBeginsWith:
		sp.lo = withSort()
		sp.hi = prefixEnd(sp.lo)
	default:
		return nil, store.Errorf(store.EINVALID, "unknown sort condition %d", q.SortOp)
	}
	if q.StartKey != nil {
		start, err := sp.startKey(q)
		if err != nil {
			return nil, err
		}
		// Exclusive: ascending, the first key after start (start+"\x00" is
		// its immediate successor); descending, the last key before it.
		if q.Forward {
			if s := append(start, sep); bytes.Compare(s, sp.lo) > 0 {
				sp.lo = s
			}
		} else if bytes.Compare(start, sp.hi) < 0 {
			sp.hi = start
		}
	}
	return sp, nil
}

// startKey returns the bucket key of q.StartKey.
func (sp *span) startKey(q *store.Query) ([]byte, error) {
	h, err := keyAttr(q.StartKey, sp.hashAttr, store.MaxHashKeyLen)
	if err != nil {
		return nil, prefixed("start key", err)
	}
	if h != q.HashValue {
		return nil, store.Errorf(store.EINVALID, "start key is not in the queried partition")
	}
	pk, err := keyAttr(q.StartKey, store.AttrPK, store.MaxHashKeyLen)
	if err != nil {
		return nil, prefixed("start key", err)
	}
	sk, err := keyAttr(q.StartKey, store.AttrSK, store.MaxSortKeyLen)
	if err != nil {
		return nil, prefixed("start key", err)
	}
	if sp.ix == nil {
		return baseKey(store.Key{PK: pk, SK: sk}), nil
	}
	s, err := keyAttr(q.StartKey, sp.sortAttr, store.MaxSortKeyLen)
	if err != nil {
		return nil, prefixed("start key", err)
	}
	return indexKey(h, s, pk, sk), nil
}

// lastKey is the LastKey of a page ending with it: the table's key
// attributes and, on an index, the index's.
func (sp *span) lastKey(it store.Item) store.Item {
	k := store.Item{store.AttrPK: it[store.AttrPK], store.AttrSK: it[store.AttrSK]}
	if sp.ix != nil {
		k[sp.hashAttr] = it[sp.hashAttr]
		k[sp.sortAttr] = it[sp.sortAttr]
	}
	return k
}

// Query runs a key-condition query on the base table (Index "") or an
// index, in one read transaction. LastKey is exact: it is non-nil if and
// only if more items satisfying the condition follow the last one returned.
// A limit below 1, an unknown index, a start key outside the partition or
// a malformed value is store.EINVALID.
func (t *Table) Query(ctx context.Context, q store.Query) (store.QueryResult, error) {
	if err := ctxErr(ctx); err != nil {
		return store.QueryResult{}, err
	}
	sp, err := t.plan(&q)
	if err != nil {
		return store.QueryResult{}, err
	}
	items := make([]store.Item, 0, min(q.Limit, 128))
	more := false
	err = t.view(func(tx *bbolt.Tx) error {
		b := tx.Bucket(sp.bucket)
		if b == nil {
			return store.Errorf(store.EINTERNAL, "bolt store has no bucket %q", sp.bucket)
		}
		c := b.Cursor()
		var k, v []byte
		next := c.Next
		if q.Forward {
			k, v = c.Seek(sp.lo)
		} else {
			next = c.Prev
			// The last key before hi: Seek finds the first key at or
			// after hi, the one before it is the answer.
			if sp.hi == nil {
				k, v = c.Last()
			} else if k, _ = c.Seek(sp.hi); k == nil {
				k, v = c.Last()
			} else {
				k, v = c.Prev()
			}
		}
		for ; k != nil; k, v = next() {
			if q.Forward && sp.hi != nil && bytes.Compare(k, sp.hi) >= 0 || !q.Forward && bytes.Compare(k, sp.lo) < 0 {
				break
			}
			if len(items) == q.Limit {
				more = true
				break
			}
			var it store.Item
			var err error
			if sp.ix == nil {
				it, err = decodeItem(k, v)
			} else {
				it, err = sp.ix.decodeEntry(k, v)
			}
			if err != nil {
				return err
			}
			items = append(items, it)
		}
		return nil
	})
	if err != nil {
		return store.QueryResult{}, err
	}
	res := store.QueryResult{Items: items}
	if more {
		res.LastKey = sp.lastKey(items[len(items)-1])
	}
	return res, nil
}

// Scan reads segment seg of total segments of the base table: the items
// whose PK hashes (FNV-1a) to seg modulo total, in key order, up to limit
// of them after startKey (nil: from the start). The key returned is nil
// exactly when the segment holds nothing more; otherwise it is the key of
// the last item, to pass as the next call's startKey.
func (t *Table) Scan(ctx context.Context, seg, total int, startKey store.Item, limit int) ([]store.Item, store.Item, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, nil, err
	}
	if total < 1 || seg < 0 || seg >= total {
		return nil, nil, store.Errorf(store.EINVALID, "scan segment %d of %d is out of range", seg, total)
	}
	if limit <= 0 {
		return nil, nil, store.Errorf(store.EINVALID, "scan limit must be positive, got %d", limit)
	}
	var from []byte
	if startKey != nil {
		pk, err := keyAttr(startKey, store.AttrPK, store.MaxHashKeyLen)
		if err != nil {
			return nil, nil, prefixed("start key", err)
		}
		sk, err := keyAttr(startKey, store.AttrSK, store.MaxSortKeyLen)
		if err != nil {
			return nil, nil, prefixed("start key", err)
		}
		from = append(baseKey(store.Key{PK: pk, SK: sk}), sep)
	}
	var items []store.Item
	more := false
	err := t.view(func(tx *bbolt.Tx) error {
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
	last := items[len(items)-1]
	return items, store.Item{store.AttrPK: last[store.AttrPK], store.AttrSK: last[store.AttrSK]}, nil
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
