package bolt

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/storetest"
	"github.com/acme/comments-gateway/store/table"
)

// MustOpen opens a Table on a new file in a temporary directory; at the end
// of the test it checks that every index bucket holds exactly the entries
// of the items, then closes the table.
func MustOpen(tb testing.TB, opts ...Option) *Table {
	tb.Helper()
	return MustOpenPath(tb, filepath.Join(tb.TempDir(), "comments.db"), opts...)
}

// MustOpenPath is MustOpen of the file at path.
func MustOpenPath(tb testing.TB, path string, opts ...Option) *Table {
	tb.Helper()
	t, err := Open(path, opts...)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() {
		if err := t.checkIndexes(); err != nil {
			tb.Errorf("index check: %v", err)
		}
		if err := t.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return t
}

// checkIndexes verifies that every index bucket holds exactly the entries
// the items imply, each pointing to its item, with empty values but for the
// mark of a twin's base index on its entries outside the zero tail
// (passValue), and that every item is of the current encoding.
func (t *Table) checkIndexes() error {
	return t.db.View(func(tx *bbolt.Tx) error {
		parts := partitions{b: tx.Bucket(bucketPartitions)}
		numbers := map[string]string{} // partition number → hash value
		err := parts.b.ForEach(func(k, v []byte) error {
			p, _ := parts.get(string(k))
			if h, dup := numbers[string(p.prefix)]; dup {
				return fmt.Errorf("partitions %q and %q have the same number", h, k)
			}
			numbers[string(p.prefix)] = string(k)
			return nil
		})
		if err != nil {
			return err
		}
		want := make([]map[string][]byte, len(t.indexes)) // entry keys → values
		for i := range want {
			want[i] = map[string][]byte{}
		}
		err = tx.Bucket(bucketItems).ForEach(func(k, v []byte) error {
			if len(v) == 0 || v[0] != codecVersion {
				return fmt.Errorf("item %q is not of the current encoding", k)
			}
			it, err := decodeItem(k, v)
			if err != nil {
				return fmt.Errorf("item %q: %w", k, err)
			}
			if got := baseKey(it.Key()); !bytes.Equal(got, k) {
				return fmt.Errorf("item %v stored at key %q", it.Key(), k)
			}
			for i, ix := range t.indexes {
				if e, ok := ix.entry(it); ok {
					p, ok := parts.get(e.hash)
					if !ok {
						return fmt.Errorf("index %s: partition %q has no number", ix.def.Name, e.hash)
					}
					ek, ok := p.key(e)
					if !ok {
						return fmt.Errorf("index %s: partition %q of times holds %q", ix.def.Name, e.hash, e.sort)
					}
					want[i][string(ek)] = e.value()
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		for i, ix := range t.indexes {
			n := 0
			err := tx.Bucket(ix.bucket).ForEach(func(k, v []byte) error {
				n++
				wv, ok := want[i][string(k)]
				if !ok {
					return fmt.Errorf("index %s: orphan entry %q", ix.def.Name, k)
				}
				if !bytes.Equal(v, wv) {
					return fmt.Errorf("index %s: entry %q has the value %q, want %q", ix.def.Name, k, v, wv)
				}
				return nil
			})
			if err != nil {
				return err
			}
			if n != len(want[i]) {
				return fmt.Errorf("index %s: %d entries, want %d", ix.def.Name, n, len(want[i]))
			}
		}
		return nil
	})
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) table.Table { return MustOpen(t) })
}

func TestConformanceSmallBatches(t *testing.T) {
	// BatchPut in many small transactions, with replacements across them.
	storetest.Run(t, func(t *testing.T) table.Table { return MustOpen(t, WithBatchSize(7)) })
}

func comments(n int) []table.Item {
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	out := make([]table.Item, n)
	for i := range out {
		c := store.Comment{
			ID: fmt.Sprintf("c%05d", i), ProductID: fmt.Sprintf("p%d", i%7), Language: []string{"en", "de"}[i%2],
			Rating: 1 + i%5, Author: "a", Title: "t", Body: strings.Repeat("b", i%50),
			CreatedAt: base.Add(time.Duration(i) * time.Minute),
		}
		out[i] = c.Item()
	}
	return out
}

func TestReopenKeepsData(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "comments.db")
	tbl, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	items := comments(300)
	storetest.MustBatchPut(t, tbl, items)
	storetest.MustWrite(t, tbl, table.Op{Kind: table.OpUpdate, Key: store.StatsKey("p1", ""), Add: map[string]int64{"count_5": 3},
		Set: table.Item{table.AttrGSIPK: table.S(store.LeadersPK("")), table.AttrGSISK: table.S(store.LeadersSK(3, "p1"))}})
	q := table.Query{Index: table.IndexByLang, HashValue: "PRODUCT#p3/de", Limit: 7}
	before := storetest.MustQueryAll(t, tbl, q)
	if err := tbl.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Get(ctx, items[0].Key()); table.ErrorCode(err) != table.EUNAVAILABLE {
		t.Errorf("Get after Close: %v, want %s", err, table.EUNAVAILABLE)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v (%v), want 0600", fi.Mode(), err)
	}

	tbl, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	if err := tbl.checkIndexes(); err != nil {
		t.Fatal(err)
	}
	for _, it := range []table.Item{items[0], items[150], items[299]} {
		if got := storetest.MustGet(t, tbl, it.Key()); !reflect.DeepEqual(got, it) {
			t.Errorf("after reopen, %v = %v", it.Key(), got)
		}
	}
	if after := storetest.MustQueryAll(t, tbl, q); !reflect.DeepEqual(after, before) || len(after) == 0 {
		t.Errorf("after reopen the query returns %d items, before %d", len(after), len(before))
	}
	lead := storetest.MustQueryAll(t, tbl, table.Query{Index: table.IndexByLangAndRating, HashValue: store.LeadersPK(""), Limit: 5})
	if len(lead) != 1 || lead[0].N("count_5") != 3 {
		t.Errorf("after reopen the leaderboard is %v", lead)
	}
}

func TestLockedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "comments.db")
	tbl, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	start := time.Now()
	second, err := Open(path, WithLockTimeout(300*time.Millisecond))
	if err == nil {
		second.Close()
		t.Fatal("a second Open of a locked file succeeded")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the second Open took %v to fail", d)
	}
	if table.ErrorCode(err) != table.EUNAVAILABLE || !strings.Contains(err.Error(), "locked by another process") || !strings.Contains(err.Error(), path) {
		t.Errorf("second Open: %v; want EUNAVAILABLE saying the file is locked", err)
	}
	// Once the first closes, the file opens.
	tbl.Close()
	third, err := Open(path, WithLockTimeout(time.Second))
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	third.Close()
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(filepath.Join(dir, "missing", "x.db")); table.ErrorCode(err) != table.EUNAVAILABLE {
		t.Errorf("Open in a missing directory: %v", err)
	}
	junk := filepath.Join(dir, "junk.db")
	if err := os.WriteFile(junk, bytes.Repeat([]byte("not a bolt file "), 1024), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(junk); err == nil {
		t.Error("Open of a junk file succeeded")
	}
	// A file of a later format is refused.
	path := filepath.Join(dir, "future.db")
	tbl, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := tbl.db.Update(func(tx *bbolt.Tx) error { return tx.Bucket(bucketMeta).Put(metaFormat, []byte("99")) }); err != nil {
		t.Fatal(err)
	}
	tbl.Close()
	if _, err := Open(path); table.ErrorCode(err) != table.EINTERNAL || !strings.Contains(err.Error(), "format") {
		t.Errorf("Open of a later format: %v", err)
	}
}

func TestIndexRebuild(t *testing.T) {
	path := filepath.Join(t.TempDir(), "comments.db")
	tbl, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	items := comments(100)
	storetest.MustBatchPut(t, tbl, items)
	// Simulate index definitions that changed since the file was written:
	// a different signature, a lost entry, and a bucket of a dropped index.
	err = tbl.db.Update(func(tx *bbolt.Tx) error {
		if err := tx.Bucket(bucketMeta).Put(metaIndexes, []byte("old definitions")); err != nil {
			return err
		}
		b := tx.Bucket(tbl.indexes[0].bucket)
		k, _ := b.Cursor().First()
		if err := b.Delete(k); err != nil {
			return err
		}
		_, err := tx.CreateBucket([]byte(indexBucketPrefix + "dropped"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if tbl.checkIndexes() == nil {
		t.Fatal("the damaged index passes the check")
	}
	tbl.Close()
	tbl, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	if err := tbl.checkIndexes(); err != nil {
		t.Errorf("after reopening with new index definitions: %v", err)
	}
	tbl.db.View(func(tx *bbolt.Tx) error {
		if tx.Bucket([]byte(indexBucketPrefix+"dropped")) != nil {
			t.Error("the bucket of a dropped index survived")
		}
		return nil
	})
}

func TestExactLastKey(t *testing.T) {
	tbl := MustOpen(t)
	var items []table.Item
	for i := range 10 {
		items = append(items, table.Item{table.AttrPK: table.S("P"), table.AttrSK: table.S(fmt.Sprintf("s%02d", i)),
			table.AttrGSI4PK: table.S("H"), table.AttrGSISK: table.S(fmt.Sprintf("g%02d", i))})
	}
	storetest.MustBatchPut(t, tbl, items)
	for _, q := range []table.Query{
		{HashValue: "P"},
		{Index: table.IndexAll, HashValue: "H"},
		{Index: table.IndexAll, HashValue: "H", SortOp: table.SortLess, SortValue: "g05"},
		{Index: table.IndexAll, HashValue: "H", SortOp: table.SortGreater, SortValue: "g04"},
		{Index: table.IndexAll, HashValue: "H", SortOp: table.SortBeginsWith, SortValue: "g0"},
	} {
		for _, fwd := range []bool{true, false} {
			q.Forward = fwd
			q.Limit = 100
			n := len(storetest.MustQuery(t, tbl, q).Items)
			q.Limit = n
			if res := storetest.MustQuery(t, tbl, q); len(res.Items) != n || res.LastKey != nil {
				t.Errorf("%+v: limit = size gives %d items, LastKey %v; want nil", q, len(res.Items), res.LastKey)
			}
			q.Limit = n - 1
			res := storetest.MustQuery(t, tbl, q)
			if res.LastKey == nil {
				t.Errorf("%+v: limit = size-1 gives a nil LastKey", q)
				continue
			}
			q.StartKey, q.Limit = res.LastKey, 1
			if res := storetest.MustQuery(t, tbl, q); len(res.Items) != 1 || res.LastKey != nil {
				t.Errorf("%+v: the last page has %d items, LastKey %v", q, len(res.Items), res.LastKey)
			}
			q.StartKey = nil
		}
	}
	// Scan is exact too.
	got, next, err := tbl.Scan(t.Context(), 0, 1, nil, 10)
	if err != nil || len(got) != 10 || next != nil {
		t.Errorf("Scan of exactly limit items = %d items, next %v, %v", len(got), next, err)
	}
}

func TestInvalid(t *testing.T) {
	tbl := MustOpen(t)
	ctx := t.Context()
	long := strings.Repeat("x", 3000)
	good := table.Item{table.AttrPK: table.S("P"), table.AttrSK: table.S("S")}
	storetest.MustPut(t, tbl, good)
	with := func(name string, v table.Value) table.Item {
		return table.Item{table.AttrPK: table.S("P"), table.AttrSK: table.S("new"), name: v}
	}
	puts := map[string]table.Item{
		"NUL in PK":            {table.AttrPK: table.S("P\x00"), table.AttrSK: table.S("S")},
		"NUL in SK":            {table.AttrPK: table.S("P"), table.AttrSK: table.S("\x00")},
		"empty PK":             {table.AttrPK: table.S(""), table.AttrSK: table.S("S")},
		"missing SK":           {table.AttrPK: table.S("P")},
		"number PK":            {table.AttrPK: table.N(1), table.AttrSK: table.S("S")},
		"NUL in index hash":    with(table.AttrGSI2PK, table.S("a\x00b")),
		"NUL in index sort":    with(table.AttrGSISK, table.S("\x00")),
		"empty index hash":     with(table.AttrGSI3PK, table.S("")),
		"number index hash":    with(table.AttrGSI4PK, table.N(4)),
		"long PK":              {table.AttrPK: table.S(long), table.AttrSK: table.S("S")},
		"long index sort":      with(table.AttrGSISK, table.S(long[:1025])),
		"no value":             with("n", table.Value{}),
		"empty attribute name": with("", table.S("x")),
		"item over 400 KB":     with("body", table.S(strings.Repeat("b", 401*1024))),
	}
	for name, it := range puts {
		k := table.Key{PK: "P", SK: "new"}
		if s, ok := it[table.AttrPK].Str(); ok && it.S(table.AttrSK) != "" {
			k = table.Key{PK: s, SK: it.S(table.AttrSK)}
		}
		if err := tbl.Write(ctx, []table.Op{{Kind: table.OpPut, Key: k, Item: it}}); table.ErrorCode(err) != table.EINVALID {
			t.Errorf("Write put %s: %v, want EINVALID", name, err)
		}
		if err := tbl.BatchPut(ctx, []table.Item{good, it}); table.ErrorCode(err) != table.EINVALID {
			t.Errorf("BatchPut %s: %v, want EINVALID", name, err)
		}
	}
	// NUL bytes are fine outside key attributes.
	storetest.MustPut(t, tbl, with("s", table.S("a\x00b")))

	ops := map[string]table.Op{
		"put key mismatch":    {Kind: table.OpPut, Key: table.Key{PK: "P", SK: "other"}, Item: good},
		"put with Add":        {Kind: table.OpPut, Key: good.Key(), Item: good, Add: map[string]int64{"n": 1}},
		"delete with Item":    {Kind: table.OpDelete, Key: good.Key(), Item: good},
		"update with Item":    {Kind: table.OpUpdate, Key: good.Key(), Item: good},
		"update sets PK":      {Kind: table.OpUpdate, Key: good.Key(), Set: table.Item{table.AttrPK: table.S("Q")}},
		"update removes SK":   {Kind: table.OpUpdate, Key: good.Key(), Remove: []string{table.AttrSK}},
		"set and remove":      {Kind: table.OpUpdate, Key: good.Key(), Set: table.Item{"a": table.S("x")}, Remove: []string{"a"}},
		"set and add":         {Kind: table.OpUpdate, Key: good.Key(), Set: table.Item{"a": table.S("x")}, Add: map[string]int64{"a": 1}},
		"set NUL index hash":  {Kind: table.OpUpdate, Key: good.Key(), Set: table.Item{table.AttrGSIPK: table.S("\x00")}},
		"set no value":        {Kind: table.OpUpdate, Key: good.Key(), Set: table.Item{"a": {}}},
		"unknown kind":        {Kind: 99, Key: good.Key()},
		"zero kind":           {Key: good.Key()},
		"NUL in key":          {Kind: table.OpDelete, Key: table.Key{PK: "P", SK: "a\x00"}},
		"unknown cond":        {Kind: table.OpDelete, Key: good.Key(), Conds: []table.Cond{{Kind: 42}}},
		"equals without attr": {Kind: table.OpDelete, Key: good.Key(), Conds: []table.Cond{{Kind: table.CondEquals, Value: table.S("x")}}},
		"equals no value":     {Kind: table.OpDelete, Key: good.Key(), Conds: []table.Cond{{Kind: table.CondEquals, Attr: "a"}}},
		"absent without attr": {Kind: table.OpDelete, Key: good.Key(), Conds: []table.Cond{{Kind: table.CondAbsent}}},
	}
	for name, op := range ops {
		if err := tbl.Write(ctx, []table.Op{op}); table.ErrorCode(err) != table.EINVALID {
			t.Errorf("Write %s: %v, want EINVALID", name, err)
		}
	}
	// State-dependent failures abort the whole write.
	storetest.MustPut(t, tbl, table.Item{table.AttrPK: table.S("P"), table.AttrSK: table.S("num"), "s": table.S("text"), "max": table.N(math.MaxInt64)})
	for name, op := range map[string]table.Op{
		"ADD to a string": {Kind: table.OpUpdate, Key: table.Key{PK: "P", SK: "num"}, Add: map[string]int64{"s": 1}},
		"ADD overflows":   {Kind: table.OpUpdate, Key: table.Key{PK: "P", SK: "num"}, Add: map[string]int64{"max": 1}},
	} {
		err := tbl.Write(ctx, []table.Op{{Kind: table.OpPut, Key: table.Key{PK: "P", SK: "side"}, Item: table.Item{table.AttrPK: table.S("P"), table.AttrSK: table.S("side")}}, op})
		if table.ErrorCode(err) != table.EINVALID || !strings.Contains(table.ErrorMessage(err), "operation 1") {
			t.Errorf("Write %s: %v, want EINVALID naming operation 1", name, err)
		}
		if got := storetest.MustGet(t, tbl, table.Key{PK: "P", SK: "side"}); got != nil {
			t.Errorf("Write %s wrote its other operation", name)
		}
	}

	for name, k := range map[string]table.Key{"NUL": {PK: "a\x00", SK: "b"}, "empty": {PK: "a"}, "long": {PK: long, SK: "b"}} {
		if _, err := tbl.Get(ctx, k); table.ErrorCode(err) != table.EINVALID {
			t.Errorf("Get %s key: %v", name, err)
		}
		if _, err := tbl.BatchGet(ctx, []table.Key{good.Key(), k}); table.ErrorCode(err) != table.EINVALID {
			t.Errorf("BatchGet %s key: %v", name, err)
		}
	}
	for name, q := range map[string]table.Query{
		"NUL in hash":          {HashValue: "P\x00S", Limit: 1},
		"empty hash":           {Limit: 1},
		"NUL in sort":          {HashValue: "P", SortOp: table.SortLess, SortValue: "a\x00", Limit: 1},
		"empty sort":           {HashValue: "P", SortOp: table.SortBeginsWith, Limit: 1},
		"unknown sort op":      {HashValue: "P", SortOp: 9, SortValue: "a", Limit: 1},
		"start key elsewhere":  {HashValue: "P", Limit: 1, StartKey: table.Item{table.AttrPK: table.S("Q"), table.AttrSK: table.S("S")}},
		"start key without SK": {HashValue: "P", Limit: 1, StartKey: table.Item{table.AttrPK: table.S("P")}},
		"index start key without sort": {Index: table.IndexAll, HashValue: "H", Limit: 1,
			StartKey: table.Item{table.AttrPK: table.S("P"), table.AttrSK: table.S("S"), table.AttrGSI4PK: table.S("H")}},
	} {
		if _, err := tbl.Query(ctx, q); table.ErrorCode(err) != table.EINVALID {
			t.Errorf("Query %s: %v, want EINVALID", name, err)
		}
	}
	for _, c := range []struct{ seg, total, limit int }{{0, 0, 1}, {1, 1, 1}, {-1, 2, 1}, {0, 1, 0}} {
		if _, _, err := tbl.Scan(ctx, c.seg, c.total, nil, c.limit); table.ErrorCode(err) != table.EINVALID {
			t.Errorf("Scan(%d, %d, limit %d): %v, want EINVALID", c.seg, c.total, c.limit, err)
		}
	}
	if _, _, err := tbl.Scan(ctx, 0, 1, table.Item{table.AttrPK: table.S("P")}, 1); table.ErrorCode(err) != table.EINVALID {
		t.Errorf("Scan from a key without SK: %v", err)
	}
}

func TestCancelledIsUnavailable(t *testing.T) {
	tbl := MustOpen(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := tbl.Get(ctx, table.Key{PK: "a", SK: "b"})
	if table.ErrorCode(err) != table.EUNAVAILABLE || !errors.Is(err, context.Canceled) {
		t.Errorf("Get with a cancelled context: %v", err)
	}
}

func TestScanSegmentsByPartition(t *testing.T) {
	tbl := MustOpen(t)
	var items []table.Item
	for p := range 20 {
		for s := range 5 {
			items = append(items, table.Item{table.AttrPK: table.S(fmt.Sprintf("P%02d", p)), table.AttrSK: table.S(fmt.Sprint(s))})
		}
	}
	storetest.MustBatchPut(t, tbl, items)
	segOf := map[string]int{}
	for seg := range 3 {
		for _, it := range storetest.MustScanAll(t, tbl, seg, 3, 4) {
			pk := it.S(table.AttrPK)
			if s, ok := segOf[pk]; ok && s != seg {
				t.Errorf("partition %s is in segments %d and %d", pk, s, seg)
			}
			segOf[pk] = seg
		}
	}
	if len(segOf) != 20 {
		t.Errorf("%d partitions scanned, want 20", len(segOf))
	}
}

func TestCodec(t *testing.T) {
	c := comments(2)
	c[0][table.AttrVersion] = table.N(3)
	c[0][table.AttrAuthorID] = table.S("user")
	c[0][table.AttrHelpful] = table.N(12)
	c[0][table.AttrHSK] = table.S(store.HelpfulSortKey(12, c[0].S(table.AttrGSISK)))
	odd := maps.Clone(c[1]) // derivable attributes that differ from their rule
	odd[table.AttrHSK] = table.S(store.HelpfulSortKey(2, c[1].S(table.AttrGSISK)))
	odd[table.AttrGSIPK], odd[table.AttrGSISK], odd[table.AttrID] = table.S("PRODUCT#p1/en/9"), table.S("2025#x"), table.S("other")
	odd[table.AttrCreatedAt] = table.S("2025-01-01T00:00:00Z") // not the fixed-width form
	items := []table.Item{
		{table.AttrPK: table.S("p"), table.AttrSK: table.S("s")},
		{table.AttrPK: table.S("p"), table.AttrSK: table.S("s"), "a": table.S("")},
		{table.AttrPK: table.S("p"), table.AttrSK: table.S("s"), "n": table.N(-1), "max": table.N(math.MaxInt64), "min": table.N(math.MinInt64), "z": table.N(0)},
		{table.AttrPK: table.S("p"), table.AttrSK: table.S("s#t"), "long": table.S(strings.Repeat("é", 5000)), "nul": table.S("a\x00b"), strings.Repeat("k", 300): table.N(300)},
		{table.AttrPK: table.S("COMMENT#"), table.AttrSK: table.S("x"), "id": table.S(""), "t1": table.S("1969-12-31T23:59:59.999999999Z"), "t2": table.S("9999-12-31T23:59:59.000000000Z"),
			"t3": table.S("2025-02-30T00:00:00.000000000Z"), "t4": table.S("2025-01-01t00:00:00.000000000Z")},
		c[0], c[1], odd,
	}
	for _, it := range items {
		b, err := encodeItem(it)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeItem(baseKey(it.Key()), b)
		if err != nil || !reflect.DeepEqual(got, it) {
			t.Errorf("round trip of %v = %v, %v", it, got, err)
		}
		if b2, _ := encodeItem(got); !bytes.Equal(b, b2) {
			t.Errorf("the encoding of %v is not deterministic", it)
		}
		// Every truncation is an error, never a panic.
		for i := range len(b) {
			if _, err := decodeItem(baseKey(it.Key()), b[:i]); err == nil {
				t.Errorf("truncated encoding (%d of %d bytes) decoded", i, len(b))
			}
		}
	}
	// A comment stores neither its id, nor GSISK, nor its HSK, nor its four
	// hash keys, and its createdAt in a few bytes: far less than its
	// strings.
	b, _ := encodeItem(c[1])
	var text int
	for _, a := range []string{table.AttrProductID, table.AttrLanguage, table.AttrAuthor, table.AttrTitle, table.AttrBody} {
		text += len(c[1].S(a))
	}
	if len(b) > text+64 { // 57 here: names, tags, lengths, numbers
		t.Errorf("a comment with %d bytes of text encodes to %d bytes", text, len(b))
	}
	if _, err := encodeItem(table.Item{"f": {}}); table.ErrorCode(err) != table.EINVALID {
		t.Errorf("encoding the zero Value: %v", err)
	}
	if _, err := decodeItem([]byte("no separator"), []byte{codecVersion, 0}); err == nil {
		t.Error("decodeItem of a key without separator succeeded")
	}
	// 'd' for an attribute without a rule, or whose sources are missing.
	for _, v := range [][]byte{{codecV2, 1, 1, 'x', tagDerive}, {codecV2, 1, 0, 6, tagDerive}, {codecV1, 1, 0, 7, tagDerive}} {
		if it, err := decodeItem([]byte("COMMENT#a\x00COMMENT#a"), v); err == nil {
			t.Errorf("%v decoded to %v", v, it)
		}
	}
	// A query of an index returns the index's projection of the item.
	tbl := MustOpen(t)
	for _, ix := range tbl.indexes {
		b, _ := encodeItem(c[0])
		got, err := decodeProjected(baseKey(c[0].Key()), b, ix.keep)
		want := storetest.Project(&ix.def, c[0])
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("index %s: entry %v, %v; want %v", ix.def.Name, got, err, want)
		}
	}
}

// TestFormat1Values: values written by format 1 (no 't' or 'd' tags) still
// decode; they are what a migration reads.
func TestFormat1Values(t *testing.T) {
	v := []byte{codecV1, 3, 0, 7, tagString, 2, 'c', '1', 0, 10, tagNumber, 6, 1, 'x', tagString, 0}
	got, err := decodeItem([]byte("COMMENT#c1\x00COMMENT#c1"), v)
	want := table.Item{table.AttrPK: table.S("COMMENT#c1"), table.AttrSK: table.S("COMMENT#c1"), "id": table.S("c1"), "rating": table.N(3), "x": table.S("")}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("format-1 value = %v, %v; want %v", got, err, want)
	}
}

// TestEntryOrder: index entry keys sort as (sort, PK, SK) do, whether the
// table key is derived from the sort value or spelled out, in partitions of
// strings, of times and of counted times, and point back to their item.
func TestEntryOrder(t *testing.T) {
	type tuple struct{ sort, pk, sk string }
	t1, t2 := "2025-01-01T00:00:00.000000000Z", "2025-01-01T00:00:00.000000001Z"
	times := []string{t1 + "#c1", t1 + "#c2", t2 + "#c1", t1 + "#c1#c2", t1 + "#a", "1969-12-31T23:59:59.999999999Z#c0"}
	var counted []string
	for _, n := range []string{"0000000000#", "0000000001#", "0000000300#", "9999999999#"} {
		for _, s := range times {
			counted = append(counted, n+s)
		}
	}
	for _, p := range []partition{{prefix: []byte{7}, kind: kindStrings}, {prefix: []byte{0x81, 1}, kind: kindTimes}, {prefix: []byte{3}, kind: kindCounted}} {
		var sorts []string
		switch p.kind {
		case kindStrings:
			sorts = slices.Concat(times, counted, []string{"a", "t#c1", "t#", "u#c1"})
		case kindTimes:
			sorts = times
		case kindCounted:
			sorts = counted
		}
		keys := []string{"COMMENT#c1", "COMMENT#c2", "COMMENT#", "A", "COMMENT#c1x", "Z", "COMMENT#c0", "COMMENT#c2#c2"}
		var ts []tuple
		for _, s := range sorts {
			for _, pk := range keys {
				for _, sk := range keys {
					ts = append(ts, tuple{s, pk, sk})
				}
			}
		}
		enc := func(x tuple) []byte {
			k, ok := p.key(entryRef{hash: "h", sort: x.sort, pk: x.pk, sk: x.sk})
			if !ok {
				t.Fatalf("partition %+v cannot hold %v", p, x)
			}
			return k
		}
		for _, x := range ts {
			sort, ik, ok := p.decode(enc(x))
			if !ok || sort != x.sort || !bytes.Equal(ik, baseKey(table.Key{PK: x.pk, SK: x.sk})) {
				t.Errorf("entry of %v decodes to %q, %q, %v", x, sort, ik, ok)
			}
			for _, y := range ts {
				want := cmp.Or(strings.Compare(x.sort, y.sort), strings.Compare(x.pk, y.pk), strings.Compare(x.sk, y.sk))
				if got := bytes.Compare(enc(x), enc(y)); got != want {
					t.Fatalf("partition %+v: entries %v and %v compare %d, want %d", p, x, y, got, want)
				}
			}
		}
		switch p.kind {
		case kindTimes:
			if k := enc(tuple{t1 + "#C1", "COMMENT#C1", "COMMENT#C1"}); len(k) != 2+timeKeyLen+len("C1")+2 {
				t.Errorf("a comment's entry %q is not compact", k)
			}
		case kindCounted:
			if k := enc(tuple{"0000000042#" + t1 + "#C1", "COMMENT#C1", "COMMENT#C1"}); len(k) != 1+countKeyLen+timeKeyLen+len("C1")+2 {
				t.Errorf("a comment's helpful entry %q is not compact", k)
			}
		}
	}
	for _, kind := range []byte{kindTimes, kindCounted} {
		p := partition{prefix: []byte{1}, kind: kind}
		for _, s := range []string{"a", "2025-01-01T00:00:00.000000000Z", "2025-01-01T00:00:00.000000000Z#", "2025-01-01T00:00:00.000000000Zx1",
			"0000000001#", "0000000001#a", "000000001#" + t1 + "#c1", "00000000x1#" + t1 + "#c1", "0000000001x" + t1 + "#c1", "0000000001#" + t1 + "#"} {
			if k, ok := p.key(entryRef{hash: "h", sort: s, pk: "P", sk: "S"}); ok {
				t.Errorf("a partition of kind %c holds %q as %q", kind, s, k)
			}
		}
	}
	counts := partition{prefix: []byte{1}, kind: kindCounted}
	for _, k := range []string{"\x01\x02\x54\x0b\xe4\x00" + strings.Repeat("\x00", 9) + "c\x00\x02"} { // a count above 9,999,999,999
		if _, ik, ok := counts.decode([]byte(k)); ok {
			t.Errorf("malformed entry %q points to %q", k, ik)
		}
	}
	strs := partition{prefix: []byte{7}}
	for _, k := range []string{"", "\x07", "\x07s", "\x07s\x00", "\x07s\x00\x02x", "\x07s\x00\x01nosep", "\x07s\x00\x09a\x00b", "\x08s\x00\x02"} {
		if _, ik, ok := strs.decode([]byte(k)); ok {
			t.Errorf("malformed entry %q points to %q", k, ik)
		}
	}
}

func FuzzDecode(f *testing.F) {
	b, _ := encodeItem(table.Item{"a": table.S("x"), "n": table.N(7)})
	f.Add(b)
	b, _ = encodeItem(comments(1)[0])
	f.Add(b)
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add([]byte{1, 1, 1, 'a', 's', 0xff})
	key := baseKey(comments(1)[0].Key())
	f.Fuzz(func(t *testing.T, b []byte) {
		it, err := decodeItem(key, b)
		if err != nil {
			return
		}
		// What decodes re-encodes to a decodable item equal to it.
		b2, err := encodeItem(it)
		if err != nil {
			t.Fatal(err)
		}
		it2, err := decodeItem(key, b2)
		if err != nil || !reflect.DeepEqual(it, it2) {
			t.Fatalf("re-encoding %v gives %v, %v", it, it2, err)
		}
	})
}

func TestPrefixEnd(t *testing.T) {
	for in, want := range map[string]string{"a": "b", "a\x00": "a\x01", "a\xff": "b", "a\xff\xff": "b", "\xff": ""} {
		got := prefixEnd([]byte(in))
		if string(got) != want || (want == "" && got != nil) {
			t.Errorf("prefixEnd(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBatchPutDuplicates(t *testing.T) {
	tbl := MustOpen(t, WithBatchSize(2))
	c := comments(3)
	storetest.MustBatchPut(t, tbl, c)
	// Two versions of c[0] in one batch, in different partitions: the last
	// one wins and the first leaves no index entry behind.
	v1, v2 := maps.Clone(c[0]), maps.Clone(c[0])
	v1[table.AttrGSI4PK], v1["n"] = table.S("PRODUCT#one"), table.N(1)
	v2[table.AttrGSI4PK], v2["n"] = table.S("PRODUCT#two"), table.N(2)
	storetest.MustBatchPut(t, tbl, []table.Item{v1, c[1], v2})
	if got := storetest.MustGet(t, tbl, c[0].Key()); !reflect.DeepEqual(got, v2) {
		t.Errorf("after a batch with two versions, Get = %v, want the last", got)
	}
	for h, n := range map[string]int{"PRODUCT#one": 0, "PRODUCT#two": 1, c[0].S(table.AttrGSI4PK): 0} {
		got := storetest.MustQueryAll(t, tbl, table.Query{Index: table.IndexAll, HashValue: h, Limit: 10})
		if len(got) != n {
			t.Errorf("partition %s has %d items, want %d", h, len(got), n)
		}
	}
}

// TestRulesMatchWhatTheyDerive: the encoder's test of a rule (matches) says
// yes exactly for the value the decoder derives.
func TestRulesMatchWhatTheyDerive(t *testing.T) {
	srcs := []sources{
		{pk: "COMMENT#c1", id: "c1", hasID: true, createdAt: "2025-01-01T00:00:00.000000000Z", hasCreatedAt: true,
			productID: "p1", hasProductID: true, language: "en", hasLanguage: true, rating: 5, hasRating: true},
		{pk: "COMMENT#", productID: "", hasProductID: true, language: "", hasLanguage: true, rating: -12, hasRating: true},
		{pk: "OTHER", id: "x", hasID: true, productID: "p/1", hasProductID: true, rating: 0, hasRating: true},
		{pk: "COMMENT#c2", createdAt: "t", hasCreatedAt: true, language: "de", hasLanguage: true},
		{pk: "COMMENT#c1", id: "c1", hasID: true, createdAt: "2025-01-01T00:00:00.000000000Z", hasCreatedAt: true, helpful: 7},
		{pk: "COMMENT#c1", id: "c1", hasID: true, createdAt: "2025-01-01T00:00:00.000000000Z", hasCreatedAt: true, helpful: -1},
		{pk: "COMMENT#c1", id: "c1", hasID: true, createdAt: "2025-01-01T00:00:00.000000000Z", hasCreatedAt: true, helpful: 1e10},
	}
	for _, src := range srcs {
		for name, r := range derivations {
			ok := r.ready(src)
			var want string
			if ok {
				want = r.derive(src)
			}
			values := []string{"", "x", "COMMENT#c1", "c1", "PRODUCT#p1", "PRODUCT#p1/en", "PRODUCT#p1/5", "PRODUCT#p1/en/5",
				"p1", "p1/en/5", "PRODUCT#/", "PRODUCT#//-12", "PRODUCT#p/1/0", "2025-01-01T00:00:00.000000000Z#c1", "t#",
				"0000000007#2025-01-01T00:00:00.000000000Z#c1", "0000000000#2025-01-01T00:00:00.000000000Z#c1", "000000007#2025-01-01T00:00:00.000000000Z#c1",
				"-000000001#2025-01-01T00:00:00.000000000Z#c1", "0000000007#2025-01-01T00:00:00.000000000Z#c2", "0000000007#t#c1"}
			if ok {
				values = append(values, want, want+"x", want[:len(want)/2])
			}
			for _, v := range values {
				if got := r.matches(v, src); got != (ok && v == want) {
					t.Errorf("rule %s, sources %+v: matches(%q) = %v, derive = %q, %v", name, src, v, got, want, ok)
				}
			}
		}
	}
}

// TestPartitionOfTimes: a partition of comments holds times; queries with
// bounds that are not times still answer exactly (a recount); an item whose
// sort value is not a time turns the partition into one of strings, and
// removing it does not turn it back.
func TestPartitionOfTimes(t *testing.T) {
	tbl := MustOpen(t)
	items := comments(60) // product p3: 9 comments
	storetest.MustBatchPut(t, tbl, items)
	hash := items[3].S(table.AttrGSI4PK)
	isTimes := func() bool { return tbl.partitionKind(hash, table.AttrGSISK) == kindTimes }
	check := func(all []table.Item) {
		t.Helper()
		mid := items[3].S(table.AttrGSISK)
		for _, c := range []struct {
			op table.SortOp
			v  string
		}{{table.SortNone, ""}, {table.SortLess, mid}, {table.SortGreater, mid}, {table.SortLess, mid[:7]}, {table.SortGreater, mid[:13]},
			{table.SortBeginsWith, mid[:8]}, {table.SortLess, "zzz"}, {table.SortGreater, "0"}, {table.SortGreater, mid + "!"}} {
			for _, fwd := range []bool{true, false} {
				checkRecount(t, tbl, table.Query{Index: table.IndexAll, HashValue: hash, SortOp: c.op, SortValue: c.v, Forward: fwd, Limit: 2}, all)
			}
		}
	}
	if !isTimes() {
		t.Fatal("a partition of comments is not one of times")
	}
	check(items)
	odd := table.Item{table.AttrPK: table.S("X"), table.AttrSK: table.S("Y"), table.AttrGSI4PK: table.S(hash), table.AttrGSISK: table.S("2025-03")}
	storetest.MustPut(t, tbl, odd)
	if isTimes() {
		t.Fatal("the partition holds a string but is still one of times")
	}
	all := append(slices.Clone(items), odd)
	check(all)
	if err := tbl.checkIndexes(); err != nil {
		t.Fatal(err)
	}
	storetest.MustWrite(t, tbl, table.Op{Kind: table.OpDelete, Key: odd.Key()})
	check(items)
}
