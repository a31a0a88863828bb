package bolt

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/store/storetest"
	"github.com/acme/comments-gateway/store/table"
)

// TestQueryMergedIsTheMerge: a merged read of a product's partitions of an
// index (and of one no item was ever in, and of one whose sort values are
// not all times, so held as strings), either direction, from the start or
// past a sort value, returns the first items of their union in the
// merge's order, each in its query's result, the bound exactly when more
// follow, and accounts one call per query with its items.
func TestQueryMergedIsTheMerge(t *testing.T) {
	tbl := MustOpen(t)
	items := append(comments(200), table.Item{table.AttrPK: table.S("X#1"), table.AttrSK: table.S("X#1"),
		table.AttrGSIPK: table.S("PRODUCT#p1/en/1"), table.AttrGSISK: table.S("2025-01-01T01:00:00.000000000Z~")})
	storetest.MustBatchPut(t, tbl, items)
	for _, def := range []table.IndexDef{table.Indexes[0]} {
		parts := projectedPartitions(def, items)
		var hashes []string
		for h := range parts {
			if strings.HasPrefix(h, "PRODUCT#p1/") {
				hashes = append(hashes, h)
			}
		}
		slices.Sort(hashes)
		hashes = append(hashes, "PRODUCT#p1/xx/9")
		var all []table.Item
		for _, h := range hashes {
			all = append(all, parts[h]...)
		}
		slices.SortFunc(all, func(a, b table.Item) int { return strings.Compare(a.S(def.Sort), b.S(def.Sort)) })
		mid := all[len(all)/2].S(def.Sort)
		for _, forward := range []bool{true, false} {
			for _, past := range []bool{false, true} {
				for _, limit := range []int{1, 4, 1000} {
					checkMerged(t, tbl, def, hashes, parts, forward, past, mid, limit)
				}
			}
		}
	}
}

// checkMerged runs one merged read of TestQueryMergedIsTheMerge and checks it.
func checkMerged(t *testing.T, tbl *Table, def table.IndexDef, hashes []string, parts map[string][]table.Item, forward, past bool, mid string, limit int) {
	t.Helper()
	qs := make([]table.Query, len(hashes))
	type owned struct {
		it table.Item
		q  int
	}
	var union []owned
	for i, h := range hashes {
		qs[i] = table.Query{Index: def.Name, HashValue: h, Forward: forward, Limit: 1}
		if past {
			qs[i].SortValue, qs[i].SortOp = mid, table.SortLess
			if forward {
				qs[i].SortOp = table.SortGreater
			}
		}
		for _, it := range parts[h] {
			if s := it.S(def.Sort); !past || forward && s > mid || !forward && s < mid {
				union = append(union, owned{it, i})
			}
		}
	}
	slices.SortFunc(union, func(a, b owned) int {
		c := strings.Compare(a.it.S(def.Sort), b.it.S(def.Sort))
		if !forward {
			c = -c
		}
		return c
	})
	want := make([][]table.Item, len(qs))
	for _, o := range union[:min(limit, len(union))] {
		want[o.q] = append(want[o.q], o.it)
	}
	wantBound := ""
	if limit < len(union) {
		wantBound = union[limit-1].it.S(def.Sort)
	}
	var c calls
	res, bound, err := tbl.QueryMerged(table.WithAccountant(context.Background(), &c), qs, limit)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for i := range qs {
		if len(res[i].Items)+len(want[i]) > 0 && !reflect.DeepEqual(res[i].Items, want[i]) || res[i].LastKey != nil {
			t.Fatalf("%s forward %v past %v limit %d, query %d:\n got %v\nwant %v", def.Name, forward, past, limit, i, res[i].Items, want[i])
		}
		total += len(want[i])
	}
	if bound != wantBound {
		t.Fatalf("%s forward %v past %v limit %d: bound %q, want %q", def.Name, forward, past, limit, bound, wantBound)
	}
	if c.n != len(qs) || c.items != total {
		t.Fatalf("accounted %d calls of %d items, want %d calls of %d", c.n, c.items, len(qs), total)
	}
}

// TestQueryMergedRefuses: queries of two indexes, or of two directions, or
// of a helpful twin (whose queries read two buckets: Merges is false for
// them and true for the public indexes), or a limit below 1, are EINVALID.
func TestQueryMergedRefuses(t *testing.T) {
	tbl := MustOpen(t)
	storetest.MustBatchPut(t, tbl, comments(10))
	for _, def := range table.Indexes {
		if !tbl.Merges(def.Name) {
			t.Errorf("Merges(%s) is false", def.Name)
		}
	}
	for _, def := range table.HelpfulIndexes {
		if tbl.Merges(def.Name) {
			t.Errorf("Merges(%s) is true", def.Name)
		}
		qs := []table.Query{{Index: def.Name, HashValue: "PRODUCT#p1/en/1"}, {Index: def.Name, HashValue: "PRODUCT#p1/en/2"}}
		if _, _, err := tbl.QueryMerged(context.Background(), qs, 3); table.ErrorCode(err) != table.EINVALID {
			t.Errorf("%s: err %v, want EINVALID", def.Name, err)
		}
	}
	for _, qs := range [][]table.Query{
		{{Index: table.IndexAll, HashValue: "PRODUCT#p1"}, {Index: table.IndexByLang, HashValue: "PRODUCT#p1/en"}},
		{{Index: table.IndexAll, HashValue: "PRODUCT#p1"}, {Index: table.IndexAll, HashValue: "PRODUCT#p2", Forward: true}},
		{{HashValue: "COMMENT#c00001"}},
	} {
		if _, _, err := tbl.QueryMerged(context.Background(), qs, 3); table.ErrorCode(err) != table.EINVALID {
			t.Errorf("%+v: err %v, want EINVALID", qs, err)
		}
	}
	if _, _, err := tbl.QueryMerged(context.Background(), []table.Query{{Index: table.IndexAll, HashValue: "PRODUCT#p1"}}, 0); table.ErrorCode(err) != table.EINVALID {
		t.Errorf("limit 0: err %v, want EINVALID", err)
	}
}
