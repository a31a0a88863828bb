package bolt

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/storetest"
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
	odd := []store.Item{
		// A comment whose sort value is another time than its createdAt.
		{store.AttrPK: "COMMENT#z1", store.AttrSK: "COMMENT#z1", store.AttrID: "z1", store.AttrProductID: "p1",
			store.AttrCreatedAt: t1, store.AttrGSISK: t2 + "#z1", store.AttrGSI4PK: "PRODUCT#p1", store.AttrRating: int64(4)},
		// The time of its sort value, and an id that is not its own.
		{store.AttrPK: "COMMENT#z2", store.AttrSK: "COMMENT#z2", store.AttrID: "z2", store.AttrProductID: "p1",
			store.AttrCreatedAt: t1, "updatedAt": t1, store.AttrGSISK: t1 + "#other", store.AttrGSI4PK: "PRODUCT#p1",
			store.AttrBody: "#"},
		// Other keys, in a partition of times, before and after a
		// comment's.
		{store.AttrPK: "A", store.AttrSK: "1", store.AttrGSI4PK: "PRODUCT#p1", store.AttrGSISK: t1 + "#c00003", "count_5": int64(-7)},
		{store.AttrPK: "ZZ", store.AttrSK: "1", store.AttrGSI4PK: "PRODUCT#p1", store.AttrGSISK: t1 + "#c00003", store.AttrTitle: ""},
		// A partition of strings, with a comment's key derived.
		{store.AttrPK: "COMMENT#s1", store.AttrSK: "COMMENT#s1", store.AttrGSI4PK: "PRODUCT#s", store.AttrGSISK: "beta#s1",
			store.AttrAuthor: "x"},
		{store.AttrPK: "B", store.AttrSK: "2", store.AttrGSI4PK: "PRODUCT#s", store.AttrGSISK: "alpha", store.AttrLanguage: "de"},
		{store.AttrPK: "C", store.AttrSK: "3", store.AttrGSI4PK: "PRODUCT#s", store.AttrGSISK: "beta#s1"},
	}
	items = append(items, odd...)
	storetest.MustBatchPut(t, tbl, items)
	for _, def := range store.Indexes {
		for hash, want := range projectedPartitions(def, items) {
			for _, limit := range []int{1, 3, 1000} {
				for _, fwd := range []bool{true, false} {
					q := store.Query{Index: def.Name, HashValue: hash, Forward: fwd, Limit: limit}
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
func projectedPartitions(def store.IndexDef, items []store.Item) map[string][]store.Item {
	parts := map[string][]store.Item{}
	keep := append([]string{store.AttrPK, store.AttrSK, def.Hash, def.Sort}, def.Projection...)
	for _, it := range items {
		h, ok1 := it[def.Hash].(string)
		_, ok2 := it[def.Sort].(string)
		if !ok1 || !ok2 {
			continue
		}
		p := store.Item{}
		for _, name := range keep {
			if v, ok := it[name]; ok {
				p[name] = v
			}
		}
		parts[h] = append(parts[h], p)
	}
	for _, p := range parts {
		slices.SortFunc(p, func(a, b store.Item) int {
			return cmp.Or(strings.Compare(a.S(def.Sort), b.S(def.Sort)),
				strings.Compare(a.S(store.AttrPK), b.S(store.AttrPK)), strings.Compare(a.S(store.AttrSK), b.S(store.AttrSK)))
		})
	}
	return parts
}
