package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt"
	"github.com/acme/comments-gateway/store/dynamo"
	"github.com/acme/comments-gateway/store/dynamo/dynamotest"
	"github.com/acme/comments-gateway/store/table"
)

// TestServeLeavesAnEmptyStoreEmpty: `serve` (production mode) without
// -demo loads no demo data into an empty bbolt file or an empty DynamoDB
// table: it answers from the empty store, and after it stopped the store
// holds nothing but its design record.
func TestServeLeavesAnEmptyStoreEmpty(t *testing.T) {
	check := func(t *testing.T, spec string, open func() (table.Table, error)) {
		s := startServer(t, MustBinary(t), append([]string{"serve", "-addr", "127.0.0.1:0", "-open-mutations"}, serveArgs(spec)...), nil, func(s *Server) { s.Stop(t) })
		var out struct {
			Product     struct{ Stats struct{ Total int } }
			TopProducts []struct{ Rank int }
		}
		MustQuery(t, s, `{ product(id: "espresso-machine") { stats { total } } topProducts(first: 3) { rank } }`, nil, &out)
		if out.Product.Stats.Total != 0 || len(out.TopProducts) != 0 {
			t.Errorf("serve on an empty store answers %+v", out)
		}
		s.Stop(t)
		tbl, err := open()
		if err != nil {
			t.Fatal(err)
		}
		defer tbl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if empty, err := store.New(tbl).IsEmpty(ctx); err != nil || !empty {
			t.Errorf("%s after serve: empty %v, err %v", spec, empty, err)
		}
	}
	t.Run("bolt", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "empty.db")
		check(t, "bolt:"+path, func() (table.Table, error) { return bolt.Open(path) })
	})
	t.Run("dynamodb", func(t *testing.T) {
		client := dynamotest.MustClient(t) // skips without DYNAMODB_ENDPOINT
		name := fmt.Sprintf("empty-%d-%d", os.Getpid(), time.Now().UnixNano())
		spec := "dynamodb:" + name
		MustRun(t, "create-table", "-stream=false", "-store", spec)
		t.Cleanup(func() { deleteTable(t, client, name) })
		check(t, spec, func() (table.Table, error) { return dynamo.New(client, name), nil })
	})
}
