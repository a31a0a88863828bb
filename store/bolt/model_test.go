package bolt_test

import (
	"testing"

	"github.com/acme/comments-gateway/store/bolt/bolttest"
	"github.com/acme/comments-gateway/store/storetest"
	"github.com/acme/comments-gateway/store/table"
)

// TestModel runs the comments model conformance suite on a bbolt file.
func TestModel(t *testing.T) {
	storetest.RunModel(t, func(t *testing.T) table.Table {
		tbl := bolttest.Open(t)
		return tbl
	})
}
