package bolt

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/store/storetest"
	"github.com/acme/comments-gateway/store/table"
)

// TestIndexPagesAreTheItemsProjected: every index query returns exactly
// the written items of its partition, projected by the index definition
// and in DynamoDB's order, whatever the entry and the value leave out or
// spell out: comments (sort value, table key, hash keys, id and time
// derived), items whose sort value is not the derived one (a time other
// than createdAt's, or the same time and another id), items of other keys
// in a partition of times, and partitions of strings.
func TestIndexPagesAreTheItemsProjected(t *testing.T) {
	tbl := MustOpen(t)
	items := comments(40)
	const t1, t2 = "2025-01-01T00:03:00.000000000Z", "2024-06-01T12:00:00.500000000Z"
	odd := []table.Item{
		// A comment whose sort value is another time than its createdAt.
		{table.AttrPK: table.S("COMMENT#z1"), table.AttrSK: table.S("COMMENT#z1"), table.AttrID: table.S("z1"), table.AttrProductID: table.S("p1"),
			table.AttrCreatedAt: table.S(t1), table.AttrGSISK: table.S(t2 + "#z1"), table.AttrGSI4PK: table.S("PRODUCT#p1"), table.AttrRating: table.N(4)},
		// The time of its sort value, and an id that is not its own.
		{table.AttrPK: table.S("COMMENT#z2"), table.AttrSK: table.S("COMMENT#z2"), table.AttrID: table.S("z2"), table.AttrProductID: table.S("p1"),
			table.AttrCreatedAt: table.S(t1), "updatedAt": table.S(t1), table.AttrGSISK: table.S(t1 + "#other"), table.AttrGSI4PK: table.S("PRODUCT#p1"),
			table.AttrBody: table.S("#")},
		// Other keys, in a partition of times, before and after a
		// comment's.
		{table.AttrPK: table.S("A"), table.AttrSK: table.S("1"), table.AttrGSI4PK: table.S("PRODUCT#p1"), table.AttrGSISK: table.S(t1 + "#c00003"), "count_5": table.N(-7)},
		{table.AttrPK: table.S("ZZ"), table.AttrSK: table.S("1"), table.AttrGSI4PK: table.S("PRODUCT#p1"), table.AttrGSISK: table.S(t1 + "#c00003"), table.AttrTitle: table.S("")},
		// A partition of strings, with a comment's key derived.
		{table.AttrPK: table.S("COMMENT#s1"), table.AttrSK: table.S("COMMENT#s1"), table.AttrGSI4PK: table.S("PRODUCT#s"), table.AttrGSISK: table.S("beta#s1"),
			table.AttrAuthor: table.S("x")},
		{table.AttrPK: table.S("B"), table.AttrSK: table.S("2"), table.AttrGSI4PK: table.S("PRODUCT#s"), table.AttrGSISK: table.S("alpha"), table.AttrLanguage: table.S("de")},
		{table.AttrPK: table.S("C"), table.AttrSK: table.S("3"), table.AttrGSI4PK: table.S("PRODUCT#s"), table.AttrGSISK: table.S("beta#s1")},
	}
	items = append(items, odd...)
	storetest.MustBatchPut(t, tbl, items)
	for _, def := range table.Indexes {
		for hash, want := range projectedPartitions(def, items) {
			for _, limit := range []int{1, 3, 1000} {
				for _, fwd := range []bool{true, false} {
					q := table.Query{Index: def.Name, HashValue: hash, Forward: fwd, Limit: limit}
					got := storetest.MustQueryAll(t, tbl, q)
					w := slices.Clone(want)
					if !fwd {
						slices.Reverse(w)
					}
					if !reflect.DeepEqual(got, w) {
						t.Fatalf("%+v:\n got %v\nwant %v", q, got, w)
					}
				}
			}
		}
	}
}

// projectedPartitions returns the items of each partition of index def:
// the projection of those with a string hash and sort value, in sort
// order, ties by table key.
func projectedPartitions(def table.IndexDef, items []table.Item) map[string][]table.Item {
	parts := map[string][]table.Item{}
	for _, it := range items {
		h, ok1 := it[def.Hash].Str()
		_, ok2 := it[def.Sort].Str()
		if !ok1 || !ok2 {
			continue
		}
		parts[h] = append(parts[h], storetest.Project(&def, it))
	}
	for _, p := range parts {
		slices.SortFunc(p, func(a, b table.Item) int {
			return cmp.Or(strings.Compare(a.S(def.Sort), b.S(def.Sort)),
				strings.Compare(a.S(table.AttrPK), b.S(table.AttrPK)), strings.Compare(a.S(table.AttrSK), b.S(table.AttrSK)))
		})
	}
	return parts
}
