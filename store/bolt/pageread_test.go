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
		{store.AttrPK: store.S("COMMENT#z1"), store.AttrSK: store.S("COMMENT#z1"), store.AttrID: store.S("z1"), store.AttrProductID: store.S("p1"),
			store.AttrCreatedAt: store.S(t1), store.AttrGSISK: store.S(t2 + "#z1"), store.AttrGSI4PK: store.S("PRODUCT#p1"), store.AttrRating: store.N(4)},
		// The time of its sort value, and an id that is not its own.
		{store.AttrPK: store.S("COMMENT#z2"), store.AttrSK: store.S("COMMENT#z2"), store.AttrID: store.S("z2"), store.AttrProductID: store.S("p1"),
			store.AttrCreatedAt: store.S(t1), "updatedAt": store.S(t1), store.AttrGSISK: store.S(t1 + "#other"), store.AttrGSI4PK: store.S("PRODUCT#p1"),
			store.AttrBody: store.S("#")},
		// Other keys, in a partition of times, before and after a
		// comment's.
		{store.AttrPK: store.S("A"), store.AttrSK: store.S("1"), store.AttrGSI4PK: store.S("PRODUCT#p1"), store.AttrGSISK: store.S(t1 + "#c00003"), "count_5": store.N(-7)},
		{store.AttrPK: store.S("ZZ"), store.AttrSK: store.S("1"), store.AttrGSI4PK: store.S("PRODUCT#p1"), store.AttrGSISK: store.S(t1 + "#c00003"), store.AttrTitle: store.S("")},
		// A partition of strings, with a comment's key derived.
		{store.AttrPK: store.S("COMMENT#s1"), store.AttrSK: store.S("COMMENT#s1"), store.AttrGSI4PK: store.S("PRODUCT#s"), store.AttrGSISK: store.S("beta#s1"),
			store.AttrAuthor: store.S("x")},
		{store.AttrPK: store.S("B"), store.AttrSK: store.S("2"), store.AttrGSI4PK: store.S("PRODUCT#s"), store.AttrGSISK: store.S("alpha"), store.AttrLanguage: store.S("de")},
		{store.AttrPK: store.S("C"), store.AttrSK: store.S("3"), store.AttrGSI4PK: store.S("PRODUCT#s"), store.AttrGSISK: store.S("beta#s1")},
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
		h, ok1 := it[def.Hash].Str()
		_, ok2 := it[def.Sort].Str()
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
