package bolt

import (
	"errors"
	"io"
	"time"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/acme/comments-gateway/store/table"
)

// Size returns the size of the file as a read transaction sees it: what
// WriteTo writes.
func (t *Table) Size() (int64, error) {
	var n int64
	err := t.view(func(tx *bbolt.Tx) error {
		n = tx.Size()
		return nil
	})
	return n, err
}

// WriteTo writes a consistent copy of the whole file to w, from one read
// transaction: writes go on meanwhile and are not in the copy. The copy is
// a bolt file that Open reads. The size is known before the first byte is
// written: it is the size the function passed to onSize gets (nil: none).
func (t *Table) WriteTo(w io.Writer, onSize func(int64)) (int64, error) {
	var n int64
	err := t.view(func(tx *bbolt.Tx) error {
		if onSize != nil {
			onSize(tx.Size())
		}
		var err error
		n, err = tx.WriteTo(w)
		return err
	})
	return n, err
}

// BackupFile writes a consistent copy of the bolt file at path to w,
// opening it read-only. It fails with store.EUNAVAILABLE when another
// process (a server) holds the file open for writing after waiting
// lockTimeout: ask that process for the copy instead (Table.WriteTo).
func BackupFile(path string, w io.Writer, lockTimeout time.Duration, onSize func(int64)) (int64, error) {
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: lockTimeout})
	if err != nil {
		if errors.Is(err, berrors.ErrTimeout) {
			return 0, table.Wrap(table.EUNAVAILABLE, err, "bolt store %s is held open by another process (a server?)", path)
		}
		return 0, table.Wrap(table.EUNAVAILABLE, err, "cannot open bolt store %s", path)
	}
	defer db.Close()
	t := &Table{db: db, path: path}
	return t.WriteTo(w, onSize)
}
