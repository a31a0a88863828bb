package storetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
)

// Run is the conformance suite of store.Table: every backend's tests call
// it. newTable must return a new, empty table on each call and arrange its
// cleanup (t.Cleanup); it is called once per subtest, from parallel
// subtests. The suite uses nothing but the Table interface.
func Run(t *testing.T, newTable func(t *testing.T) store.Table) {
	tests := []struct {
		name string
		fn   func(t *testing.T, tbl store.Table)
	}{
		{"GetPut", tableGetPut},
		{"ValueTypes", tableValueTypes},
		{"BatchGet", tableBatchGet},
		{"QueryBaseTable", tableQueryBase},
		{"QueryLimits", tableQueryLimits},
		{"QueryInvalid", tableQueryInvalid},
		{"Projection", tableProjection},
		{"Sparse", tableSparse},
		{"WriteAtomic", tableWriteAtomic},
		{"Conditions", tableConditions},
		{"CondCode", tableCondCode},
		{"Update", tableUpdate},
		{"Delete", tableDelete},
		{"WriteInvalid", tableWriteInvalid},
		{"ConcurrentAdd", tableConcurrentAdd},
		{"BatchPut", tableBatchPut},
		{"Scan", tableScan},
		{"ScanEmpty", tableScanEmpty},
		{"Cancelled", tableCancelled},
		{"Accounting", tableAccounting},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newTable(t))
		})
	}
	t.Run("QueryIndex", func(t *testing.T) {
		t.Parallel()
		for _, d := range store.Indexes {
			t.Run(d.Name, func(t *testing.T) {
				t.Parallel()
				tableQueryIndex(t, newTable(t), d.Name)
			})
		}
	})
}

// put is one OpPut of it.
func putOp(it store.Item, conds ...store.Cond) store.Op {
	return store.Op{Kind: store.OpPut, Key: it.Key(), Item: it, Conds: conds}
}

func mkKey(pk, sk string) store.Key { return store.Key{PK: pk, SK: sk} }

func tableGetPut(t *testing.T, tbl store.Table) {
	it := store.Item{
		store.AttrPK: store.S("G"), store.AttrSK: store.S("1"),
		"s": store.S("héllo 世界"), "empty": store.S(""), "zero": store.N(0), "neg": store.N(-42),
		"max": store.N(math.MaxInt64), "min": store.N(math.MinInt64),
	}
	MustWrite(t, tbl, putOp(it))
	got := MustGet(t, tbl, mkKey("G", "1"))
	if !reflect.DeepEqual(got, it) {
		t.Fatalf("Get = %v, want %v", got, it)
	}
	// The item returned is the caller's.
	got["s"] = store.S("changed")
	if again := MustGet(t, tbl, mkKey("G", "1")); !reflect.DeepEqual(again, it) {
		t.Errorf("changing a returned item changed the table: %v", again)
	}
	for _, k := range []store.Key{mkKey("G", "2"), mkKey("G2", "1"), mkKey("G", "1x"), mkKey("GG", "1")} {
		if got := MustGet(t, tbl, k); got != nil {
			t.Errorf("Get(%v) of a missing item = %v", k, got)
		}
	}
	// A put replaces the whole item; the table keeps no reference to the
	// caller's item.
	it2 := store.Item{store.AttrPK: store.S("G"), store.AttrSK: store.S("1"), "s": store.S("other")}
	MustWrite(t, tbl, putOp(it2))
	it2["s"] = store.S("mutated after the write")
	if got := MustGet(t, tbl, mkKey("G", "1")); !reflect.DeepEqual(got, store.Item{store.AttrPK: store.S("G"), store.AttrSK: store.S("1"), "s": store.S("other")}) {
		t.Errorf("after replacing put, Get = %v", got)
	}
}

func tableValueTypes(t *testing.T, tbl store.Table) {
	ctx := t.Context()
	// The zero Value is the one value a typed item can hold but not store.
	for i, v := range []store.Value{{}} {
		k := mkKey("V", fmt.Sprint(i))
		it := store.Item{store.AttrPK: store.S(k.PK), store.AttrSK: store.S(k.SK), "bad": v}
		if err := tbl.Write(ctx, []store.Op{putOp(it)}); err == nil {
			t.Errorf("put of a %v value: no error", v.Kind())
		}
		if err := tbl.BatchPut(ctx, []store.Item{it}); err == nil {
			t.Errorf("BatchPut of a %v value: no error", v.Kind())
		}
		if err := tbl.Write(ctx, []store.Op{{Kind: store.OpUpdate, Key: k, Set: store.Item{"bad": v}}}); err == nil {
			t.Errorf("update setting a %v value: no error", v.Kind())
		}
		if got := MustGet(t, tbl, k); got != nil {
			t.Errorf("an item with a %v value was stored: %v", v.Kind(), got)
		}
	}
}

func tableBatchGet(t *testing.T, tbl store.Table) {
	const n = 150
	var items []store.Item
	for i := range n {
		if i%3 != 0 {
			items = append(items, store.Item{store.AttrPK: store.S(fmt.Sprintf("B#%03d", i)), store.AttrSK: store.S("x"), "i": store.N(int64(i))})
		}
	}
	MustBatchPut(t, tbl, items)
	// More keys than one DynamoDB BatchGetItem takes, in an order unlike
	// the table's, with missing ones throughout.
	var keys []store.Key
	for i := n - 1; i >= 0; i-- {
		keys = append(keys, mkKey(fmt.Sprintf("B#%03d", i), "x"))
		if i%10 == 0 {
			keys = append(keys, mkKey(fmt.Sprintf("B#%03d", i), "y"))
		}
	}
	got := MustBatchGet(t, tbl, keys)
	for j, k := range keys {
		var i int
		fmt.Sscanf(k.PK, "B#%d", &i)
		want := i%3 != 0 && k.SK == "x"
		switch {
		case want && got[j] == nil:
			t.Errorf("BatchGet[%d] (%v) = nil", j, k)
		case !want && got[j] != nil:
			t.Errorf("BatchGet[%d] (%v) = %v, want nil", j, k, got[j])
		case want && (got[j].Key() != k || got[j].N("i") != int64(i)):
			t.Errorf("BatchGet[%d] (%v) = %v: not aligned", j, k, got[j])
		}
	}
	if got, err := tbl.BatchGet(t.Context(), nil); err != nil || len(got) != 0 {
		t.Errorf("BatchGet(no keys) = %v, %v", got, err)
	}
}

// checkPartition runs queries on the partition hash of index ("": base
// table) of a table holding exactly items, both directions, and compares
// them with the model: with no sort condition, and when full with every
// kind of condition on values taken from the partition (its first, middle
// and last sort values, values between them and outside).
func checkPartition(t *testing.T, tbl store.Table, items []store.Item, index, hash string, full bool) {
	t.Helper()
	base := store.Query{Index: index, HashValue: hash, Forward: true, Limit: 1000}
	type cond struct {
		op store.SortOp
		v  string
	}
	conds := []cond{{store.SortNone, ""}}
	if sorts := sortValues(expectQuery(items, base), index); full && len(sorts) > 0 {
		first, mid, last := sorts[0], sorts[len(sorts)/2], sorts[len(sorts)-1]
		for _, v := range []string{first, mid, mid + "!", last, "0"} {
			conds = append(conds, cond{store.SortLess, v}, cond{store.SortGreater, v})
		}
		for _, v := range []string{mid[:1], mid[:min(9, len(mid))], mid, mid + "!"} {
			conds = append(conds, cond{store.SortBeginsWith, v})
		}
	}
	for _, c := range conds {
		for _, fwd := range []bool{true, false} {
			q := base
			q.SortOp, q.SortValue, q.Forward = c.op, c.v, fwd
			sameItems(t, describeQuery(q), MustQueryAll(t, tbl, q), expectQuery(items, q))
		}
	}
}

func tableQueryBase(t *testing.T, tbl store.Table) {
	items := fixtureItems()
	MustBatchPut(t, tbl, items)
	for _, h := range []string{"T", "T#", "TA", store.ProductPK("p1"), store.ProductPK("p10"), "COMMENT#c0007"} {
		checkPartition(t, tbl, items, "", h, true)
	}
	// Missing partitions, one a prefix of existing ones.
	for _, h := range []string{"U", "T#x", "COMMENT#c999", "PRODUCT#p"} {
		checkPartition(t, tbl, items, "", h, false)
	}
	// The per-language stats of a product: the query of Product.languages.
	q := store.Query{HashValue: store.ProductPK("p1"), SortOp: store.SortBeginsWith, SortValue: store.StatsLangPrefix, Forward: true, Limit: 2}
	got := MustQueryAll(t, tbl, q)
	if sameItems(t, describeQuery(q), got, expectQuery(items, q)) && len(got) != 3 {
		t.Errorf("product p1 has stats for %d languages, want 3", len(got))
	}
}

func tableQueryIndex(t *testing.T, tbl store.Table, index string) {
	items := fixtureItems()
	MustBatchPut(t, tbl, items)
	hashes := partitions(items, index)
	if len(hashes) == 0 {
		t.Fatalf("no partition of %s in the data set", index)
	}
	for i, h := range hashes {
		checkPartition(t, tbl, items, index, h, i < 3 || i%5 == 0)
	}
	// Missing partitions, one of them a prefix of existing ones.
	for _, h := range []string{"PRODUCT#", "PRODUCT#p", "PRODUCT#p3", "nothing"} {
		checkPartition(t, tbl, items, index, h, false)
	}
}

// pickPartition returns the largest partition of index with at most max
// items.
func pickPartition(t *testing.T, items []store.Item, index string, max int) string {
	t.Helper()
	best, n := "", 0
	for _, h := range partitions(items, index) {
		if m := len(expectQuery(items, store.Query{Index: index, HashValue: h})); m <= max && m > n {
			best, n = h, m
		}
	}
	if n < 3 {
		t.Fatalf("no partition of index %q has 3 to %d items", index, max)
	}
	return best
}

func tableQueryLimits(t *testing.T, tbl store.Table) {
	items := fixtureItems()
	MustBatchPut(t, tbl, items)
	for _, index := range append([]string{""}, indexNames()...) {
		h := pickPartition(t, items, index, 25)
		for _, fwd := range []bool{true, false} {
			q := store.Query{Index: index, HashValue: h, Forward: fwd}
			want := expectQuery(items, q)
			// Every limit from 1 to past the partition's size: pages follow
			// each other exactly, without gaps or duplicates.
			for limit := 1; limit <= len(want)+1; limit++ {
				q.Limit = limit
				sameItems(t, describeQuery(q), MustQueryAll(t, tbl, q), want)
			}
			// The first page holds the first items; its LastKey continues
			// right after the last.
			q.Limit = 2
			first := MustQuery(t, tbl, q)
			sameItems(t, describeQuery(q)+" first page", first.Items, want[:2])
			if first.LastKey == nil {
				t.Fatalf("%s: nil LastKey with %d items in the partition", describeQuery(q), len(want))
			}
			q.StartKey = first.LastKey
			sameItems(t, describeQuery(q)+" continued", MustQueryAll(t, tbl, q), want[2:])
			q.StartKey = nil

			// Pages with every kind of sort condition.
			sorts := sortValues(want, index)
			slices.Sort(sorts)
			mid := sorts[len(sorts)/2]
			for _, c := range []struct {
				op store.SortOp
				v  string
			}{
				{store.SortLess, mid}, {store.SortGreater, sorts[1]}, {store.SortBeginsWith, mid[:min(9, len(mid))]},
			} {
				q.SortOp, q.SortValue = c.op, c.v
				wantc := expectQuery(items, q)
				for _, limit := range []int{1, 2, 3, len(wantc)} {
					q.Limit = max(limit, 1)
					sameItems(t, describeQuery(q), MustQueryAll(t, tbl, q), wantc)
				}
			}
		}
	}
}

func indexNames() []string {
	var out []string
	for _, d := range store.Indexes {
		out = append(out, d.Name)
	}
	return out
}

func tableQueryInvalid(t *testing.T, tbl store.Table) {
	ctx := t.Context()
	MustPut(t, tbl, store.Item{store.AttrPK: store.S("Q"), store.AttrSK: store.S("1")})
	for _, q := range []store.Query{
		{HashValue: "Q", Limit: 0},
		{HashValue: "Q", Limit: -1},
		{Index: store.IndexAll, HashValue: "Q", Limit: 0},
		{Index: "noSuchIndex", HashValue: "Q", Limit: 10},
	} {
		_, err := tbl.Query(ctx, q)
		if store.ErrorCode(err) != store.EINVALID {
			t.Errorf("%s: error %v, want code %s", describeQuery(q), err, store.EINVALID)
		}
	}
}

// checkKeys compares the keys of a whole partition, both directions, with
// want (ascending).
func checkKeys(t *testing.T, tbl store.Table, index, hash string, want ...store.Key) {
	t.Helper()
	for _, fwd := range []bool{true, false} {
		q := store.Query{Index: index, HashValue: hash, Forward: fwd, Limit: 100}
		got := MustQueryAll(t, tbl, q)
		keys := make([]store.Key, len(got))
		for i, it := range got {
			keys[i] = it.Key()
		}
		w := slices.Clone(want)
		if !fwd {
			slices.Reverse(w)
		}
		if !slices.Equal(keys, w) && (len(keys) > 0 || len(w) > 0) {
			t.Errorf("%s: keys %v, want %v", describeQuery(q), keys, w)
		}
	}
}

func tableProjection(t *testing.T, tbl store.Table) {
	c := fixtureComments(1, 7)[0]
	c.Version = 7
	ci := c.Item()
	st := &store.Stats{ProductID: c.ProductID, Counts: [6]int64{0, 1, 0, 0, 0, 3}, Total: 4}
	si := st.Item()
	si[store.AttrGSIPK], si[store.AttrGSISK] = store.S(store.LeadersPK("")), store.S(store.LeadersSK(3, c.ProductID)) // a leaderboard entry
	MustPut(t, tbl, ci, si)
	for _, d := range store.Indexes {
		q := store.Query{Index: d.Name, HashValue: ci.S(d.Hash), Forward: true, Limit: 10}
		got := MustQueryAll(t, tbl, q)
		if len(got) != 1 {
			t.Fatalf("%s: %d items, want 1", describeQuery(q), len(got))
		}
		sameItems(t, describeQuery(q), got, []store.Item{project(&d, ci)})
		for _, a := range []string{store.AttrPK, store.AttrSK, d.Hash, d.Sort, store.AttrID, store.AttrBody, store.AttrRating, store.AttrCreatedAt} {
			if _, ok := got[0][a]; !ok {
				t.Errorf("index %s: projected attribute %s missing: %v", d.Name, a, got[0])
			}
		}
		if _, ok := got[0][store.AttrVersion]; ok {
			t.Errorf("index %s: attribute %s is not projected but present", d.Name, store.AttrVersion)
		}
		for _, other := range store.Indexes {
			if _, ok := got[0][other.Hash]; ok && other.Hash != d.Hash {
				t.Errorf("index %s: hash attribute %s of index %s present", d.Name, other.Hash, other.Name)
			}
		}
	}
	// The base table has everything.
	q := store.Query{HashValue: ci.S(store.AttrPK), Forward: true, Limit: 10}
	sameItems(t, describeQuery(q), MustQueryAll(t, tbl, q), []store.Item{ci})
	// The leaderboard entry has count_5 and not the other counters.
	q = store.Query{Index: store.IndexByLangAndRating, HashValue: store.LeadersPK(""), Limit: 10}
	got := MustQueryAll(t, tbl, q)
	if len(got) != 1 || got[0].N(store.AttrCount(5)) != 3 {
		t.Fatalf("%s = %v, want the stats with count_5 = 3", describeQuery(q), got)
	}
	for _, a := range []string{store.AttrCount(1), store.AttrCountTotal} {
		if _, ok := got[0][a]; ok {
			t.Errorf("leaderboard entry has unprojected %s: %v", a, got[0])
		}
	}
}

// tableSparse checks that the indexes are sparse: an item is in an index
// while it has both key attributes of the index, and updates, puts and
// deletes move it in and out.
func tableSparse(t *testing.T, tbl store.Table) {
	at := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	comment := func(id string, at time.Time) store.Item {
		c := store.Comment{ID: id, ProductID: "p1", Language: "en", Rating: 5, Author: "a", Title: "t", Body: "b", CreatedAt: at}
		return c.Item()
	}
	x := sparseItems{c1: comment("s1", at), c2: comment("s2", at.Add(time.Hour))}
	x.k1, x.k2 = x.c1.Key(), x.c2.Key()
	x.all, x.byLang, x.byRating, x.byLR = x.c1.S(store.AttrGSI4PK), x.c1.S(store.AttrGSI2PK), x.c1.S(store.AttrGSI3PK), x.c1.S(store.AttrGSIPK)
	delete(x.c2, store.AttrGSI2PK) // c2 is in no byLang partition
	// An item with index hash attributes but no sort attribute is in no
	// index.
	noSort := store.Item{store.AttrPK: store.S("X"), store.AttrSK: store.S("X"), store.AttrGSI4PK: store.S(x.all), store.AttrGSIPK: store.S(x.byLR)}
	MustPut(t, tbl, x.c1, x.c2, noSort)
	checkKeys(t, tbl, store.IndexAll, x.all, x.k1, x.k2)
	checkKeys(t, tbl, store.IndexByLang, x.byLang, x.k1)
	checkKeys(t, tbl, store.IndexByRating, x.byRating, x.k1, x.k2)
	checkKeys(t, tbl, store.IndexByLangAndRating, x.byLR, x.k1, x.k2)
	moved := checkSparseUpdates(t, tbl, x)
	checkSparsePutAndDelete(t, tbl, x, moved)
	checkSparseLeaderboard(t, tbl)
}

// sparseItems are the two comments of tableSparse, their keys, and their
// index partitions.
type sparseItems struct {
	c1, c2                      store.Item
	k1, k2                      store.Key
	all, byLang, byRating, byLR string
}

// checkSparseUpdates checks that an update's REMOVE of a hash attribute
// takes an item out of that index only, and SETs of the hash and sort
// attributes move, reorder and put it back. It returns the byRating
// partition that c1 moved to.
func checkSparseUpdates(t *testing.T, tbl store.Table, x sparseItems) (moved string) {
	// REMOVE of the hash attribute takes the item out of that index only.
	MustWrite(t, tbl, store.Op{Kind: store.OpUpdate, Key: x.k1, Remove: []string{store.AttrGSIPK}})
	checkKeys(t, tbl, store.IndexByLangAndRating, x.byLR, x.k2)
	checkKeys(t, tbl, store.IndexByLang, x.byLang, x.k1)
	checkKeys(t, tbl, store.IndexAll, x.all, x.k1, x.k2)
	if got := MustGet(t, tbl, x.k1); got == nil || got[store.AttrGSIPK].Kind() != store.KindNone {
		t.Errorf("after REMOVE GSIPK, Get = %v", got)
	}

	// SET of another hash value moves it.
	moved = store.ProductPK("p1") + "/9"
	MustWrite(t, tbl, store.Op{Kind: store.OpUpdate, Key: x.k1, Set: store.Item{store.AttrGSI3PK: store.S(moved)}})
	checkKeys(t, tbl, store.IndexByRating, moved, x.k1)
	checkKeys(t, tbl, store.IndexByRating, x.byRating, x.k2)

	// SET of the sort value reorders it; SET of the hash attribute puts it
	// back into the index.
	early, late := "2000-01-01T00:00:00.000000000Z#x", "2100-01-01T00:00:00.000000000Z#x"
	MustWrite(t, tbl,
		store.Op{Kind: store.OpUpdate, Key: x.k1, Set: store.Item{store.AttrGSISK: store.S(late), store.AttrGSIPK: store.S("SPARSE#back")}},
		store.Op{Kind: store.OpUpdate, Key: x.k2, Set: store.Item{store.AttrGSISK: store.S(early)}},
	)
	checkKeys(t, tbl, store.IndexAll, x.all, x.k2, x.k1)
	checkKeys(t, tbl, store.IndexByLangAndRating, "SPARSE#back", x.k1)
	checkKeys(t, tbl, store.IndexByLangAndRating, x.byLR, x.k2)
	q := store.Query{Index: store.IndexAll, HashValue: x.all, SortOp: store.SortLess, SortValue: "2050", Limit: 10}
	if got := MustQueryAll(t, tbl, q); len(got) != 1 || got[0].Key() != x.k2 {
		t.Errorf("%s = %s, want only %v", describeQuery(q), keyStrings(got), x.k2)
	}
	return moved
}

// checkSparsePutAndDelete checks that a put replacing c2 replaces its index
// entries, and a delete of c1 takes it out of every index.
func checkSparsePutAndDelete(t *testing.T, tbl store.Table, x sparseItems, moved string) {
	// A put that replaces the item replaces its index entries.
	c2b := maps.Clone(x.c2)
	c2b[store.AttrGSI4PK] = store.S(store.ProductPK("p9"))
	delete(c2b, store.AttrGSI3PK)
	MustPut(t, tbl, c2b)
	checkKeys(t, tbl, store.IndexAll, x.all, x.k1)
	checkKeys(t, tbl, store.IndexAll, store.ProductPK("p9"), x.k2)
	checkKeys(t, tbl, store.IndexByRating, x.byRating)

	// A delete takes it out of every index.
	MustWrite(t, tbl, store.Op{Kind: store.OpDelete, Key: x.k1})
	checkKeys(t, tbl, store.IndexAll, x.all)
	checkKeys(t, tbl, store.IndexByLangAndRating, "SPARSE#back")
	checkKeys(t, tbl, store.IndexByLang, x.byLang)
	checkKeys(t, tbl, store.IndexByRating, moved)
}

// checkSparseLeaderboard checks that stats enter the leaderboard with their
// keys and leave without.
func checkSparseLeaderboard(t *testing.T, tbl store.Table) {
	sk := store.StatsKey("p1", "")
	MustWrite(t, tbl, store.Op{Kind: store.OpUpdate, Key: sk, Add: map[string]int64{store.AttrCount(4): 1}})
	checkKeys(t, tbl, store.IndexByLangAndRating, store.LeadersPK(""))
	MustWrite(t, tbl, store.Op{Kind: store.OpUpdate, Key: sk, Add: map[string]int64{store.AttrCount(5): 1},
		Set: store.Item{store.AttrGSIPK: store.S(store.LeadersPK("")), store.AttrGSISK: store.S(store.LeadersSK(1, "p1"))}})
	checkKeys(t, tbl, store.IndexByLangAndRating, store.LeadersPK(""), sk)
	MustWrite(t, tbl, store.Op{Kind: store.OpUpdate, Key: sk, Add: map[string]int64{store.AttrCount(5): -1},
		Remove: []string{store.AttrGSIPK, store.AttrGSISK}})
	checkKeys(t, tbl, store.IndexByLangAndRating, store.LeadersPK(""))
}

func tableWriteAtomic(t *testing.T, tbl store.Table) {
	a := store.Item{store.AttrPK: store.S("W"), store.AttrSK: store.S("A"), "n": store.N(1), store.AttrGSI4PK: store.S("W"), store.AttrGSISK: store.S("1")}
	c := store.Item{store.AttrPK: store.S("W"), store.AttrSK: store.S("C"), "n": store.N(3)}
	d := store.Item{store.AttrPK: store.S("W"), store.AttrSK: store.S("D")}
	MustPut(t, tbl, a, c, d)
	b := store.Item{store.AttrPK: store.S("W"), store.AttrSK: store.S("B"), store.AttrGSI4PK: store.S("W"), store.AttrGSISK: store.S("2")}
	ops := []store.Op{
		putOp(b),
		{Kind: store.OpUpdate, Key: a.Key(), Add: map[string]int64{"n": 5}, Set: store.Item{store.AttrGSI4PK: store.S("W2")}},
		putOp(store.Item{store.AttrPK: store.S("W"), store.AttrSK: store.S("C"), "n": store.N(30)}, store.Cond{Kind: store.CondNotExists}),
		{Kind: store.OpDelete, Key: d.Key()},
	}
	err := tbl.Write(t.Context(), ops)
	if e := MustErrorCode(t, err, store.ECONFLICT); e.Op != 2 {
		t.Errorf("the failed condition is reported on operation %d, want 2", e.Op)
	}
	checkWriteNotApplied(t, tbl, a, b, c, d)

	// Of several failing operations, the first is reported.
	failing := slices.Clone(ops)
	failing[1].Conds = []store.Cond{{Kind: store.CondEquals, Attr: "n", Value: store.N(2)}}
	failing[3].Conds = []store.Cond{{Kind: store.CondNotExists}}
	if e := MustErrorCode(t, tbl.Write(t.Context(), failing), store.ECONFLICT); e.Op != 1 {
		t.Errorf("with operations 1, 2 and 3 failing, operation %d is reported, want 1", e.Op)
	}
	failing = slices.Clone(ops)
	failing[0].Conds = []store.Cond{{Kind: store.CondExists}}
	if e := MustErrorCode(t, tbl.Write(t.Context(), failing[:1]), store.ECONFLICT); e.Op != 0 {
		t.Errorf("with operation 0 failing, operation %d is reported", e.Op)
	}
	checkWriteNotApplied(t, tbl, a, b, c, d)

	// Without the failing condition, everything applies at once.
	ops[2].Conds = nil
	MustWrite(t, tbl, ops...)
	a2 := maps.Clone(a)
	a2["n"], a2[store.AttrGSI4PK] = store.N(6), store.S("W2")
	for _, want := range []store.Item{a2, b, {store.AttrPK: store.S("W"), store.AttrSK: store.S("C"), "n": store.N(30)}} {
		if got := MustGet(t, tbl, want.Key()); !reflect.DeepEqual(got, want) {
			t.Errorf("after the write, %s = %v, want %v", keyString(want), got, want)
		}
	}
	if got := MustGet(t, tbl, d.Key()); got != nil {
		t.Errorf("after the write, deleted %s exists", keyString(d))
	}
	checkKeys(t, tbl, store.IndexAll, "W", b.Key())
	checkKeys(t, tbl, store.IndexAll, "W2", a.Key())
}

// checkWriteNotApplied checks that a failed write of tableWriteAtomic left
// a, c and d as they were, b absent, and a in the index partition "W".
func checkWriteNotApplied(t *testing.T, tbl store.Table, a, b, c, d store.Item) {
	t.Helper()
	for _, want := range []store.Item{a, c, d} {
		if got := MustGet(t, tbl, want.Key()); !reflect.DeepEqual(got, want) {
			t.Errorf("after a failed write, %s = %v, want %v", keyString(want), got, want)
		}
	}
	if got := MustGet(t, tbl, b.Key()); got != nil {
		t.Errorf("after a failed write, %s exists: %v", keyString(b), got)
	}
	checkKeys(t, tbl, store.IndexAll, "W", a.Key())
	checkKeys(t, tbl, store.IndexAll, "W2")
}

// tableConditions writes, to an item that exists or not, one operation
// with conditions, and checks that it applies exactly when they hold.
func tableConditions(t *testing.T, tbl store.Table) {
	cases := conditionCases()
	var setup []store.Item
	for i, c := range cases {
		if c.exists {
			setup = append(setup, store.Item{store.AttrPK: store.S("C"), store.AttrSK: store.S(fmt.Sprint(i)), "s": store.S("a"), "n": store.N(3), "z": store.N(0), "e": store.S("")})
		}
	}
	MustPut(t, tbl, setup...)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkCondition(t, tbl, mkKey("C", fmt.Sprint(i)), c) })
	}
}

// conditionCase is one conditional write of tableConditions.
type conditionCase struct {
	name   string
	exists bool // the item exists before the write
	kind   store.OpKind
	conds  []store.Cond
	ok     bool
}

// conditionCases are the writes of tableConditions: every condition kind on
// an item that exists or not, several conditions at once, and conditions
// on puts and deletes.
func conditionCases() []conditionCase {
	const absent = "zz"
	return []conditionCase{
		{"exists/present", true, store.OpUpdate, []store.Cond{{Kind: store.CondExists}}, true},
		{"exists/absent", false, store.OpUpdate, []store.Cond{{Kind: store.CondExists}}, false},
		{"notExists/present", true, store.OpUpdate, []store.Cond{{Kind: store.CondNotExists}}, false},
		{"notExists/absent", false, store.OpUpdate, []store.Cond{{Kind: store.CondNotExists}}, true},
		{"equals/string", true, store.OpUpdate, []store.Cond{{Kind: store.CondEquals, Attr: "s", Value: store.S("a")}}, true},
		{"equals/otherString", true, store.OpUpdate, []store.Cond{{Kind: store.CondEquals, Attr: "s", Value: store.S("b")}}, false},
		{"equals/number", true, store.OpUpdate, []store.Cond{{Kind: store.CondEquals, Attr: "n", Value: store.N(3)}}, true},
		{"equals/otherNumber", true, store.OpUpdate, []store.Cond{{Kind: store.CondEquals, Attr: "n", Value: store.N(4)}}, false},
		{"equals/zero", true, store.OpUpdate, []store.Cond{{Kind: store.CondEquals, Attr: "z", Value: store.N(0)}}, true},
		{"equals/otherType", true, store.OpUpdate, []store.Cond{{Kind: store.CondEquals, Attr: "n", Value: store.S("3")}}, false},
		{"equals/absentAttr", true, store.OpUpdate, []store.Cond{{Kind: store.CondEquals, Attr: absent, Value: store.S("")}}, false},
		{"equals/absentItem", false, store.OpUpdate, []store.Cond{{Kind: store.CondEquals, Attr: "n", Value: store.N(0)}}, false},
		{"absent/absentAttr", true, store.OpUpdate, []store.Cond{{Kind: store.CondAbsent, Attr: absent}}, true},
		{"absent/presentAttr", true, store.OpUpdate, []store.Cond{{Kind: store.CondAbsent, Attr: "s"}}, false},
		{"absent/emptyString", true, store.OpUpdate, []store.Cond{{Kind: store.CondAbsent, Attr: "e"}}, false},
		{"absent/absentItem", false, store.OpUpdate, []store.Cond{{Kind: store.CondAbsent, Attr: "n"}}, true},
		{"all/hold", true, store.OpUpdate, []store.Cond{{Kind: store.CondExists}, {Kind: store.CondEquals, Attr: "s", Value: store.S("a")}, {Kind: store.CondAbsent, Attr: absent}}, true},
		{"all/oneFails", true, store.OpUpdate, []store.Cond{{Kind: store.CondExists}, {Kind: store.CondEquals, Attr: "s", Value: store.S("a")}, {Kind: store.CondAbsent, Attr: "n"}}, false},
		{"put/notExists/present", true, store.OpPut, []store.Cond{{Kind: store.CondNotExists}}, false},
		{"put/notExists/absent", false, store.OpPut, []store.Cond{{Kind: store.CondNotExists}}, true},
		{"put/equals", true, store.OpPut, []store.Cond{{Kind: store.CondEquals, Attr: "n", Value: store.N(3)}}, true},
		{"delete/exists/present", true, store.OpDelete, []store.Cond{{Kind: store.CondExists}}, true},
		{"delete/exists/absent", false, store.OpDelete, []store.Cond{{Kind: store.CondExists}}, false},
		{"delete/equals", true, store.OpDelete, []store.Cond{{Kind: store.CondEquals, Attr: "s", Value: store.S("a")}}, true},
		{"delete/otherString", true, store.OpDelete, []store.Cond{{Kind: store.CondEquals, Attr: "s", Value: store.S("x")}}, false},
	}
}

// checkCondition writes c to the item of key k, and checks that it applied
// when c.ok and failed with ECONFLICT on operation 0 otherwise, and the
// item after it.
func checkCondition(t *testing.T, tbl store.Table, k store.Key, c conditionCase) {
	before := MustGet(t, tbl, k)
	op := store.Op{Kind: c.kind, Key: k, Conds: c.conds}
	var after store.Item // the item when the write applies
	switch c.kind {
	case store.OpUpdate:
		op.Add = map[string]int64{"hits": 1}
		after = maps.Clone(before)
		if after == nil {
			after = store.Item{store.AttrPK: store.S(k.PK), store.AttrSK: store.S(k.SK)}
		}
		after["hits"] = store.N(1)
	case store.OpPut:
		after = store.Item{store.AttrPK: store.S(k.PK), store.AttrSK: store.S(k.SK), "put": store.S("yes")}
		op.Item = after
	}
	err := tbl.Write(t.Context(), []store.Op{op})
	if c.ok {
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			return
		}
	} else {
		if store.ErrorCode(err) != store.ECONFLICT {
			t.Errorf("%s: error %v, want code %s", c.name, err, store.ECONFLICT)
			return
		}
		var e *store.Error
		if errors.As(err, &e) && e.Op != 0 {
			t.Errorf("%s: failed operation %d, want 0", c.name, e.Op)
		}
		after = before
	}
	if got := MustGet(t, tbl, k); !reflect.DeepEqual(got, after) {
		t.Errorf("%s: item after the write = %v, want %v", c.name, got, after)
	}
}

func tableUpdate(t *testing.T, tbl store.Table) {
	k := mkKey("U", "1")
	get := func(want store.Item) {
		t.Helper()
		want[store.AttrPK], want[store.AttrSK] = store.S(k.PK), store.S(k.SK)
		if got := MustGet(t, tbl, k); !reflect.DeepEqual(got, want) {
			t.Errorf("Get = %v, want %v", got, want)
		}
	}
	// An update of an absent item creates it; ADD counts from 0; REMOVE of
	// an absent attribute does nothing.
	MustWrite(t, tbl, store.Op{Kind: store.OpUpdate, Key: k,
		Add: map[string]int64{"a": 5, "b": -2}, Set: store.Item{"s": store.S("x"), "e": store.S("")}, Remove: []string{"zz"}})
	get(store.Item{"a": store.N(5), "b": store.N(-2), "s": store.S("x"), "e": store.S("")})
	// ADD to existing numbers, SET replaces values (of any type), REMOVE.
	MustWrite(t, tbl, store.Op{Kind: store.OpUpdate, Key: k,
		Add: map[string]int64{"a": 10, "c": 1}, Set: store.Item{"s": store.N(4), "t": store.S("new")}, Remove: []string{"b", "e"}})
	get(store.Item{"a": store.N(15), "c": store.N(1), "s": store.N(4), "t": store.S("new")})
	MustWrite(t, tbl, store.Op{Kind: store.OpUpdate, Key: k, Add: map[string]int64{"a": -20}})
	get(store.Item{"a": store.N(-5), "c": store.N(1), "s": store.N(4), "t": store.S("new")})
	// An update under a failing condition creates nothing.
	k2 := mkKey("U", "2")
	err := tbl.Write(t.Context(), []store.Op{{Kind: store.OpUpdate, Key: k2, Add: map[string]int64{"a": 1}, Conds: []store.Cond{{Kind: store.CondExists}}}})
	MustErrorCode(t, err, store.ECONFLICT)
	if got := MustGet(t, tbl, k2); got != nil {
		t.Errorf("a failed update created %v", got)
	}
	// Several updates in one write, creating and changing.
	MustWrite(t, tbl,
		store.Op{Kind: store.OpUpdate, Key: k, Add: map[string]int64{"a": 5}},
		store.Op{Kind: store.OpUpdate, Key: k2, Set: store.Item{"s": store.S("two")}, Conds: []store.Cond{{Kind: store.CondNotExists}}},
	)
	get(store.Item{"a": store.N(0), "c": store.N(1), "s": store.N(4), "t": store.S("new")})
	if got := MustGet(t, tbl, k2); !reflect.DeepEqual(got, store.Item{store.AttrPK: store.S("U"), store.AttrSK: store.S("2"), "s": store.S("two")}) {
		t.Errorf("created by update: %v", got)
	}
}

func tableDelete(t *testing.T, tbl store.Table) {
	c := fixtureComments(1, 5)[0].Item()
	MustPut(t, tbl, c)
	// Deleting a missing item is a no-op.
	MustWrite(t, tbl, store.Op{Kind: store.OpDelete, Key: mkKey("D", "missing")})
	if got := MustGet(t, tbl, mkKey("D", "missing")); got != nil {
		t.Errorf("deleting a missing item created %v", got)
	}
	MustWrite(t, tbl, store.Op{Kind: store.OpDelete, Key: c.Key(), Conds: []store.Cond{{Kind: store.CondEquals, Attr: store.AttrVersion, Value: c[store.AttrVersion]}}})
	if got := MustGet(t, tbl, c.Key()); got != nil {
		t.Errorf("deleted item is still there: %v", got)
	}
	for _, d := range store.Indexes {
		checkKeys(t, tbl, d.Name, c.S(d.Hash))
	}
	err := tbl.Write(t.Context(), []store.Op{{Kind: store.OpDelete, Key: c.Key(), Conds: []store.Cond{{Kind: store.CondExists}}}})
	MustErrorCode(t, err, store.ECONFLICT)
}

func tableWriteInvalid(t *testing.T, tbl store.Table) {
	ctx := t.Context()
	ops := make([]store.Op, store.MaxWriteOps+1)
	for i := range ops {
		ops[i] = store.Op{Kind: store.OpUpdate, Key: mkKey("I", fmt.Sprintf("%03d", i)), Add: map[string]int64{"n": 1}}
	}
	MustErrorCode(t, tbl.Write(ctx, ops), store.EINVALID)
	if got := MustGet(t, tbl, ops[0].Key); got != nil {
		t.Errorf("a write of too many operations wrote %v", got)
	}
	// Exactly MaxWriteOps is fine.
	MustWrite(t, tbl, ops[:store.MaxWriteOps]...)
	if got := MustGet(t, tbl, ops[store.MaxWriteOps-1].Key); got.N("n") != 1 {
		t.Errorf("after a write of %d operations, the last item is %v", store.MaxWriteOps, got)
	}
	// Two operations on one item.
	dup := []store.Op{
		{Kind: store.OpUpdate, Key: mkKey("I", "new"), Add: map[string]int64{"n": 1}},
		{Kind: store.OpUpdate, Key: mkKey("I", "000"), Add: map[string]int64{"n": 1}},
		{Kind: store.OpDelete, Key: mkKey("I", "000")},
	}
	MustErrorCode(t, tbl.Write(ctx, dup), store.EINVALID)
	if got := MustGet(t, tbl, mkKey("I", "new")); got != nil {
		t.Errorf("an invalid write wrote %v", got)
	}
	if got := MustGet(t, tbl, mkKey("I", "000")); got.N("n") != 1 {
		t.Errorf("an invalid write changed %v", got)
	}
}

func tableConcurrentAdd(t *testing.T, tbl store.Table) {
	const workers, perWorker = 8, 25
	k1, k2 := mkKey("N", "1"), mkKey("N", "2")
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perWorker {
				ops := []store.Op{
					{Kind: store.OpUpdate, Key: k1, Add: map[string]int64{"n": 1}},
					{Kind: store.OpUpdate, Key: k2, Add: map[string]int64{"n": 2}, Set: store.Item{"last": store.N(int64(w))}},
				}
				// A backend may report a transaction conflict between
				// concurrent writes as ECONFLICT: retry those.
				var err error
				for attempt := 0; attempt < 50; attempt++ {
					if err = tbl.Write(t.Context(), ops); store.ErrorCode(err) != store.ECONFLICT {
						break
					}
					time.Sleep(time.Duration(attempt+1) * time.Millisecond)
				}
				if err != nil {
					t.Errorf("worker %d: %v", w, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := MustGet(t, tbl, k1).N("n"); n != workers*perWorker {
		t.Errorf("after %d concurrent ADDs of 1: %d", workers*perWorker, n)
	}
	if n := MustGet(t, tbl, k2).N("n"); n != 2*workers*perWorker {
		t.Errorf("after %d concurrent ADDs of 2: %d", workers*perWorker, n)
	}
}

// checkModel compares every item, and every partition of every index in
// which the model has or had items, with the model.
func checkModel(t *testing.T, tbl store.Table, m tableModel, had []store.Item) {
	t.Helper()
	items := m.items()
	keys := make([]store.Key, len(items))
	for i, it := range items {
		keys[i] = it.Key()
	}
	sameItems(t, "BatchGet of every item", MustBatchGet(t, tbl, keys), items)
	for _, index := range indexNames() {
		for _, h := range partitions(slices.Concat(items, had), index) {
			q := store.Query{Index: index, HashValue: h, Limit: 50}
			sameItems(t, describeQuery(q), MustQueryAll(t, tbl, q), expectQuery(items, q))
		}
	}
}

func tableBatchPut(t *testing.T, tbl store.Table) {
	if err := tbl.BatchPut(t.Context(), nil); err != nil {
		t.Fatalf("BatchPut(nothing): %v", err)
	}
	cs := fixtureComments(250, 11)
	items := commentItems(cs)
	MustBatchPut(t, tbl, items)
	m := newTableModel(items...)
	checkModel(t, tbl, m, nil)

	// A second load replaces items and their index entries: every fifth
	// comment changes rating, language and text.
	var again []store.Item
	for i := 0; i < len(cs); i += 5 {
		c := cs[i]
		c.Rating = 1 + c.Rating%5
		c.Language = map[string]string{"en": "de", "de": "en-GB", "en-GB": "en"}[c.Language]
		c.Body = "changed"
		again = append(again, c.Item())
	}
	MustBatchPut(t, tbl, again)
	m.put(again...)
	checkModel(t, tbl, m, items)
}

func tableScan(t *testing.T, tbl store.Table) {
	items := fixtureItems()
	MustBatchPut(t, tbl, items)
	m := newTableModel(items...)
	for _, c := range []struct{ total, limit int }{{1, 1000}, {1, 7}, {4, 5}, {4, 1000}} {
		seen := map[store.Key]int{}
		for seg := range c.total {
			for _, it := range MustScanAll(t, tbl, seg, c.total, c.limit) {
				k := it.Key()
				seen[k]++
				if want := m[k]; !reflect.DeepEqual(it, want) {
					t.Errorf("scan %d of %d: item %v, want %v", seg, c.total, it, want)
				}
			}
		}
		for k := range m {
			if seen[k] != 1 {
				t.Errorf("scan in %d segments (limit %d): %v seen %d times", c.total, c.limit, k, seen[k])
			}
		}
		if len(seen) != len(m) {
			t.Errorf("scan in %d segments (limit %d): %d distinct items, want %d", c.total, c.limit, len(seen), len(m))
		}
	}
}

func tableScanEmpty(t *testing.T, tbl store.Table) {
	items, next, err := tbl.Scan(t.Context(), 0, 1, nil, 10)
	if err != nil || len(items) != 0 || next != nil {
		t.Errorf("Scan of an empty table = %v, %v, %v", items, next, err)
	}
	for seg := range 3 {
		if got := MustScanAll(t, tbl, seg, 3, 10); len(got) != 0 {
			t.Errorf("Scan segment %d of an empty table = %v", seg, got)
		}
	}
}

func tableCancelled(t *testing.T, tbl store.Table) {
	old := store.Item{store.AttrPK: store.S("X"), store.AttrSK: store.S("old")}
	MustPut(t, tbl, old)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	nw := store.Item{store.AttrPK: store.S("X"), store.AttrSK: store.S("new")}
	if _, err := tbl.Get(ctx, old.Key()); err == nil {
		t.Error("Get with a cancelled context: no error")
	}
	if _, err := tbl.BatchGet(ctx, []store.Key{old.Key()}); err == nil {
		t.Error("BatchGet with a cancelled context: no error")
	}
	if _, err := tbl.Query(ctx, store.Query{HashValue: "X", Limit: 10}); err == nil {
		t.Error("Query with a cancelled context: no error")
	}
	if _, _, err := tbl.Scan(ctx, 0, 1, nil, 10); err == nil {
		t.Error("Scan with a cancelled context: no error")
	}
	if err := tbl.Write(ctx, []store.Op{putOp(nw)}); err == nil {
		t.Error("Write with a cancelled context: no error")
	}
	if err := tbl.BatchPut(ctx, []store.Item{nw}); err == nil {
		t.Error("BatchPut with a cancelled context: no error")
	}
	if got := MustGet(t, tbl, nw.Key()); got != nil {
		t.Errorf("a write with a cancelled context wrote %v", got)
	}
}
