package bolt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/acme/comments-gateway/store/table"
)

// Defaults of the Options.
const (
	// DefaultLockTimeout is how long Open waits for the file lock that
	// another process (or another Open of the same file) holds.
	DefaultLockTimeout = 2 * time.Second
	// DefaultBatchSize is the number of items BatchPut writes per
	// transaction (fewer when they encode to more than 32 MiB).
	DefaultBatchSize = 10000
)

// initialMmapSize is the address space bbolt maps at first (not the file
// size): growing the file within it needs no remapping, which would wait
// for the read transactions and copy every node of the writer. 1 GiB on
// 64-bit platforms, as etcd does (it maps 10 GiB).
const initialMmapSize = 1 << (20 + 10*(strconv.IntSize/64))

// Bucket names and meta keys of the file layout (see the package doc).
var (
	bucketItems      = []byte("items")
	bucketMeta       = []byte("meta")
	bucketPartitions = []byte("partitions")
	metaFormat       = []byte("format")
	metaIndexes      = []byte("indexes")
	// metaMigrating is present while Open migrates or rebuilds: the key
	// of the next item to do.
	metaMigrating = []byte("migrating")
)

// formatVersion is the version of the file layout, recorded in the meta
// bucket. Format 1 (index entries holding a copy of the projected item,
// buckets "index:<name>"), format 2 (partitions named by their hash value
// alone, no partitions of counted times, no dictionary codes for HSK and
// helpful: what an older program cannot read) and format 3 (an entry in
// every helpful twin for each comment, voted or not: an older program
// would not find the others, twin.go) are migrated on Open.
const formatVersion = "4"

// Prefixes of the index buckets' names: of formats 2 to 4, and of format 1.
const (
	indexBucketPrefix   = "ix:"
	v1IndexBucketPrefix = "index:"
)

// Table is a table.Table on a bbolt file. It is safe for concurrent use;
// writes are serialised by bbolt, reads run concurrently with them.
type Table struct {
	db        *bbolt.DB
	path      string
	indexes   []*index
	batchSize int
	log       *slog.Logger
	writes    atomic.Uint64 // write transactions ended (Writes)
}

var (
	_ table.Table        = (*Table)(nil)
	_ table.WriteCounter = (*Table)(nil)
)

// index is one index of table.AllIndexes as this store keeps it.
type index struct {
	def    table.IndexDef
	bucket []byte
	// keep are the attributes a query of the index returns: the
	// projection and the key attributes (the table's and the index's);
	// nil (all) for an index projecting ALL.
	keep *projection
	// base is, on a helpful twin, the public index of the same partitions,
	// which holds the twin's entries of comments without a helpful vote
	// (twin.go); nil on the others.
	base *index
	// passes is set on a twin's base: its entries of items outside the
	// twin's zero tail are marked (entryRef.pass).
	passes bool
}

// entry returns the entry of it in the index, or false when it is absent
// from the index (it lacks the hash or the sort attribute) or, on a
// helpful twin, left to its base index (zeroTail). Its hash is the name of
// its partition (partitionName).
func (ix *index) entry(it table.Item) (entryRef, bool) {
	h, ok := it[ix.def.Hash].Str()
	if !ok {
		return entryRef{}, false
	}
	s, ok := it[ix.def.Sort].Str()
	if !ok || ix.base != nil && zeroTail(s, it) {
		return entryRef{}, false
	}
	e := entryRef{hash: partitionName(h, ix.def.Sort), sort: s, pk: it.S(table.AttrPK), sk: it.S(table.AttrSK)}
	if ix.passes {
		hsk, ok := it[table.AttrHSK].Str()
		e.pass = !ok || !zeroTail(hsk, it)
	}
	return e, true
}

// signature describes the index definitions and the layout of their
// entries; the index buckets are rebuilt when it changes.
func signature(defs []table.IndexDef) string {
	var b strings.Builder
	b.WriteString(entryLayout + "\n")
	for _, d := range defs {
		fmt.Fprintf(&b, "%s|%s|%s|%t|%s\n", d.Name, d.Hash, d.Sort, d.ProjectAll, strings.Join(d.Projection, ","))
	}
	return b.String()
}

// entryLayout names what index entries hold beyond their keys: the mark
// of a twin's base index (passValue). A file whose buckets were built
// without it is rebuilt at Open, and rebuilt again by a program that
// does not know it.
const entryLayout = "pass-marks"

type options struct {
	lockTimeout time.Duration
	batchSize   int
	log         *slog.Logger
}

// Option configures Open.
type Option func(*options)

// WithLockTimeout sets how long Open waits for the file lock held by another
// process before it fails with store.EUNAVAILABLE (default
// DefaultLockTimeout). Zero waits forever.
func WithLockTimeout(d time.Duration) Option {
	return func(o *options) { o.lockTimeout = d }
}

// WithBatchSize sets the number of items BatchPut writes per transaction
// (default DefaultBatchSize; fewer when they encode to more than 32 MiB).
// Values below 1 are ignored.
func WithBatchSize(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.batchSize = n
		}
	}
}

// WithLogger sets the logger of the lines Open writes when it migrates a
// file of an earlier format or rebuilds its indexes (default
// slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return func(o *options) { o.log = l }
}

// Open opens the bbolt file at path, creating it (mode 0600) and its buckets
// if need be. The file is locked while open: another Open of it waits for
// the lock at most the lock timeout, then fails with store.EUNAVAILABLE.
func Open(path string, opts ...Option) (*Table, error) {
	o := options{lockTimeout: DefaultLockTimeout, batchSize: DefaultBatchSize, log: slog.Default()}
	for _, opt := range opts {
		opt(&o)
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{
		Timeout:         o.lockTimeout,
		FreelistType:    bbolt.FreelistMapType,
		InitialMmapSize: initialMmapSize,
	})
	if err != nil {
		return nil, openError(path, o.lockTimeout, err)
	}
	t := &Table{db: db, path: path, batchSize: o.batchSize, log: o.log}
	for _, d := range table.AllIndexes {
		ix := &index{def: d, bucket: []byte(indexBucketPrefix + d.Name)}
		if !d.ProjectAll {
			ix.keep = newProjection(append([]string{table.AttrPK, table.AttrSK, d.Hash, d.Sort}, d.Projection...))
		}
		t.indexes = append(t.indexes, ix)
	}
	for _, ix := range t.indexes {
		if ix.base = twinBase(ix.def, t.indexes); ix.base != nil {
			ix.base.passes = true
		}
	}
	if err := t.init(); err != nil {
		db.Close()
		return nil, err
	}
	return t, nil
}

// openError is the store error of bbolt.Open's err on the file at path,
// whose lock it waited for lockTimeout.
func openError(path string, lockTimeout time.Duration, err error) error {
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return table.Wrap(table.EUNAVAILABLE, err,
			"bolt store %s is locked by another process (gave up after %v); stop it or use another file", path, lockTimeout)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrChecksum):
		return table.Wrap(table.EINTERNAL, err, "%s is not a bolt store or is corrupt", path)
	}
	return table.Wrap(table.EUNAVAILABLE, err, "cannot open bolt store %s", path)
}

// Local reports that the table answers in-process, so store.Store reads
// the partitions of a merge one after the other rather than in parallel.
func (t *Table) Local() bool { return true }

// Close closes the file. Calls after Close fail with store.EUNAVAILABLE.
func (t *Table) Close() error {
	return wrapErr(t.db.Close())
}

// Get returns the item with key k, or nil when it does not exist.
func (t *Table) Get(ctx context.Context, k table.Key) (it table.Item, err error) {
	defer func() { table.Account(ctx, table.Call{Op: table.CallGet, Items: table.Found(it)}) }()
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	if err := table.ValidateKey(k); err != nil {
		return nil, err
	}
	key := baseKey(k)
	err = t.view(func(tx *bbolt.Tx) error {
		v := tx.Bucket(bucketItems).Get(key)
		if v == nil {
			return nil
		}
		var err error
		it, err = decodeItem(key, v)
		return err
	})
	return it, err
}

// BatchGet returns the items of keys, aligned with keys (nil where an item
// does not exist), read in one transaction.
func (t *Table) BatchGet(ctx context.Context, keys []table.Key) (out []table.Item, err error) {
	defer func() { table.Account(ctx, table.Call{Op: table.CallBatchGet, Items: table.Found(out...)}) }()
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	bkeys := make([][]byte, len(keys))
	for i, k := range keys {
		if err := table.ValidateKey(k); err != nil {
			return nil, err
		}
		bkeys[i] = baseKey(k)
	}
	out = make([]table.Item, len(keys))
	err = t.view(func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketItems).Cursor() // one cursor for every key
		for i, k := range bkeys {
			if fk, v := c.Seek(k); v != nil && bytes.Equal(fk, k) {
				it, err := decodeItem(k, v)
				if err != nil {
					return err
				}
				out[i] = it
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// view runs fn in a read transaction and translates its error.
func (t *Table) view(fn func(*bbolt.Tx) error) error {
	return wrapErr(t.db.View(fn))
}

// update runs fn in a write transaction, synced to disk on commit, and
// translates its error; the transaction is counted (Writes) after it ends.
func (t *Table) update(fn func(*bbolt.Tx) error) error {
	err := wrapErr(t.db.Update(fn))
	t.writes.Add(1)
	return err
}

// Writes returns how many write transactions the Table has ended
// (table.WriteCounter): each is counted after its commit, before the write
// returns to its caller, and every write to the file goes through this
// Table (bbolt locks the file against other writers).
func (t *Table) Writes() uint64 { return t.writes.Load() }
