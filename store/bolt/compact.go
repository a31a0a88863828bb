package bolt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"go.etcd.io/bbolt"

	"github.com/acme/comments-gateway/store/table"
)

// compactTxSize bounds the bytes of keys and values CompactFile copies per
// write transaction: memory, not the result, depends on it.
const compactTxSize = 64 << 20

// CompactFile rewrites the bolt file at path with every page full: a copy
// of its buckets in key order (bbolt.Compact) into a new file beside it,
// synced, then renamed over path. Pages split by writes in random key order
// (an import of unsorted input, months of writes) are about half full and
// pages freed by deletes stay in the file until then; the copy has neither.
// It rewrites the file only when that frees at least minGain of it (0:
// always), as estimated from the bytes its pages use (slack).
//
// It holds the file's lock throughout, so it fails with store.EUNAVAILABLE
// after lockTimeout when another process (a server) has it open, as Open
// does; a missing file is an error (store.ENOTFOUND), not a new one. It
// returns the file's size before and after (the same when it was left as
// it was). On failure path is unchanged and the new file is removed.
func CompactFile(path string, lockTimeout time.Duration, minGain float64) (before, after int64, err error) {
	if before, err = fileSize(path); err != nil { // bbolt.Open would create it
		return 0, 0, err
	}
	src, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: lockTimeout, FreelistType: bbolt.FreelistMapType})
	if err != nil {
		return 0, 0, openError(path, lockTimeout, err)
	}
	defer src.Close()
	if minGain > 0 {
		free, size, err := slack(src)
		if err != nil {
			return 0, 0, err
		}
		if float64(free) < minGain*float64(size) {
			return before, before, nil
		}
	}
	tmp := fmt.Sprintf("%s.compact-%d", path, os.Getpid())
	if err := compactInto(tmp, src); err != nil {
		os.Remove(tmp)
		return 0, 0, err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return 0, 0, wrapErr(err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return 0, 0, err
	}
	after, err = fileSize(path)
	return before, after, err
}

// slack returns the bytes of db's data that its buckets' pages do not use
// (the free pages and the unused part of every page in use: about what a
// compaction frees) and the size of the data (the file but the room it
// was grown by in advance).
func slack(db *bbolt.DB) (free, size int64, err error) {
	err = db.View(func(tx *bbolt.Tx) error {
		used := int64(0)
		err := tx.ForEach(func(_ []byte, b *bbolt.Bucket) error {
			st := b.Stats()
			used += int64(st.BranchInuse + st.LeafInuse)
			return nil
		})
		size = tx.Size()
		free = size - used
		return err
	})
	return free, size, wrapErr(err)
}

// compactInto copies src into a new bolt file at path and syncs it.
func compactInto(path string, src *bbolt.DB) error {
	dst, err := bbolt.Open(path, 0o600, &bbolt.Options{NoSync: true, NoGrowSync: true, FreelistType: bbolt.FreelistMapType})
	if err != nil {
		return table.Wrap(table.EUNAVAILABLE, err, "cannot create %s", path)
	}
	err = bbolt.Compact(dst, src, compactTxSize)
	if err == nil {
		err = dst.Sync()
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	return wrapErr(err)
}

// fileSize returns the size of the file at path.
func fileSize(path string) (int64, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, table.Wrap(table.ENOTFOUND, err, "no bolt store %s", path)
	}
	if err != nil {
		return 0, wrapErr(err)
	}
	return fi.Size(), nil
}

// syncDir syncs directory dir, so that a rename in it survives a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return wrapErr(err)
	}
	defer d.Close()
	return wrapErr(d.Sync())
}
