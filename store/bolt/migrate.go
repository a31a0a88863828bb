package bolt

import (
	"bytes"
	"strings"
	"time"

	"go.etcd.io/bbolt"

	"github.com/acme/comments-gateway/store/table"
)

// migrateChunk is the number of items a migration re-encodes and indexes per
// transaction (fewer when they encode to more than maxChunkBytes): the
// memory of a migration is bounded by it, not by the size of the file.
var migrateChunk = 20000

// rebuildChunkHook, when set (by tests), runs before each chunk of a
// rebuild and may fail it.
var rebuildChunkHook func(done int) error

// fileState is what init reads from the meta bucket.
type fileState struct {
	format    string // "" when the file has no meta bucket
	empty     bool   // no items bucket: a new file
	sigOK     bool   // the index definitions are those of table.AllIndexes
	migrating bool   // a migration or rebuild was interrupted
}

// init creates the buckets of a new file, checks the format of an existing
// one, migrates a file of format 1, and rebuilds the index buckets when the
// index definitions have changed (or a migration was interrupted).
func (t *Table) init() error {
	sig := []byte(signature(table.AllIndexes))
	var st fileState
	err := t.view(func(tx *bbolt.Tx) error {
		st.empty = tx.Bucket(bucketItems) == nil
		if meta := tx.Bucket(bucketMeta); meta != nil {
			st.format = string(meta.Get(metaFormat))
			st.sigOK = bytes.Equal(meta.Get(metaIndexes), sig)
			st.migrating = meta.Get(metaMigrating) != nil
		}
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case st.empty && st.format == "":
		return t.update(func(tx *bbolt.Tx) error { return t.startRebuild(tx, true) })
	case st.format == formatVersion && st.sigOK && !st.migrating:
		return nil
	case st.format != "" && st.format != "1" && st.format != "2" && st.format != "3" && st.format != formatVersion:
		return table.Errorf(table.EINTERNAL, "bolt store %s has format %q; this program reads formats 1 to %s", t.path, st.format, formatVersion)
	}
	return t.rebuild(st)
}

// rebuild re-encodes every item and builds the index buckets anew, a chunk
// of items per transaction, recording its progress in the meta bucket:
// interrupted, it resumes at the next Open. The first transaction already
// marks the file as of the current format (so that an older program
// refuses it rather than read half of it) and drops the old index buckets
// (whose pages the new ones reuse).
func (t *Table) rebuild(st fileState) error {
	start := time.Now()
	what := "rebuilding the indexes of"
	if st.format != formatVersion {
		what = "migrating to format " + formatVersion
	}
	t.log.Info("bolt store: "+what, "path", t.path, "from", st.format, "resuming", st.migrating)
	if !st.migrating {
		if err := t.update(func(tx *bbolt.Tx) error { return t.startRebuild(tx, false) }); err != nil {
			return err
		}
	}
	var n int
	for {
		var done bool
		err := t.update(func(tx *bbolt.Tx) error {
			if rebuildChunkHook != nil {
				if err := rebuildChunkHook(n); err != nil {
					return err
				}
			}
			k, err := t.rebuildChunk(tx)
			n += k
			done = k == 0
			return err
		})
		if err != nil {
			return err
		}
		if done {
			break
		}
		t.log.Info("bolt store: "+what, "path", t.path, "items", n)
	}
	err := t.update(func(tx *bbolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if err := meta.Delete(metaMigrating); err != nil {
			return err
		}
		return meta.Put(metaIndexes, []byte(signature(table.AllIndexes)))
	})
	if err == nil {
		t.log.Info("bolt store: done "+what, "path", t.path, "items", n, "took", time.Since(start).Round(time.Millisecond).String())
	}
	return err
}

// startRebuild drops every index bucket (of any format, and of indexes no
// longer declared) and the partition numbers, creates the buckets of the
// current format empty, and records the format and, unless the file is
// new (done), that a rebuild starts at the first item.
func (t *Table) startRebuild(tx *bbolt.Tx, done bool) error {
	var drop [][]byte
	err := tx.ForEach(func(name []byte, _ *bbolt.Bucket) error {
		if bytes.HasPrefix(name, []byte(indexBucketPrefix)) || bytes.HasPrefix(name, []byte(v1IndexBucketPrefix)) ||
			bytes.Equal(name, bucketPartitions) {
			drop = append(drop, bytes.Clone(name))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, name := range drop {
		if err := tx.DeleteBucket(name); err != nil {
			return err
		}
	}
	for _, name := range [][]byte{bucketItems, bucketPartitions} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	for _, ix := range t.indexes {
		if _, err := tx.CreateBucket(ix.bucket); err != nil {
			return err
		}
	}
	meta, err := tx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return err
	}
	if err := meta.Put(metaFormat, []byte(formatVersion)); err != nil {
		return err
	}
	if done {
		return meta.Put(metaIndexes, []byte(signature(table.AllIndexes)))
	}
	return meta.Put(metaMigrating, []byte{})
}

// rebuildChunk re-encodes and indexes the next chunk of items (giving the
// published comments written before the helpful twins their HSK), and
// returns how many it did (0: none were left).
func (t *Table) rebuildChunk(tx *bbolt.Tx) (int, error) {
	meta := tx.Bucket(bucketMeta)
	next := bytes.Clone(meta.Get(metaMigrating))
	var items []table.Item
	c := tx.Bucket(bucketItems).Cursor()
	for k, v := c.Seek(next); k != nil && len(items) < migrateChunk; k, v = c.Next() {
		it, err := decodeItem(k, v)
		if err != nil {
			return 0, table.Wrap(table.EINTERNAL, err, "migrating item %q", k)
		}
		backfillHSK(it)
		items = append(items, it)
	}
	if len(items) == 0 {
		return 0, nil
	}
	ch, err := t.encodeChunk(items)
	if err != nil {
		return 0, err
	}
	if err := ch.write(tx); err != nil {
		return 0, err
	}
	return ch.n, meta.Put(metaMigrating, append(baseKey(items[ch.n-1].Key()), sep))
}

// backfillHSK gives it, when it is a published comment written before the
// helpful twins (docs/design.md §3.3), the HSK that every published comment
// carries: its helpful count (absent: 0) in 10 digits, "#" and its GSISK.
// A comment is published when it has the public indexes' keys.
func backfillHSK(it table.Item) {
	if _, ok := it[table.AttrHSK]; ok || !strings.HasPrefix(it.S(table.AttrPK), commentPrefix) {
		return
	}
	_, published := it[table.AttrGSI4PK].Str()
	gsisk, ok := it[table.AttrGSISK].Str()
	n, _ := it[table.AttrHelpful].Num()
	if !published || !ok || n < 0 || n > maxCount {
		return
	}
	it[table.AttrHSK] = table.S(string(appendCount(nil, uint64(n))) + gsisk)
}
