package bolt_test

import (
	"path/filepath"
	"testing"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt"
	"github.com/acme/comments-gateway/store/storetest"
)

// TestModel runs the comments model conformance suite on a bbolt file.
func TestModel(t *testing.T) {
	storetest.RunModel(t, func(t *testing.T) store.Table {
		tbl, err := bolt.Open(filepath.Join(t.TempDir(), "model.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tbl.Close() })
		return tbl
	})
}
