package bolt_test

import (
	"testing"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
	"github.com/acme/comments-gateway/store/storetest"
)

// TestModel runs the comments model conformance suite on a bbolt file.
func TestModel(t *testing.T) {
	storetest.RunModel(t, func(t *testing.T) store.Table {
		tbl := bolttest.Open(t)
		return tbl
	})
}
