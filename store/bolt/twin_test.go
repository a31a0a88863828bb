package bolt

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
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

// twinRow is an item of a twin's partition as the model sees it.
type twinRow struct {
	sort, pk, sk string
	it           table.Item
}

// compare orders rows as an index does: sort value, then table key.
func (r twinRow) compare(o twinRow) int {
	return cmp.Or(strings.Compare(r.sort, o.sort), strings.Compare(r.pk, o.pk), strings.Compare(r.sk, o.sk))
}

// twinModel is what DynamoDB's index d holds of all in partition hash, for
// q's condition, order and start key (which need not be an item's): a
// plain sort of the fixture.
func twinModel(d table.IndexDef, q table.Query, all []table.Item) []twinRow {
	var rows []twinRow
	for _, it := range all {
		h, okh := it[d.Hash].Str()
		s, oks := it[d.Sort].Str()
		if !okh || !oks || h != q.HashValue ||
			q.SortOp == table.SortLess && s >= q.SortValue || q.SortOp == table.SortGreater && s <= q.SortValue ||
			q.SortOp == table.SortBeginsWith && !strings.HasPrefix(s, q.SortValue) {
			continue
		}
		rows = append(rows, twinRow{s, it.S(table.AttrPK), it.S(table.AttrSK), it})
	}
	slices.SortFunc(rows, func(a, b twinRow) int {
		if q.Forward {
			return a.compare(b)
		}
		return b.compare(a)
	})
	if q.StartKey != nil {
		st := twinRow{q.StartKey.S(d.Sort), q.StartKey.S(table.AttrPK), q.StartKey.S(table.AttrSK), nil}
		rows = slices.DeleteFunc(rows, func(r twinRow) bool {
			c := r.compare(st)
			return q.Forward && c <= 0 || !q.Forward && c >= 0
		})
	}
	return rows
}

// isProjected reports whether got is item it as index d projects it.
func isProjected(d table.IndexDef, got, it table.Item) bool {
	n := 0
	for _, a := range append([]string{table.AttrPK, table.AttrSK, d.Hash, d.Sort}, d.Projection...) {
		if v, ok := it[a]; ok {
			if got[a] != v {
				return false
			}
			n++
		}
	}
	return len(got) == n
}

// checkTwin compares every page of q (a twin's) with twinModel: the
// items, as projected, and the last key of each page; and reads each page
// again with the columns of every attribute of all, from an arena, which
// must answer the same as records (twinRecords).
func checkTwin(t *testing.T, tbl *Table, d table.IndexDef, q table.Query, all []table.Item) {
	t.Helper()
	want := twinModel(d, q, all)
	cols := columnsOfAll(all)
	arena := new(table.RecordArena)
	defer arena.Free()
	for page := 0; ; page++ {
		res := storetest.MustQuery(t, tbl, q)
		rq := q
		rq.Columns, rq.Arena = cols, arena
		if recs := storetest.MustQuery(t, tbl, rq); !sameRecords(cols, res, recs) {
			t.Fatalf("%+v, page %d: with columns %d records %v and %d items, last key %v; without, items %v, last key %v",
				q, page, len(recs.Records), recs.Records, len(recs.Items), recs.LastKey, res.Items, res.LastKey)
		}
		n := min(q.Limit, len(want))
		for i, it := range res.Items {
			if i >= n || !isProjected(d, it, want[i].it) {
				t.Fatalf("%+v, page %d: item %d is %v; want the %d items %v", q, page, i, it, n, want[:n])
			}
		}
		if len(res.Items) != n {
			t.Fatalf("%+v, page %d: %d items, want %d", q, page, len(res.Items), n)
		}
		want = want[n:]
		if (res.LastKey != nil) != (len(want) > 0) {
			t.Fatalf("%+v, page %d: last key %v with %d items to follow", q, page, res.LastKey, len(want))
		}
		if res.LastKey == nil {
			return
		}
		q.StartKey = res.LastKey
	}
}

// columnsOfAll returns the columns of every attribute of all, and one
// that none has.
func columnsOfAll(all []table.Item) *table.Columns {
	names := map[string]bool{"absent": true}
	for _, it := range all {
		for n := range it {
			names[n] = true
		}
	}
	return table.NewColumns(slices.Sorted(maps.Keys(names))...)
}

// sameRecords reports whether recs, a read with columns cols, answers
// res's items as records (and no items), with its last key.
func sameRecords(cols *table.Columns, res, recs table.QueryResult) bool {
	if recs.Items != nil || len(recs.Records) != len(res.Items) || !reflect.DeepEqual(recs.LastKey, res.LastKey) {
		return false
	}
	for i, it := range res.Items {
		if !slices.Equal(recs.Records[i], cols.Record(it)) {
			return false
		}
	}
	return true
}

// twinFixture is a product whose comments have helpful counts with ties
// (most of them none) and times with ties, and the oddities a twin may
// hold: a published comment written before the twins (no HSK, in the
// public indexes only) and one whose HSK has a count of zero but not its
// own GSISK (stored, among the zero tail); a product with every comment
// voted, and one with none.
func twinFixture() []table.Item {
	at := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	votes := []int64{0, 0, 5, 0, 1, 0, 5, 0, 0, 2, 0, 0}
	var all []table.Item
	add := func(id, product string, i int, helpful int64) table.Item {
		c := store.Comment{
			ID: id, ProductID: product, Language: []string{"en", "de"}[i%2], Rating: 1 + i%3,
			Author: "a", Title: "t", Body: "b", CreatedAt: at.Add(time.Duration(i/3) * time.Minute), HelpfulCount: helpful,
		}
		all = append(all, c.Item())
		return all[len(all)-1]
	}
	for i := range 48 {
		add(fmt.Sprintf("c%03d", i), "tw", i, votes[i%len(votes)])
	}
	delete(add("legacy", "tw", 7, 0), table.AttrHSK)
	odd := add("odd", "tw", 20, 0)
	odd[table.AttrHSK] = table.S(store.HelpfulSortKey(0, table.FormatFixedTime(at.Add(10*time.Minute).Unix(), 0)+"#c015"))
	for i := range 6 {
		add(fmt.Sprintf("v%d", i), "voted", i, int64(1+i%2))
		add(fmt.Sprintf("n%d", i), "none", i, 0)
	}
	return all
}

// twinQueries are the queries checkTwins walks in partition hash of d:
// the whole partition, and conditions on either side of the zero tail,
// inside it and across it.
func twinQueries(d table.IndexDef, hash string, all []table.Item) []table.Query {
	type cond struct {
		op table.SortOp
		v  string
	}
	conds := []cond{{table.SortNone, ""}, {table.SortLess, zeroHSK}, {table.SortGreater, zeroHSK}, {table.SortLess, "0000000002#"},
		{table.SortGreater, "0000000001"}, {table.SortGreater, "0"}, {table.SortLess, "1"}, {table.SortGreater, "1"},
		{table.SortBeginsWith, zeroHSK}, {table.SortBeginsWith, "000"}, {table.SortBeginsWith, "0000000005#"},
		{table.SortBeginsWith, zeroHSK + "2025-06-01T00:05"}, {table.SortBeginsWith, "x"}}
	for _, it := range all[10:14] { // an item's own HSK, zero and not
		if s, ok := it[d.Sort].Str(); ok {
			conds = append(conds, cond{table.SortLess, s}, cond{table.SortGreater, s})
		}
	}
	var qs []table.Query
	for _, c := range conds {
		for _, fwd := range []bool{true, false} {
			for _, limit := range []int{1, 7, 20} {
				qs = append(qs, table.Query{Index: d.Name, HashValue: hash, SortOp: c.op, SortValue: c.v, Forward: fwd, Limit: limit})
			}
		}
	}
	return qs
}

// checkTwins walks every partition of every twin (twinQueries), or those
// of item of when it is not nil, and pages starting at every item and
// between items; and checks that each twin's bucket holds exactly the
// entries of the comments with a helpful vote (and the odd one).
func checkTwins(t *testing.T, tbl *Table, all []table.Item, of table.Item) {
	t.Helper()
	for _, d := range table.HelpfulIndexes {
		hashes := map[string]bool{}
		stored := 0
		for _, it := range all {
			h, ok := it[d.Hash].Str()
			hashes[h] = ok && (of == nil || of.S(d.Hash) == h)
			if hsk, has := it[d.Sort].Str(); ok && has && hsk != store.HelpfulSortKey(0, it.S(table.AttrGSISK)) {
				stored++
			}
		}
		if n := tbl.bucketKeys(t, indexBucketPrefix+d.Name); n != stored {
			t.Errorf("index %s stores %d entries, want %d", d.Name, n, stored)
		}
		for h, ok := range hashes {
			if !ok {
				continue
			}
			for _, q := range twinQueries(d, h, all) {
				checkTwin(t, tbl, d, q, all)
			}
			checkTwinStarts(t, tbl, d, h, all)
		}
	}
}

// checkTwinStarts pages the whole partition hash of d from start keys at
// each of its items and at sort values that are no item's.
func checkTwinStarts(t *testing.T, tbl *Table, d table.IndexDef, hash string, all []table.Item) {
	t.Helper()
	for _, fwd := range []bool{true, false} {
		q := table.Query{Index: d.Name, HashValue: hash, Forward: fwd, Limit: 7}
		var starts []table.Item
		for _, r := range twinModel(d, q, all) {
			starts = append(starts, table.Item{table.AttrPK: table.S(r.pk), table.AttrSK: table.S(r.sk), d.Hash: table.S(hash), d.Sort: table.S(r.sort)})
		}
		for _, s := range []string{zeroHSK, zeroHSK + "2025-06-01T00:05", zeroHSK + "~", "0000000001#", "0000000005#~", "5"} {
			starts = append(starts, table.Item{table.AttrPK: table.S("COMMENT#m"), table.AttrSK: table.S("COMMENT#m"), d.Hash: table.S(hash), d.Sort: table.S(s)})
		}
		for _, st := range starts {
			q.StartKey = st
			checkTwin(t, tbl, d, q, all)
		}
	}
}

// bucketKeys counts the keys of the named bucket.
func (t *Table) bucketKeys(tb testing.TB, name string) int {
	tb.Helper()
	n := 0
	err := t.db.View(func(tx *bbolt.Tx) error {
		return tx.Bucket([]byte(name)).ForEach(func(_, _ []byte) error { n++; return nil })
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// TestTwinZeroTail: a twin stores the entries of voted comments only, and
// answers as the whole index does (twinModel) — every partition, sort
// condition, direction, page size 1, 7 and 20, start key — as votes come
// and are withdrawn back to none.
func TestTwinZeroTail(t *testing.T) {
	tbl := MustOpen(t)
	all := twinFixture()
	storetest.MustBatchPut(t, tbl, all[:30])
	storetest.MustPut(t, tbl, all[30:]...) // the writer's path too
	checkTwins(t, tbl, all, nil)
	// Columns without HSK: the zero tail cannot be told from a record, so
	// the read answers Items, as without columns.
	for _, d := range table.HelpfulIndexes {
		q := table.Query{Index: d.Name, HashValue: all[0].S(d.Hash), Limit: 20}
		plain := storetest.MustQuery(t, tbl, q)
		q.Columns = table.NewColumns(table.AttrPK, table.AttrSK)
		if got := storetest.MustQuery(t, tbl, q); got.Records != nil || !reflect.DeepEqual(got.Items, plain.Items) || len(plain.Items) == 0 {
			t.Fatalf("%s without HSK in the columns: %d records, items %v; want the items %v", d.Name, len(got.Records), got.Items, plain.Items)
		}
	}
	c := all[12] // no vote
	for _, n := range []int64{3, 5, 0, 1, 0} {
		set := table.Item{table.AttrHSK: table.S(store.HelpfulSortKey(n, c.S(table.AttrGSISK)))}
		op := table.Op{Kind: table.OpUpdate, Key: c.Key(), Set: set}
		if c[table.AttrHSK] = set[table.AttrHSK]; n > 0 {
			set[table.AttrHelpful], c[table.AttrHelpful] = table.N(n), table.N(n)
		} else {
			op.Remove = []string{table.AttrHelpful}
			delete(c, table.AttrHelpful)
		}
		storetest.MustWrite(t, tbl, op)
		checkTwins(t, tbl, all, c)
		if err := tbl.checkIndexes(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFormat3Migrates: testdata/format3.db.gz, written by main eed7c75
// (format 3: every published comment in every twin; 90 comments of 3
// products, helpful counts 0 to 12 with ties, 9 pending), opens as format
// 4 with the twins holding the voted comments alone and answering as the
// whole index (twinModel).
func TestFormat3Migrates(t *testing.T) {
	tbl := MustOpenPath(t, mustGunzipFixture(t, "format3.db"))
	var format string
	tbl.db.View(func(tx *bbolt.Tx) error {
		format = string(tx.Bucket(bucketMeta).Get(metaFormat))
		return nil
	})
	if format != "4" {
		t.Errorf("format %q after Open, want 4", format)
	}
	if err := tbl.checkIndexes(); err != nil {
		t.Fatal(err)
	}
	all := storetest.MustScanAll(t, tbl, 0, 1, 1000)
	voted := 0
	for _, it := range all {
		if it.N(table.AttrHelpful) > 0 && it.S(table.AttrHSK) != "" {
			voted++
		}
	}
	if len(all) != 90 || voted != 36 {
		t.Fatalf("%d items, %d voted and published; want 90, 36", len(all), voted)
	}
	if n := tbl.bucketKeys(t, indexBucketPrefix+table.IndexHelpfulAll); n != voted {
		t.Errorf("%s stores %d entries, want %d", table.IndexHelpfulAll, n, voted)
	}
	checkTwins(t, tbl, all, nil)
}

// TestUnmarkedFileGetsMarks: a file whose public indexes hold no marks
// (written before passValue, with the signature of then) has its index
// buckets rebuilt at Open, marks and all, and its twins answer as the
// whole index.
func TestUnmarkedFileGetsMarks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "comments.db")
	tbl, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	all := twinFixture()
	storetest.MustBatchPut(t, tbl, all)
	marked := 0
	err = tbl.db.Update(func(tx *bbolt.Tx) error {
		old := strings.TrimPrefix(signature(table.AllIndexes), entryLayout+"\n")
		if err := tx.Bucket(bucketMeta).Put(metaIndexes, []byte(old)); err != nil {
			return err
		}
		for _, ix := range tbl.indexes {
			if !ix.passes {
				continue
			}
			b := tx.Bucket(ix.bucket)
			var keys [][]byte
			if err := b.ForEach(func(k, v []byte) error {
				if len(v) > 0 {
					keys = append(keys, bytes.Clone(k))
				}
				return nil
			}); err != nil {
				return err
			}
			for _, k := range keys {
				if err := b.Put(k, noValue); err != nil {
					return err
				}
			}
			marked += len(keys)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if marked == 0 || tbl.checkIndexes() == nil {
		t.Fatalf("%d marks cleared, and the unmarked file passes the check", marked)
	}
	tbl.Close()
	tbl = MustOpenPath(t, path) // checks every entry's value when the test ends
	// The rebuild gives the legacy comment its HSK: the model is the
	// items as they are now.
	checkTwins(t, tbl, storetest.MustScanAll(t, tbl, 0, 1, 1000), nil)
}
