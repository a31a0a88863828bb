package bolt

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"go.etcd.io/bbolt"

	"github.com/acme/comments-gateway/store/table"
)

// writer changes items and their index entries within one write
// transaction.
type writer struct {
	t     *Table
	items *bbolt.Bucket
	parts partitions
	idx   []*bbolt.Bucket // aligned with t.indexes
}

func (t *Table) newWriter(tx *bbolt.Tx) (*writer, error) {
	w := &writer{t: t, items: tx.Bucket(bucketItems), idx: make([]*bbolt.Bucket, len(t.indexes))}
	w.parts = partitions{b: tx.Bucket(bucketPartitions)}
	if w.items == nil || w.parts.b == nil {
		return nil, table.Errorf(table.EINTERNAL, "bolt store has no items or partitions bucket")
	}
	for i, ix := range t.indexes {
		if w.idx[i] = tx.Bucket(ix.bucket); w.idx[i] == nil {
			return nil, table.Errorf(table.EINTERNAL, "bolt store has no bucket %q", ix.bucket)
		}
	}
	return w, nil
}

// get returns the stored item at key, or nil.
func (w *writer) get(key []byte) (table.Item, error) {
	v := w.items.Get(key)
	if v == nil {
		return nil, nil
	}
	return decodeItem(key, v)
}

// put stores it (validated) at key in place of old (nil: absent).
func (w *writer) put(key []byte, old, it table.Item) error {
	v, err := encodeItem(it)
	if err != nil {
		return err
	}
	if err := w.items.Put(key, v); err != nil {
		return err
	}
	for i, ix := range w.t.indexes {
		var oldKey, newKey []byte
		var was entryRef
		if old != nil {
			oldKey, was = w.existingEntry(i, old)
		}
		e, ok := ix.entry(it)
		if ok {
			if newKey, err = w.entryKey(i, e); err != nil {
				return err
			}
		}
		if bytes.Equal(oldKey, newKey) && (newKey == nil || was.pass == e.pass) {
			continue // the entry stays as it is
		}
		if oldKey != nil && !bytes.Equal(oldKey, newKey) {
			if err := w.idx[i].Delete(oldKey); err != nil {
				return err
			}
		}
		if newKey != nil {
			if err := w.idx[i].Put(newKey, e.value()); err != nil {
				return err
			}
		}
	}
	return nil
}

// entryKey returns the key of entry e in index i, numbering its partition
// if need be, and turning a partition of times that cannot hold it into one
// of strings.
func (w *writer) entryKey(i int, e entryRef) ([]byte, error) {
	p, ok := w.parts.get(e.hash)
	if !ok {
		var err error
		if p, err = w.parts.create(e.hash, e.sort); err != nil {
			return nil, err
		}
	}
	if k, ok := p.key(e); ok {
		return k, nil
	}
	p, err := w.toStrings(i, e.hash, p)
	if err != nil {
		return nil, err
	}
	k, _ := p.key(e)
	return k, nil
}

// toStrings rewrites the entries of partition hash of index i, one of
// times, as a partition of strings, and returns it.
func (w *writer) toStrings(i int, hash string, p partition) (partition, error) {
	var refs []entryRef
	var keys, values [][]byte
	c := w.idx[i].Cursor()
	for k, v := c.Seek(p.prefix); k != nil && bytes.HasPrefix(k, p.prefix); k, v = c.Next() {
		sort, ik, ok := p.decode(k)
		if !ok {
			return p, table.Errorf(table.EINTERNAL, "index %s: malformed entry %q", w.t.indexes[i].def.Name, k)
		}
		pk, sk, _ := splitBaseKey(ik)
		refs = append(refs, entryRef{hash: hash, sort: sort, pk: pk, sk: sk})
		keys, values = append(keys, bytes.Clone(k)), append(values, bytes.Clone(v))
	}
	for _, k := range keys {
		if err := w.idx[i].Delete(k); err != nil {
			return p, err
		}
	}
	p.kind = kindStrings
	if err := w.parts.put(hash, p); err != nil {
		return p, err
	}
	for n, e := range refs {
		k, _ := p.key(e)
		if err := w.idx[i].Put(k, values[n]); err != nil {
			return p, err
		}
	}
	return p, nil
}

// existingEntryKey returns the key of the entry of old, a stored item, in
// index i, or nil when it has none.
func (w *writer) existingEntryKey(i int, old table.Item) []byte {
	k, _ := w.existingEntry(i, old)
	return k
}

// existingEntry returns the key of the entry of old, a stored item, in
// index i (nil when it has none) and the entry.
func (w *writer) existingEntry(i int, old table.Item) ([]byte, entryRef) {
	e, ok := w.t.indexes[i].entry(old)
	if !ok {
		return nil, e
	}
	p, ok := w.parts.get(e.hash)
	if !ok {
		return nil, e
	}
	k, _ := p.key(e) // nil when the partition cannot hold it: it is not there
	return k, e
}

// delete removes old, stored at key, and its index entries.
func (w *writer) delete(key []byte, old table.Item) error {
	if err := w.items.Delete(key); err != nil {
		return err
	}
	for i := range w.t.indexes {
		if k := w.existingEntryKey(i, old); k != nil {
			if err := w.idx[i].Delete(k); err != nil {
				return err
			}
		}
	}
	return nil
}

// Write applies ops atomically in one synced write transaction. Every
// condition is evaluated against the state before the write, within the
// transaction; when one fails, nothing is written and the error is
// table.CondFailure's: Op is the index of the first failing operation, the
// code that of its first failing condition (store.ECONFLICT unless the
// condition has its own). More than table.MaxWriteOps operations, two
// operations on one item, or an operation that is malformed is
// store.EINVALID.
func (t *Table) Write(ctx context.Context, ops []table.Op) error {
	defer table.Account(ctx, table.Call{Op: table.CallWrite})
	if err := ctxErr(ctx); err != nil {
		return err
	}
	keys, err := checkWrite(ops)
	if err != nil || len(ops) == 0 {
		return err
	}
	return t.update(func(tx *bbolt.Tx) error {
		w, err := t.newWriter(tx)
		if err != nil {
			return err
		}
		olds, err := w.checkConds(ops, keys)
		if err != nil {
			return err
		}
		for i := range ops {
			if err := w.apply(&ops[i], keys[i], olds[i]); err != nil {
				return prefixed(fmt.Sprintf("operation %d", i), err)
			}
		}
		return nil
	})
}

// checkWrite checks the form of a Write (everything but its conditions)
// and returns the bucket keys of its operations.
func checkWrite(ops []table.Op) ([][]byte, error) {
	if len(ops) > table.MaxWriteOps {
		return nil, table.Errorf(table.EINVALID, "a write has at most %d operations, got %d", table.MaxWriteOps, len(ops))
	}
	keys := make([][]byte, len(ops))
	seen := make(map[table.Key]int, len(ops))
	for i := range ops {
		op := &ops[i]
		if err := table.ValidateOp(*op); err != nil {
			return nil, prefixed(fmt.Sprintf("operation %d", i), err)
		}
		if j, dup := seen[op.Key]; dup {
			return nil, table.Errorf(table.EINVALID, "operations %d and %d address the same item", j, i)
		}
		seen[op.Key] = i
		keys[i] = baseKey(op.Key)
	}
	return keys, nil
}

// checkConds reads the items ops write (nil where absent) and evaluates
// every condition against them, before anything is written.
func (w *writer) checkConds(ops []table.Op, keys [][]byte) ([]table.Item, error) {
	olds := make([]table.Item, len(ops))
	for i := range ops {
		var err error
		if olds[i], err = w.get(keys[i]); err != nil {
			return nil, err
		}
		if !table.CondsHold(ops[i].Conds, olds[i]) {
			return nil, table.CondFailure(i, ops[i].Conds, olds[i], nil)
		}
	}
	return olds, nil
}

// apply writes one operation at key, where old is stored (nil: absent).
func (w *writer) apply(op *table.Op, key []byte, old table.Item) error {
	switch op.Kind {
	case table.OpPut:
		return w.put(key, old, op.Item)
	case table.OpDelete:
		if old == nil {
			return nil
		}
		return w.delete(key, old)
	}
	it, err := applyUpdate(old, op)
	if err != nil {
		return err
	}
	if err := table.ValidateItem(it); err != nil {
		return err
	}
	return w.put(key, old, it)
}

// How full BatchPut packs the pages it splits. Bulk loads come in key
// order (see BatchPut), and later writes mostly append to partitions (new
// comments are the newest), so pages are packed fuller than bbolt's default
// of half: the items bucket, where comments (keyed by ULID) are appended at
// its end, completely; index buckets, where each chunk appends a few
// entries to the end of every partition in the middle of a page, leaving
// room for the next chunks' entries before the page splits again.
const (
	bulkItemsFillPercent = 1.0
	bulkIndexFillPercent = 0.9
)

// BatchPut writes whole items, replacing existing ones (and their index
// entries), a chunk of the batch size at a time, each chunk in one synced
// transaction. The items are all validated first: an invalid one is
// store.EINVALID and nothing is written. Of several items with one key, the
// last is written. A cancelled ctx stops the load between chunks; the chunks
// encoded before (at most two) are still written.
//
// For speed, the chunks are consecutive runs of the input (an import in
// creation order appends comments at the end of the items bucket), each
// chunk's items and index entries are put in key order, so that bbolt
// appends rather than inserts, and the next chunk is encoded while one is
// written.
func (t *Table) BatchPut(ctx context.Context, items []table.Item) error {
	w := t.startWriter() // this call encodes the chunks, the writer commits them
	err := w.put(ctx, items)
	if cerr := w.close(); err == nil {
		err = cerr
	}
	return err
}

// dedupe returns items without those replaced by a later item with the
// same key, in input order.
func dedupe(items []table.Item) []table.Item {
	last := make(map[table.Key]int, len(items))
	for i, it := range items {
		last[it.Key()] = i
	}
	if len(last) == len(items) {
		return items
	}
	out := make([]table.Item, 0, len(last))
	for i, it := range items {
		if last[it.Key()] == i {
			out = append(out, it)
		}
	}
	return out
}

// maxChunkBytes bounds the encoded size of the items of one BatchPut
// transaction, whatever their number.
const maxChunkBytes = 32 << 20

// kv is a key and value to put.
type kv struct{ k, v []byte }

// chunk is a part of a BatchPut, encoded.
type chunk struct {
	t     *Table
	n     int          // items
	base  []kv         // the items, in key order
	index [][]entryRef // per index, the entries, in order (their keys are known only in the write transaction)
}

// encodeChunk encodes items (distinct keys, validated) for one transaction:
// all of them, or as many as make maxChunkBytes.
func (t *Table) encodeChunk(items []table.Item) (*chunk, error) {
	c := &chunk{
		t:     t,
		base:  make([]kv, 0, len(items)),
		index: make([][]entryRef, len(t.indexes)),
	}
	for j := range c.index {
		c.index[j] = make([]entryRef, 0, len(items))
	}
	size := 0
	for _, it := range items {
		if size >= maxChunkBytes {
			break
		}
		v, err := encodeItem(it)
		if err != nil {
			return nil, err
		}
		base := kv{baseKey(it.Key()), v}
		c.base = append(c.base, base)
		size += len(base.k) + len(base.v)
		for j, ix := range t.indexes {
			if e, ok := ix.entry(it); ok {
				c.index[j] = append(c.index[j], e)
				size += len(e.sort) + 4
			}
		}
		c.n++
	}
	slices.SortFunc(c.base, func(a, b kv) int { return bytes.Compare(a.k, b.k) })
	for _, es := range c.index {
		slices.SortFunc(es, func(a, b entryRef) int {
			return cmp.Or(strings.Compare(a.hash, b.hash), strings.Compare(a.sort, b.sort), strings.Compare(a.pk, b.pk), strings.Compare(a.sk, b.sk))
		})
	}
	return c, nil
}

// write writes the chunk in transaction tx: it removes the index entries
// of the items it replaces, then puts the items and the entries in key
// order, so that bbolt mostly appends.
func (c *chunk) write(tx *bbolt.Tx) error {
	w, err := c.t.newWriter(tx)
	if err != nil {
		return err
	}
	w.parts.known = map[string]partition{} // a chunk's entries revisit their partitions
	w.items.FillPercent = bulkItemsFillPercent
	for _, b := range w.idx {
		b.FillPercent = bulkIndexFillPercent
	}
	unchanged := make([]bool, len(c.base)) // a rebuild: the value is already the same
	for i, e := range c.base {
		v := w.items.Get(e.k)
		if v == nil {
			continue
		}
		unchanged[i] = bytes.Equal(v, e.v)
		old, err := decodeItem(e.k, v)
		if err != nil {
			return err
		}
		for j := range c.t.indexes {
			if k := w.existingEntryKey(j, old); k != nil {
				if err := w.idx[j].Delete(k); err != nil {
					return err
				}
			}
		}
	}
	for i, e := range c.base {
		if unchanged[i] {
			continue
		}
		if err := w.items.Put(e.k, e.v); err != nil {
			return err
		}
	}
	for j, es := range c.index {
		for _, e := range es {
			k, err := w.entryKey(j, e)
			if err != nil {
				return err
			}
			if err := w.idx[j].Put(k, e.value()); err != nil {
				return err
			}
		}
	}
	return nil
}
