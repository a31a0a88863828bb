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
	"github.com/acme/comments-gateway/store/table"
)

// Run is the conformance suite of table.Table: every backend's tests call
// it. newTable must return a new, empty table on each call and arrange its
// cleanup (t.Cleanup); it is called once per subtest, from parallel
// subtests. The suite uses nothing but the Table interface.
func Run(t *testing.T, newTable func(t *testing.T) table.Table) {
	tests := []struct {
		name string
		fn   func(t *testing.T, tbl table.Table)
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
		{"Records", tableRecords},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newTable(t))
		})
	}
	t.Run("QueryIndex", func(t *testing.T) {
		t.Parallel()
		for _, d := range commentIndexes {
			t.Run(d.Name, func(t *testing.T) {
				t.Parallel()
				tableQueryIndex(t, newTable(t), d.Name)
			})
		}
	})
}

// put is one OpPut of it.
func putOp(it table.Item, conds ...table.Cond) table.Op {
	return table.Op{Kind: table.OpPut, Key: it.Key(), Item: it, Conds: conds}
}

func mkKey(pk, sk string) table.Key { return table.Key{PK: pk, SK: sk} }

func tableGetPut(t *testing.T, tbl table.Table) {
	it := table.Item{
		table.AttrPK: table.S("G"), table.AttrSK: table.S("1"),
		"s": table.S("héllo 世界"), "empty": table.S(""), "zero": table.N(0), "neg": table.N(-42),
		"max": table.N(math.MaxInt64), "min": table.N(math.MinInt64),
	}
	MustWrite(t, tbl, putOp(it))
	got := MustGet(t, tbl, mkKey("G", "1"))
	if !reflect.DeepEqual(got, it) {
		t.Fatalf("Get = %v, want %v", got, it)
	}
	// The item returned is the caller's.
	got["s"] = table.S("changed")
	if again := MustGet(t, tbl, mkKey("G", "1")); !reflect.DeepEqual(again, it) {
		t.Errorf("changing a returned item changed the table: %v", again)
	}
	for _, k := range []table.Key{mkKey("G", "2"), mkKey("G2", "1"), mkKey("G", "1x"), mkKey("GG", "1")} {
		if got := MustGet(t, tbl, k); got != nil {
			t.Errorf("Get(%v) of a missing item = %v", k, got)
		}
	}
	// A put replaces the whole item; the table keeps no reference to the
	// caller's item.
	it2 := table.Item{table.AttrPK: table.S("G"), table.AttrSK: table.S("1"), "s": table.S("other")}
	MustWrite(t, tbl, putOp(it2))
	it2["s"] = table.S("mutated after the write")
	if got := MustGet(t, tbl, mkKey("G", "1")); !reflect.DeepEqual(got, table.Item{table.AttrPK: table.S("G"), table.AttrSK: table.S("1"), "s": table.S("other")}) {
		t.Errorf("after replacing put, Get = %v", got)
	}
}

func tableValueTypes(t *testing.T, tbl table.Table) {
	ctx := t.Context()
	// The zero Value is the one value a typed item can hold but not store.
	for i, v := range []table.Value{{}} {
		k := mkKey("V", fmt.Sprint(i))
		it := table.Item{table.AttrPK: table.S(k.PK), table.AttrSK: table.S(k.SK), "bad": v}
		if err := tbl.Write(ctx, []table.Op{putOp(it)}); err == nil {
			t.Errorf("put of a %v value: no error", v.Kind())
		}
		if err := tbl.BatchPut(ctx, []table.Item{it}); err == nil {
			t.Errorf("BatchPut of a %v value: no error", v.Kind())
		}
		if err := tbl.Write(ctx, []table.Op{{Kind: table.OpUpdate, Key: k, Set: table.Item{"bad": v}}}); err == nil {
			t.Errorf("update setting a %v value: no error", v.Kind())
		}
		if got := MustGet(t, tbl, k); got != nil {
			t.Errorf("an item with a %v value was stored: %v", v.Kind(), got)
		}
	}
}

func tableBatchGet(t *testing.T, tbl table.Table) {
	const n = 150
	var items []table.Item
	for i := range n {
		if i%3 != 0 {
			items = append(items, table.Item{table.AttrPK: table.S(fmt.Sprintf("B#%03d", i)), table.AttrSK: table.S("x"), "i": table.N(int64(i))})
		}
	}
	MustBatchPut(t, tbl, items)
	// More keys than one DynamoDB BatchGetItem takes, in an order unlike
	// the table's, with missing ones throughout.
	var keys []table.Key
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
func checkPartition(t *testing.T, tbl table.Table, items []table.Item, index, hash string, full bool) {
	t.Helper()
	base := table.Query{Index: index, HashValue: hash, Forward: true, Limit: 1000}
	type cond struct {
		op table.SortOp
		v  string
	}
	conds := []cond{{table.SortNone, ""}}
	if sorts := sortValues(expectQuery(items, base), index); full && len(sorts) > 0 {
		first, mid, last := sorts[0], sorts[len(sorts)/2], sorts[len(sorts)-1]
		for _, v := range []string{first, mid, mid + "!", last, "0"} {
			conds = append(conds, cond{table.SortLess, v}, cond{table.SortGreater, v})
		}
		for _, v := range []string{mid[:1], mid[:min(9, len(mid))], mid, mid + "!"} {
			conds = append(conds, cond{table.SortBeginsWith, v})
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

func tableQueryBase(t *testing.T, tbl table.Table) {
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
	q := table.Query{HashValue: store.ProductPK("p1"), SortOp: table.SortBeginsWith, SortValue: store.StatsLangPrefix, Forward: true, Limit: 2}
	got := MustQueryAll(t, tbl, q)
	if sameItems(t, describeQuery(q), got, expectQuery(items, q)) && len(got) != 3 {
		t.Errorf("product p1 has stats for %d languages, want 3", len(got))
	}
}

func tableQueryIndex(t *testing.T, tbl table.Table, index string) {
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
func pickPartition(t *testing.T, items []table.Item, index string, max int) string {
	t.Helper()
	best, n := "", 0
	for _, h := range partitions(items, index) {
		if m := len(expectQuery(items, table.Query{Index: index, HashValue: h})); m <= max && m > n {
			best, n = h, m
		}
	}
	if n < 3 {
		t.Fatalf("no partition of index %q has 3 to %d items", index, max)
	}
	return best
}

func tableQueryLimits(t *testing.T, tbl table.Table) {
	items := fixtureItems()
	MustBatchPut(t, tbl, items)
	for _, index := range append([]string{""}, indexNames()...) {
		h := pickPartition(t, items, index, 25)
		for _, fwd := range []bool{true, false} {
			q := table.Query{Index: index, HashValue: h, Forward: fwd}
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
				op table.SortOp
				v  string
			}{
				{table.SortLess, mid}, {table.SortGreater, sorts[1]}, {table.SortBeginsWith, mid[:min(9, len(mid))]},
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

// commentIndexes are the indexes every published comment is in: the
// public ones and their helpful twins.
var commentIndexes = slices.Concat(table.Indexes, table.HelpfulIndexes)

func indexNames() []string {
	var out []string
	for _, d := range commentIndexes {
		out = append(out, d.Name)
	}
	return out
}

func tableQueryInvalid(t *testing.T, tbl table.Table) {
	ctx := t.Context()
	MustPut(t, tbl, table.Item{table.AttrPK: table.S("Q"), table.AttrSK: table.S("1")})
	for _, q := range []table.Query{
		{HashValue: "Q", Limit: 0},
		{HashValue: "Q", Limit: -1},
		{Index: table.IndexAll, HashValue: "Q", Limit: 0},
		{Index: "noSuchIndex", HashValue: "Q", Limit: 10},
	} {
		_, err := tbl.Query(ctx, q)
		if table.ErrorCode(err) != table.EINVALID {
			t.Errorf("%s: error %v, want code %s", describeQuery(q), err, table.EINVALID)
		}
	}
}

// checkKeys compares the keys of a whole partition, both directions, with
// want (ascending).
func checkKeys(t *testing.T, tbl table.Table, index, hash string, want ...table.Key) {
	t.Helper()
	for _, fwd := range []bool{true, false} {
		q := table.Query{Index: index, HashValue: hash, Forward: fwd, Limit: 100}
		got := MustQueryAll(t, tbl, q)
		keys := make([]table.Key, len(got))
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

func tableProjection(t *testing.T, tbl table.Table) {
	c := fixtureComments(1, 7)[0]
	c.Version = 7
	c.Reply = &store.Reply{Body: "Thanks", CreatedAt: c.CreatedAt.Add(time.Hour), UpdatedAt: c.CreatedAt.Add(2 * time.Hour)}
	ci := c.Item()
	st := &store.Stats{ProductID: c.ProductID, Counts: [6]int64{0, 1, 0, 0, 0, 3}, Total: 4}
	si := st.Item()
	si[table.AttrGSIPK], si[table.AttrGSISK] = table.S(store.LeadersPK("")), table.S(store.LeadersSK(3, c.ProductID)) // a leaderboard entry
	MustPut(t, tbl, ci, si)
	for _, d := range commentIndexes {
		q := table.Query{Index: d.Name, HashValue: ci.S(d.Hash), Forward: true, Limit: 10}
		got := MustQueryAll(t, tbl, q)
		if len(got) != 1 {
			t.Fatalf("%s: %d items, want 1", describeQuery(q), len(got))
		}
		sameItems(t, describeQuery(q), got, []table.Item{Project(&d, ci)})
		for _, a := range []string{table.AttrPK, table.AttrSK, d.Hash, d.Sort, table.AttrBody, table.AttrRating, table.AttrCreatedAt, table.AttrReply} {
			if _, ok := got[0][a]; !ok {
				t.Errorf("index %s: projected attribute %s missing: %v", d.Name, a, got[0])
			}
		}
		for _, a := range []string{table.AttrVersion, table.AttrID} {
			if _, ok := got[0][a]; ok {
				t.Errorf("index %s: attribute %s is not projected but present", d.Name, a)
			}
		}
		for _, other := range commentIndexes {
			if _, ok := got[0][other.Hash]; ok && other.Hash != d.Hash {
				t.Errorf("index %s: hash attribute %s of index %s present", d.Name, other.Hash, other.Name)
			}
			if _, ok := got[0][other.Sort]; ok && other.Sort != d.Sort {
				t.Errorf("index %s: sort attribute %s of index %s present", d.Name, other.Sort, other.Name)
			}
		}
	}
	// The base table has everything.
	q := table.Query{HashValue: ci.S(table.AttrPK), Forward: true, Limit: 10}
	sameItems(t, describeQuery(q), MustQueryAll(t, tbl, q), []table.Item{ci})
	// The leaderboard entry has count_5 and not the other counters.
	q = table.Query{Index: table.IndexByLangAndRating, HashValue: store.LeadersPK(""), Limit: 10}
	got := MustQueryAll(t, tbl, q)
	if len(got) != 1 || got[0].N(table.AttrCount(5)) != 3 {
		t.Fatalf("%s = %v, want the stats with count_5 = 3", describeQuery(q), got)
	}
	for _, a := range []string{table.AttrCount(1), table.AttrCountTotal} {
		if _, ok := got[0][a]; ok {
			t.Errorf("leaderboard entry has unprojected %s: %v", a, got[0])
		}
	}
}

// tableSparse checks that the indexes are sparse: an item is in an index
// while it has both key attributes of the index, and updates, puts and
// deletes move it in and out.
func tableSparse(t *testing.T, tbl table.Table) {
	at := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	comment := func(id string, at time.Time) table.Item {
		c := store.Comment{ID: id, ProductID: "p1", Language: "en", Rating: 5, Author: "a", Title: "t", Body: "b", CreatedAt: at}
		return c.Item()
	}
	x := sparseItems{c1: comment("s1", at), c2: comment("s2", at.Add(time.Hour))}
	x.k1, x.k2 = x.c1.Key(), x.c2.Key()
	x.all, x.byLang, x.byRating, x.byLR = x.c1.S(table.AttrGSI4PK), x.c1.S(table.AttrGSI2PK), x.c1.S(table.AttrGSI3PK), x.c1.S(table.AttrGSIPK)
	delete(x.c2, table.AttrGSI2PK) // c2 is in no byLang partition
	// An item with index hash attributes but no sort attribute is in no
	// index.
	noSort := table.Item{table.AttrPK: table.S("X"), table.AttrSK: table.S("X"), table.AttrGSI4PK: table.S(x.all), table.AttrGSIPK: table.S(x.byLR)}
	MustPut(t, tbl, x.c1, x.c2, noSort)
	checkKeys(t, tbl, table.IndexAll, x.all, x.k1, x.k2)
	checkKeys(t, tbl, table.IndexByLang, x.byLang, x.k1)
	checkKeys(t, tbl, table.IndexByRating, x.byRating, x.k1, x.k2)
	checkKeys(t, tbl, table.IndexByLangAndRating, x.byLR, x.k1, x.k2)
	moved := checkSparseUpdates(t, tbl, x)
	checkSparsePutAndDelete(t, tbl, x, moved)
	checkSparseLeaderboard(t, tbl)
}

// sparseItems are the two comments of tableSparse, their keys, and their
// index partitions.
type sparseItems struct {
	c1, c2                      table.Item
	k1, k2                      table.Key
	all, byLang, byRating, byLR string
}

// checkSparseUpdates checks that an update's REMOVE of a hash attribute
// takes an item out of that index only, and SETs of the hash and sort
// attributes move, reorder and put it back. It returns the byRating
// partition that c1 moved to.
func checkSparseUpdates(t *testing.T, tbl table.Table, x sparseItems) (moved string) {
	// REMOVE of the hash attribute takes the item out of that index only.
	MustWrite(t, tbl, table.Op{Kind: table.OpUpdate, Key: x.k1, Remove: []string{table.AttrGSIPK}})
	checkKeys(t, tbl, table.IndexByLangAndRating, x.byLR, x.k2)
	checkKeys(t, tbl, table.IndexByLang, x.byLang, x.k1)
	checkKeys(t, tbl, table.IndexAll, x.all, x.k1, x.k2)
	if got := MustGet(t, tbl, x.k1); got == nil || got[table.AttrGSIPK].Kind() != table.KindNone {
		t.Errorf("after REMOVE GSIPK, Get = %v", got)
	}

	// SET of another hash value moves it.
	moved = store.ProductPK("p1") + "/9"
	MustWrite(t, tbl, table.Op{Kind: table.OpUpdate, Key: x.k1, Set: table.Item{table.AttrGSI3PK: table.S(moved)}})
	checkKeys(t, tbl, table.IndexByRating, moved, x.k1)
	checkKeys(t, tbl, table.IndexByRating, x.byRating, x.k2)

	// SET of the sort value reorders it; SET of the hash attribute puts it
	// back into the index.
	early, late := "2000-01-01T00:00:00.000000000Z#x", "2100-01-01T00:00:00.000000000Z#x"
	MustWrite(t, tbl,
		table.Op{Kind: table.OpUpdate, Key: x.k1, Set: table.Item{table.AttrGSISK: table.S(late), table.AttrGSIPK: table.S("SPARSE#back")}},
		table.Op{Kind: table.OpUpdate, Key: x.k2, Set: table.Item{table.AttrGSISK: table.S(early)}},
	)
	checkKeys(t, tbl, table.IndexAll, x.all, x.k2, x.k1)
	checkKeys(t, tbl, table.IndexByLangAndRating, "SPARSE#back", x.k1)
	checkKeys(t, tbl, table.IndexByLangAndRating, x.byLR, x.k2)
	q := table.Query{Index: table.IndexAll, HashValue: x.all, SortOp: table.SortLess, SortValue: "2050", Limit: 10}
	if got := MustQueryAll(t, tbl, q); len(got) != 1 || got[0].Key() != x.k2 {
		t.Errorf("%s = %s, want only %v", describeQuery(q), keyStrings(got), x.k2)
	}
	return moved
}

// checkSparsePutAndDelete checks that a put replacing c2 replaces its index
// entries, and a delete of c1 takes it out of every index.
func checkSparsePutAndDelete(t *testing.T, tbl table.Table, x sparseItems, moved string) {
	// A put that replaces the item replaces its index entries.
	c2b := maps.Clone(x.c2)
	c2b[table.AttrGSI4PK] = table.S(store.ProductPK("p9"))
	delete(c2b, table.AttrGSI3PK)
	MustPut(t, tbl, c2b)
	checkKeys(t, tbl, table.IndexAll, x.all, x.k1)
	checkKeys(t, tbl, table.IndexAll, store.ProductPK("p9"), x.k2)
	checkKeys(t, tbl, table.IndexByRating, x.byRating)

	// A delete takes it out of every index.
	MustWrite(t, tbl, table.Op{Kind: table.OpDelete, Key: x.k1})
	checkKeys(t, tbl, table.IndexAll, x.all)
	checkKeys(t, tbl, table.IndexByLangAndRating, "SPARSE#back")
	checkKeys(t, tbl, table.IndexByLang, x.byLang)
	checkKeys(t, tbl, table.IndexByRating, moved)
}

// checkSparseLeaderboard checks that stats enter the leaderboard with their
// keys and leave without.
func checkSparseLeaderboard(t *testing.T, tbl table.Table) {
	sk := store.StatsKey("p1", "")
	MustWrite(t, tbl, table.Op{Kind: table.OpUpdate, Key: sk, Add: map[string]int64{table.AttrCount(4): 1}})
	checkKeys(t, tbl, table.IndexByLangAndRating, store.LeadersPK(""))
	MustWrite(t, tbl, table.Op{Kind: table.OpUpdate, Key: sk, Add: map[string]int64{table.AttrCount(5): 1},
		Set: table.Item{table.AttrGSIPK: table.S(store.LeadersPK("")), table.AttrGSISK: table.S(store.LeadersSK(1, "p1"))}})
	checkKeys(t, tbl, table.IndexByLangAndRating, store.LeadersPK(""), sk)
	MustWrite(t, tbl, table.Op{Kind: table.OpUpdate, Key: sk, Add: map[string]int64{table.AttrCount(5): -1},
		Remove: []string{table.AttrGSIPK, table.AttrGSISK}})
	checkKeys(t, tbl, table.IndexByLangAndRating, store.LeadersPK(""))
}

func tableWriteAtomic(t *testing.T, tbl table.Table) {
	a := table.Item{table.AttrPK: table.S("W"), table.AttrSK: table.S("A"), "n": table.N(1), table.AttrGSI4PK: table.S("W"), table.AttrGSISK: table.S("1")}
	c := table.Item{table.AttrPK: table.S("W"), table.AttrSK: table.S("C"), "n": table.N(3)}
	d := table.Item{table.AttrPK: table.S("W"), table.AttrSK: table.S("D")}
	MustPut(t, tbl, a, c, d)
	b := table.Item{table.AttrPK: table.S("W"), table.AttrSK: table.S("B"), table.AttrGSI4PK: table.S("W"), table.AttrGSISK: table.S("2")}
	ops := []table.Op{
		putOp(b),
		{Kind: table.OpUpdate, Key: a.Key(), Add: map[string]int64{"n": 5}, Set: table.Item{table.AttrGSI4PK: table.S("W2")}},
		putOp(table.Item{table.AttrPK: table.S("W"), table.AttrSK: table.S("C"), "n": table.N(30)}, table.Cond{Kind: table.CondNotExists}),
		{Kind: table.OpDelete, Key: d.Key()},
	}
	err := tbl.Write(t.Context(), ops)
	if e := MustErrorCode(t, err, table.ECONFLICT); e.Op != 2 {
		t.Errorf("the failed condition is reported on operation %d, want 2", e.Op)
	}
	checkWriteNotApplied(t, tbl, a, b, c, d)

	// Of several failing operations, the first is reported.
	failing := slices.Clone(ops)
	failing[1].Conds = []table.Cond{{Kind: table.CondEquals, Attr: "n", Value: table.N(2)}}
	failing[3].Conds = []table.Cond{{Kind: table.CondNotExists}}
	if e := MustErrorCode(t, tbl.Write(t.Context(), failing), table.ECONFLICT); e.Op != 1 {
		t.Errorf("with operations 1, 2 and 3 failing, operation %d is reported, want 1", e.Op)
	}
	failing = slices.Clone(ops)
	failing[0].Conds = []table.Cond{{Kind: table.CondExists}}
	if e := MustErrorCode(t, tbl.Write(t.Context(), failing[:1]), table.ECONFLICT); e.Op != 0 {
		t.Errorf("with operation 0 failing, operation %d is reported", e.Op)
	}
	checkWriteNotApplied(t, tbl, a, b, c, d)

	// Without the failing condition, everything applies at once.
	ops[2].Conds = nil
	MustWrite(t, tbl, ops...)
	a2 := maps.Clone(a)
	a2["n"], a2[table.AttrGSI4PK] = table.N(6), table.S("W2")
	for _, want := range []table.Item{a2, b, {table.AttrPK: table.S("W"), table.AttrSK: table.S("C"), "n": table.N(30)}} {
		if got := MustGet(t, tbl, want.Key()); !reflect.DeepEqual(got, want) {
			t.Errorf("after the write, %s = %v, want %v", keyString(want), got, want)
		}
	}
	if got := MustGet(t, tbl, d.Key()); got != nil {
		t.Errorf("after the write, deleted %s exists", keyString(d))
	}
	checkKeys(t, tbl, table.IndexAll, "W", b.Key())
	checkKeys(t, tbl, table.IndexAll, "W2", a.Key())
}

// checkWriteNotApplied checks that a failed write of tableWriteAtomic left
// a, c and d as they were, b absent, and a in the index partition "W".
func checkWriteNotApplied(t *testing.T, tbl table.Table, a, b, c, d table.Item) {
	t.Helper()
	for _, want := range []table.Item{a, c, d} {
		if got := MustGet(t, tbl, want.Key()); !reflect.DeepEqual(got, want) {
			t.Errorf("after a failed write, %s = %v, want %v", keyString(want), got, want)
		}
	}
	if got := MustGet(t, tbl, b.Key()); got != nil {
		t.Errorf("after a failed write, %s exists: %v", keyString(b), got)
	}
	checkKeys(t, tbl, table.IndexAll, "W", a.Key())
	checkKeys(t, tbl, table.IndexAll, "W2")
}

// tableConditions writes, to an item that exists or not, one operation
// with conditions, and checks that it applies exactly when they hold.
func tableConditions(t *testing.T, tbl table.Table) {
	cases := conditionCases()
	var setup []table.Item
	for i, c := range cases {
		if c.exists {
			setup = append(setup, table.Item{table.AttrPK: table.S("C"), table.AttrSK: table.S(fmt.Sprint(i)), "s": table.S("a"), "n": table.N(3), "z": table.N(0), "e": table.S("")})
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
	kind   table.OpKind
	conds  []table.Cond
	ok     bool
}

// conditionCases are the writes of tableConditions: every condition kind on
// an item that exists or not, several conditions at once, and conditions
// on puts and deletes.
func conditionCases() []conditionCase {
	const absent = "zz"
	return []conditionCase{
		{"exists/present", true, table.OpUpdate, []table.Cond{{Kind: table.CondExists}}, true},
		{"exists/absent", false, table.OpUpdate, []table.Cond{{Kind: table.CondExists}}, false},
		{"notExists/present", true, table.OpUpdate, []table.Cond{{Kind: table.CondNotExists}}, false},
		{"notExists/absent", false, table.OpUpdate, []table.Cond{{Kind: table.CondNotExists}}, true},
		{"equals/string", true, table.OpUpdate, []table.Cond{{Kind: table.CondEquals, Attr: "s", Value: table.S("a")}}, true},
		{"equals/otherString", true, table.OpUpdate, []table.Cond{{Kind: table.CondEquals, Attr: "s", Value: table.S("b")}}, false},
		{"equals/number", true, table.OpUpdate, []table.Cond{{Kind: table.CondEquals, Attr: "n", Value: table.N(3)}}, true},
		{"equals/otherNumber", true, table.OpUpdate, []table.Cond{{Kind: table.CondEquals, Attr: "n", Value: table.N(4)}}, false},
		{"equals/zero", true, table.OpUpdate, []table.Cond{{Kind: table.CondEquals, Attr: "z", Value: table.N(0)}}, true},
		{"equals/otherType", true, table.OpUpdate, []table.Cond{{Kind: table.CondEquals, Attr: "n", Value: table.S("3")}}, false},
		{"equals/absentAttr", true, table.OpUpdate, []table.Cond{{Kind: table.CondEquals, Attr: absent, Value: table.S("")}}, false},
		{"equals/absentItem", false, table.OpUpdate, []table.Cond{{Kind: table.CondEquals, Attr: "n", Value: table.N(0)}}, false},
		{"absent/absentAttr", true, table.OpUpdate, []table.Cond{{Kind: table.CondAbsent, Attr: absent}}, true},
		{"absent/presentAttr", true, table.OpUpdate, []table.Cond{{Kind: table.CondAbsent, Attr: "s"}}, false},
		{"absent/emptyString", true, table.OpUpdate, []table.Cond{{Kind: table.CondAbsent, Attr: "e"}}, false},
		{"absent/absentItem", false, table.OpUpdate, []table.Cond{{Kind: table.CondAbsent, Attr: "n"}}, true},
		{"all/hold", true, table.OpUpdate, []table.Cond{{Kind: table.CondExists}, {Kind: table.CondEquals, Attr: "s", Value: table.S("a")}, {Kind: table.CondAbsent, Attr: absent}}, true},
		{"all/oneFails", true, table.OpUpdate, []table.Cond{{Kind: table.CondExists}, {Kind: table.CondEquals, Attr: "s", Value: table.S("a")}, {Kind: table.CondAbsent, Attr: "n"}}, false},
		{"put/notExists/present", true, table.OpPut, []table.Cond{{Kind: table.CondNotExists}}, false},
		{"put/notExists/absent", false, table.OpPut, []table.Cond{{Kind: table.CondNotExists}}, true},
		{"put/equals", true, table.OpPut, []table.Cond{{Kind: table.CondEquals, Attr: "n", Value: table.N(3)}}, true},
		{"delete/exists/present", true, table.OpDelete, []table.Cond{{Kind: table.CondExists}}, true},
		{"delete/exists/absent", false, table.OpDelete, []table.Cond{{Kind: table.CondExists}}, false},
		{"delete/equals", true, table.OpDelete, []table.Cond{{Kind: table.CondEquals, Attr: "s", Value: table.S("a")}}, true},
		{"delete/otherString", true, table.OpDelete, []table.Cond{{Kind: table.CondEquals, Attr: "s", Value: table.S("x")}}, false},
	}
}

// checkCondition writes c to the item of key k, and checks that it applied
// when c.ok and failed with ECONFLICT on operation 0 otherwise, and the
// item after it.
func checkCondition(t *testing.T, tbl table.Table, k table.Key, c conditionCase) {
	before := MustGet(t, tbl, k)
	op := table.Op{Kind: c.kind, Key: k, Conds: c.conds}
	var after table.Item // the item when the write applies
	switch c.kind {
	case table.OpUpdate:
		op.Add = map[string]int64{"hits": 1}
		after = maps.Clone(before)
		if after == nil {
			after = table.Item{table.AttrPK: table.S(k.PK), table.AttrSK: table.S(k.SK)}
		}
		after["hits"] = table.N(1)
	case table.OpPut:
		after = table.Item{table.AttrPK: table.S(k.PK), table.AttrSK: table.S(k.SK), "put": table.S("yes")}
		op.Item = after
	}
	err := tbl.Write(t.Context(), []table.Op{op})
	if c.ok {
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			return
		}
	} else {
		if table.ErrorCode(err) != table.ECONFLICT {
			t.Errorf("%s: error %v, want code %s", c.name, err, table.ECONFLICT)
			return
		}
		var e *table.Error
		if errors.As(err, &e) && e.Op != 0 {
			t.Errorf("%s: failed operation %d, want 0", c.name, e.Op)
		}
		after = before
	}
	if got := MustGet(t, tbl, k); !reflect.DeepEqual(got, after) {
		t.Errorf("%s: item after the write = %v, want %v", c.name, got, after)
	}
}

func tableUpdate(t *testing.T, tbl table.Table) {
	k := mkKey("U", "1")
	get := func(want table.Item) {
		t.Helper()
		want[table.AttrPK], want[table.AttrSK] = table.S(k.PK), table.S(k.SK)
		if got := MustGet(t, tbl, k); !reflect.DeepEqual(got, want) {
			t.Errorf("Get = %v, want %v", got, want)
		}
	}
	// An update of an absent item creates it; ADD counts from 0; REMOVE of
	// an absent attribute does nothing.
	MustWrite(t, tbl, table.Op{Kind: table.OpUpdate, Key: k,
		Add: map[string]int64{"a": 5, "b": -2}, Set: table.Item{"s": table.S("x"), "e": table.S("")}, Remove: []string{"zz"}})
	get(table.Item{"a": table.N(5), "b": table.N(-2), "s": table.S("x"), "e": table.S("")})
	// ADD to existing numbers, SET replaces values (of any type), REMOVE.
	MustWrite(t, tbl, table.Op{Kind: table.OpUpdate, Key: k,
		Add: map[string]int64{"a": 10, "c": 1}, Set: table.Item{"s": table.N(4), "t": table.S("new")}, Remove: []string{"b", "e"}})
	get(table.Item{"a": table.N(15), "c": table.N(1), "s": table.N(4), "t": table.S("new")})
	MustWrite(t, tbl, table.Op{Kind: table.OpUpdate, Key: k, Add: map[string]int64{"a": -20}})
	get(table.Item{"a": table.N(-5), "c": table.N(1), "s": table.N(4), "t": table.S("new")})
	// An update under a failing condition creates nothing.
	k2 := mkKey("U", "2")
	err := tbl.Write(t.Context(), []table.Op{{Kind: table.OpUpdate, Key: k2, Add: map[string]int64{"a": 1}, Conds: []table.Cond{{Kind: table.CondExists}}}})
	MustErrorCode(t, err, table.ECONFLICT)
	if got := MustGet(t, tbl, k2); got != nil {
		t.Errorf("a failed update created %v", got)
	}
	// Several updates in one write, creating and changing.
	MustWrite(t, tbl,
		table.Op{Kind: table.OpUpdate, Key: k, Add: map[string]int64{"a": 5}},
		table.Op{Kind: table.OpUpdate, Key: k2, Set: table.Item{"s": table.S("two")}, Conds: []table.Cond{{Kind: table.CondNotExists}}},
	)
	get(table.Item{"a": table.N(0), "c": table.N(1), "s": table.N(4), "t": table.S("new")})
	if got := MustGet(t, tbl, k2); !reflect.DeepEqual(got, table.Item{table.AttrPK: table.S("U"), table.AttrSK: table.S("2"), "s": table.S("two")}) {
		t.Errorf("created by update: %v", got)
	}
}

func tableDelete(t *testing.T, tbl table.Table) {
	c := fixtureComments(1, 5)[0].Item()
	MustPut(t, tbl, c)
	// Deleting a missing item is a no-op.
	MustWrite(t, tbl, table.Op{Kind: table.OpDelete, Key: mkKey("D", "missing")})
	if got := MustGet(t, tbl, mkKey("D", "missing")); got != nil {
		t.Errorf("deleting a missing item created %v", got)
	}
	MustWrite(t, tbl, table.Op{Kind: table.OpDelete, Key: c.Key(), Conds: []table.Cond{{Kind: table.CondEquals, Attr: table.AttrVersion, Value: c[table.AttrVersion]}}})
	if got := MustGet(t, tbl, c.Key()); got != nil {
		t.Errorf("deleted item is still there: %v", got)
	}
	for _, d := range commentIndexes {
		checkKeys(t, tbl, d.Name, c.S(d.Hash))
	}
	err := tbl.Write(t.Context(), []table.Op{{Kind: table.OpDelete, Key: c.Key(), Conds: []table.Cond{{Kind: table.CondExists}}}})
	MustErrorCode(t, err, table.ECONFLICT)
}

func tableWriteInvalid(t *testing.T, tbl table.Table) {
	ctx := t.Context()
	ops := make([]table.Op, table.MaxWriteOps+1)
	for i := range ops {
		ops[i] = table.Op{Kind: table.OpUpdate, Key: mkKey("I", fmt.Sprintf("%03d", i)), Add: map[string]int64{"n": 1}}
	}
	MustErrorCode(t, tbl.Write(ctx, ops), table.EINVALID)
	if got := MustGet(t, tbl, ops[0].Key); got != nil {
		t.Errorf("a write of too many operations wrote %v", got)
	}
	// Exactly MaxWriteOps is fine.
	MustWrite(t, tbl, ops[:table.MaxWriteOps]...)
	if got := MustGet(t, tbl, ops[table.MaxWriteOps-1].Key); got.N("n") != 1 {
		t.Errorf("after a write of %d operations, the last item is %v", table.MaxWriteOps, got)
	}
	// Two operations on one item.
	dup := []table.Op{
		{Kind: table.OpUpdate, Key: mkKey("I", "new"), Add: map[string]int64{"n": 1}},
		{Kind: table.OpUpdate, Key: mkKey("I", "000"), Add: map[string]int64{"n": 1}},
		{Kind: table.OpDelete, Key: mkKey("I", "000")},
	}
	MustErrorCode(t, tbl.Write(ctx, dup), table.EINVALID)
	if got := MustGet(t, tbl, mkKey("I", "new")); got != nil {
		t.Errorf("an invalid write wrote %v", got)
	}
	if got := MustGet(t, tbl, mkKey("I", "000")); got.N("n") != 1 {
		t.Errorf("an invalid write changed %v", got)
	}
}

func tableConcurrentAdd(t *testing.T, tbl table.Table) {
	const workers, perWorker = 8, 25
	k1, k2 := mkKey("N", "1"), mkKey("N", "2")
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perWorker {
				ops := []table.Op{
					{Kind: table.OpUpdate, Key: k1, Add: map[string]int64{"n": 1}},
					{Kind: table.OpUpdate, Key: k2, Add: map[string]int64{"n": 2}, Set: table.Item{"last": table.N(int64(w))}},
				}
				// A backend may report a transaction conflict between
				// concurrent writes as ECONFLICT: retry those.
				var err error
				for attempt := 0; attempt < 50; attempt++ {
					if err = tbl.Write(t.Context(), ops); table.ErrorCode(err) != table.ECONFLICT {
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
func checkModel(t *testing.T, tbl table.Table, m tableModel, had []table.Item) {
	t.Helper()
	items := m.items()
	keys := make([]table.Key, len(items))
	for i, it := range items {
		keys[i] = it.Key()
	}
	sameItems(t, "BatchGet of every item", MustBatchGet(t, tbl, keys), items)
	for _, index := range indexNames() {
		for _, h := range partitions(slices.Concat(items, had), index) {
			q := table.Query{Index: index, HashValue: h, Limit: 50}
			sameItems(t, describeQuery(q), MustQueryAll(t, tbl, q), expectQuery(items, q))
		}
	}
}

func tableBatchPut(t *testing.T, tbl table.Table) {
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
	var again []table.Item
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

func tableScan(t *testing.T, tbl table.Table) {
	items := fixtureItems()
	MustBatchPut(t, tbl, items)
	m := newTableModel(items...)
	for _, c := range []struct{ total, limit int }{{1, 1000}, {1, 7}, {4, 5}, {4, 1000}} {
		seen := map[table.Key]int{}
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

func tableScanEmpty(t *testing.T, tbl table.Table) {
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

func tableCancelled(t *testing.T, tbl table.Table) {
	old := table.Item{table.AttrPK: table.S("X"), table.AttrSK: table.S("old")}
	MustPut(t, tbl, old)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	nw := table.Item{table.AttrPK: table.S("X"), table.AttrSK: table.S("new")}
	if _, err := tbl.Get(ctx, old.Key()); err == nil {
		t.Error("Get with a cancelled context: no error")
	}
	if _, err := tbl.BatchGet(ctx, []table.Key{old.Key()}); err == nil {
		t.Error("BatchGet with a cancelled context: no error")
	}
	if _, err := tbl.Query(ctx, table.Query{HashValue: "X", Limit: 10}); err == nil {
		t.Error("Query with a cancelled context: no error")
	}
	if _, _, err := tbl.Scan(ctx, 0, 1, nil, 10); err == nil {
		t.Error("Scan with a cancelled context: no error")
	}
	if err := tbl.Write(ctx, []table.Op{putOp(nw)}); err == nil {
		t.Error("Write with a cancelled context: no error")
	}
	if err := tbl.BatchPut(ctx, []table.Item{nw}); err == nil {
		t.Error("BatchPut with a cancelled context: no error")
	}
	if got := MustGet(t, tbl, nw.Key()); got != nil {
		t.Errorf("a write with a cancelled context wrote %v", got)
	}
}
