package bolttest

import (
	"path/filepath"
	"testing"

	"github.com/acme/comments-gateway/store/bolt"
)

// Open opens a bolt.Table with opts on a new file in tb's temporary
// directory and closes it at the end of tb.
func Open(tb testing.TB, opts ...bolt.Option) *bolt.Table {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "comments.db")
	tbl, err := bolt.Open(path, opts...)
	if err != nil {
		tb.Fatalf("bolt.Open(%s): %v", path, err)
	}
	tb.Cleanup(func() {
		if err := tbl.Close(); err != nil {
			tb.Errorf("closing %s: %v", path, err)
		}
	})
	return tbl
}
