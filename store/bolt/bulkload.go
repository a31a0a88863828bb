package bolt

import "github.com/acme/comments-gateway/store"

var _ store.ExclusiveLoader = (*Table)(nil)

// LoadUnsynced runs fn with the commits of this Table's write transactions
// (and the growth of its file) not synced to disk, then syncs the file once (also when fn fails) and
// syncs every commit again. The file is locked while open, so no other
// process writes meanwhile; a crash of the machine during fn may leave the
// file unreadable (bbolt's commit relies on the sync between the data pages
// and the meta page), which is why store.BulkLoad uses it only on a file
// that held nothing. It must not run while other goroutines write through
// this Table.
func (t *Table) LoadUnsynced(fn func() error) error {
	t.db.NoSync, t.db.NoGrowSync = true, true // growing the file syncs it too
	err := fn()
	t.db.NoSync, t.db.NoGrowSync = false, false
	if serr := t.db.Sync(); serr != nil && err == nil {
		err = wrapErr(serr)
	}
	return err
}
