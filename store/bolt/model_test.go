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

// remote is a table that hides the bbolt table's Local and QueryRound, so
// the store reads it as it reads DynamoDB: the stats by Query, a merge's
// rounds in parallel.
type remote struct{ table.Table }

// TestModelAsRemote runs the model conformance suite on a bbolt file read
// by the store's remote paths.
func TestModelAsRemote(t *testing.T) {
	storetest.RunModel(t, func(t *testing.T) table.Table { return remote{bolttest.Open(t)} })
}
