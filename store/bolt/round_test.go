package bolt

import (
	"context"
	"reflect"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/acme/comments-gateway/store/storetest"
	"github.com/acme/comments-gateway/store/table"
)

// calls counts the calls a table accounts.
type calls struct {
	mu    sync.Mutex
	n     int
	items int
}

func (c *calls) Account(call table.Call) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	c.items += call.Items
}

// TestQueryRoundIsEachQuery: a round of queries over every partition of
// every index (and a base-table query, and a partition no item was ever
// in), with mixed limits and directions, returns for each query the first
// items of its partition as a recount of the written items projects them,
// a LastKey exactly when more follow, and accounts one call per query.
func TestQueryRoundIsEachQuery(t *testing.T) {
	tbl := MustOpen(t)
	items := comments(60)
	storetest.MustBatchPut(t, tbl, items)
	var qs []table.Query
	var want [][]table.Item
	var more []bool
	for _, def := range table.Indexes {
		parts := projectedPartitions(def, items)
		hashes := make([]string, 0, len(parts))
		for h := range parts {
			hashes = append(hashes, h)
		}
		sort.Strings(hashes)
		for i, h := range hashes {
			q := table.Query{Index: def.Name, HashValue: h, Forward: i%2 == 0, Limit: []int{1, 3, 1000}[i%3]}
			w := slices.Clone(parts[h])
			if !q.Forward {
				slices.Reverse(w)
			}
			qs, want, more = append(qs, q), append(want, w[:min(q.Limit, len(w))]), append(more, len(w) > q.Limit)
		}
	}
	qs = append(qs, table.Query{Index: table.IndexAll, HashValue: "PRODUCT#none", Limit: 5})
	want, more = append(want, []table.Item{}), append(more, false)
	base := items[3]
	qs = append(qs, table.Query{HashValue: base.S(table.AttrPK), Forward: true, Limit: 2})
	want, more = append(want, []table.Item{base}), append(more, false)

	var c calls
	res, err := tbl.QueryRound(table.WithAccountant(context.Background(), &c), qs)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for i, q := range qs {
		if got := res[i].Items; (len(got) > 0 || len(want[i]) > 0) && !reflect.DeepEqual(got, want[i]) {
			t.Fatalf("%+v:\n got %v\nwant %v", q, got, want[i])
		}
		if (res[i].LastKey != nil) != more[i] {
			t.Fatalf("%+v: LastKey %v, want one: %v", q, res[i].LastKey, more[i])
		}
		total += len(want[i])
	}
	if c.n != len(qs) || c.items != total {
		t.Fatalf("accounted %d calls of %d items, want %d calls of %d", c.n, c.items, len(qs), total)
	}
}

// TestQueryRoundFailsWhole: a round with one invalid query fails as
// store.EINVALID and returns no items.
func TestQueryRoundFailsWhole(t *testing.T) {
	tbl := MustOpen(t)
	storetest.MustBatchPut(t, tbl, comments(10))
	qs := []table.Query{
		{Index: table.IndexAll, HashValue: "PRODUCT#p1", Limit: 5},
		{Index: table.IndexAll, HashValue: "PRODUCT#p2", Limit: 0},
	}
	res, err := tbl.QueryRound(context.Background(), qs)
	if table.ErrorCode(err) != table.EINVALID {
		t.Fatalf("err %v, want EINVALID", err)
	}
	for i := range res {
		if len(res[i].Items) != 0 {
			t.Fatalf("query %d returned %d items with the error", i, len(res[i].Items))
		}
	}
}
