package bolt

import (
	"cmp"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/storetest"
	"github.com/acme/comments-gateway/store/table"
)

// recount is the model of a query: the keys of the items of all that q
// returns over all its pages, in its order.
func recount(q table.Query, all []table.Item) []table.Key {
	d, _ := table.IndexByName(q.Index)
	var sorted []table.Item
	for _, it := range all {
		s, ok := it[d.Sort].Str()
		if it.S(d.Hash) != q.HashValue || !ok {
			continue
		}
		if q.SortOp == table.SortLess && !(s < q.SortValue) || q.SortOp == table.SortGreater && !(s > q.SortValue) ||
			q.SortOp == table.SortBeginsWith && !strings.HasPrefix(s, q.SortValue) {
			continue
		}
		sorted = append(sorted, it)
	}
	slices.SortFunc(sorted, func(a, b table.Item) int {
		c := cmp.Or(strings.Compare(a.S(d.Sort), b.S(d.Sort)), strings.Compare(a.S(table.AttrPK), b.S(table.AttrPK)))
		if !q.Forward {
			c = -c
		}
		return c
	})
	keys := make([]table.Key, len(sorted))
	for i, it := range sorted {
		keys[i] = it.Key()
	}
	return keys
}

// checkRecount compares the keys q returns over all its pages with
// recount's.
func checkRecount(t *testing.T, tbl *Table, q table.Query, all []table.Item) {
	t.Helper()
	var got []table.Key
	for _, it := range storetest.MustQueryAll(t, tbl, q) {
		got = append(got, it.Key())
	}
	if want := recount(q, all); !slices.Equal(got, want) {
		t.Errorf("%+v: %v, want %v", q, got, want)
	}
}

// partitionKind returns the kind of the partition of hash value hash in
// the index sorted by sortAttr (0: none).
func (t *Table) partitionKind(hash, sortAttr string) byte {
	var kind byte
	t.db.View(func(tx *bbolt.Tx) error {
		if p, ok := (partitions{b: tx.Bucket(bucketPartitions)}).get(partitionName(hash, sortAttr)); ok {
			kind = p.kind
		}
		return nil
	})
	return kind
}

// withHelpful gives the published comments of items helpful counts (some
// equal, one as large as HSK holds) and their HSK.
func withHelpful(items []table.Item) {
	for i, it := range items {
		if _, published := it[table.AttrGSI4PK]; !published {
			continue
		}
		n := int64(i % 4)
		if i == 5 {
			n = 9_999_999_999
		}
		if n > 0 {
			it[table.AttrHelpful] = table.N(n)
		}
		it[table.AttrHSK] = table.S(store.HelpfulSortKey(n, it.S(table.AttrGSISK)))
	}
}

// TestHelpfulIndexes: the twins sorted by HSK hold the comments that carry
// it, in partitions of counted times that leave those of the public
// indexes (same hash values) partitions of times; they answer every sort
// condition in both directions (a recount), project what the public
// indexes do plus HSK, and follow an update of HSK alone.
func TestHelpfulIndexes(t *testing.T) {
	tbl := MustOpen(t)
	all := comments(60)
	withHelpful(all)
	storetest.MustBatchPut(t, tbl, all[:30])
	storetest.MustPut(t, tbl, all[30:]...) // the writer's path too
	p := all[3]
	hsk := p.S(table.AttrHSK)
	check := func(all []table.Item) {
		t.Helper()
		for _, d := range table.HelpfulIndexes {
			hash := p.S(d.Hash)
			for _, c := range []struct {
				op table.SortOp
				v  string
			}{{table.SortNone, ""}, {table.SortLess, hsk}, {table.SortGreater, hsk}, {table.SortLess, "0000000002"},
				{table.SortGreater, "0000000001#"}, {table.SortLess, hsk[:20]}, {table.SortBeginsWith, "0000000002#"},
				{table.SortGreater, "9999999999#"}, {table.SortLess, "zzz"}, {table.SortGreater, hsk + "!"}} {
				for _, fwd := range []bool{true, false} {
					for _, limit := range []int{1, 2, 100} {
						checkRecount(t, tbl, table.Query{Index: d.Name, HashValue: hash, SortOp: c.op, SortValue: c.v, Forward: fwd, Limit: limit}, all)
					}
				}
			}
		}
	}
	for _, d := range table.HelpfulIndexes {
		if k := tbl.partitionKind(p.S(d.Hash), d.Sort); k != kindCounted {
			t.Errorf("index %s: partition of kind %q, want counted times", d.Name, k)
		}
		if k := tbl.partitionKind(p.S(d.Hash), table.AttrGSISK); k != kindTimes {
			t.Errorf("the public partition %s: of kind %q, want times", p.S(d.Hash), k)
		}
	}
	check(all)

	// Projection: the public indexes' attributes and HSK; not GSISK, the
	// version, the count nor the other indexes' hash keys.
	d := table.HelpfulIndexes[0]
	got := storetest.MustQuery(t, tbl, table.Query{Index: d.Name, HashValue: p.S(d.Hash), SortOp: table.SortBeginsWith, SortValue: p.S(table.AttrHSK), Limit: 10}).Items
	want := table.Item{}
	for _, a := range append([]string{table.AttrPK, table.AttrSK, d.Hash, d.Sort}, d.Projection...) {
		if v, ok := p[a]; ok {
			want[a] = v
		}
	}
	if len(got) != 1 || fmt.Sprint(got[0]) != fmt.Sprint(want) {
		t.Errorf("index %s projects %v, want %v", d.Name, got, want)
	}

	// A vote settled: only HSK (and the count) change; the entry moves.
	for _, n := range []int64{2, 0, 10} {
		v := table.S(store.HelpfulSortKey(n, p.S(table.AttrGSISK)))
		storetest.MustWrite(t, tbl, table.Op{Kind: table.OpUpdate, Key: p.Key(), Set: table.Item{table.AttrHSK: v}})
		p[table.AttrHSK] = v
		check(all)
		if err := tbl.checkIndexes(); err != nil {
			t.Fatal(err)
		}
	}
	// Unpublished: no HSK, in no twin.
	storetest.MustWrite(t, tbl, table.Op{Kind: table.OpUpdate, Key: p.Key(), Remove: []string{table.AttrHSK}})
	delete(p, table.AttrHSK)
	check(all)
}

// mustGunzipFixture copies testdata/name.gz, uncompressed, to a temporary
// file.
func mustGunzipFixture(t *testing.T, name string) string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOldFileGetsHelpfulTwins is the upgrade path of a bolt file to the
// helpful twins (docs/design.md §3.3): testdata/pretwins.db.gz, written by
// main 0faa2b3 (format 2, six indexes; 90 comments of 5 products, helpful
// counts 0 to 3, 20 of them pending or hidden), opens with its index
// buckets rebuilt, every published comment given the HSK of its count and
// none of the others, and the twins answering as a recount.
func TestOldFileGetsHelpfulTwins(t *testing.T) {
	tbl := MustOpenPath(t, mustGunzipFixture(t, "pretwins.db"))
	all := storetest.MustScanAll(t, tbl, 0, 1, 1000)
	published := 0
	for _, it := range all {
		_, pub := it[table.AttrGSI4PK]
		hsk, has := it[table.AttrHSK].Str()
		if want := store.HelpfulSortKey(it.N(table.AttrHelpful), it.S(table.AttrGSISK)); pub != has || has && hsk != want {
			t.Errorf("%v: published %v, HSK %q; want it iff published, %q", it.Key(), pub, hsk, want)
		}
		if pub {
			published++
		}
	}
	if len(all) != 90 || published != 70 {
		t.Fatalf("%d items, %d published; want 90, 70", len(all), published)
	}
	for _, d := range table.HelpfulIndexes {
		for _, it := range all[:10] {
			if h, ok := it[d.Hash].Str(); ok {
				for _, fwd := range []bool{true, false} {
					checkRecount(t, tbl, table.Query{Index: d.Name, HashValue: h, Forward: fwd, Limit: 3}, all)
				}
			}
		}
	}
}
