package bolt

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/storetest"
	"github.com/acme/comments-gateway/store/table"
)

// format1Items are the items of testdata/format1.db, a file written by the
// format-1 code (commit 72d0b09, then compacted with bbolt.Compact): 150
// comments of 7 products in two languages, one of them with an owner and a
// version, the stats of product p1 on the leaderboard, and an item of no
// index.
func format1Items() []table.Item {
	items := comments(150)
	items[3][table.AttrAuthorID] = table.S("user-3")
	items[3][table.AttrVersion] = table.N(4)
	st := &store.Stats{ProductID: "p1", Counts: [6]int64{0, 4, 4, 5, 4, 4}, Total: 21, Version: 2}
	// The stats item as format 1's code wrote it: its own leaderboard entry
	// (before write sharding; rebuild-stats migrates it).
	stats := st.Item()
	stats[table.AttrGSIPK], stats[table.AttrGSISK] = table.S(store.LeadersPK("")), table.S(store.LeadersSK(4, "p1"))
	return append(items, stats, table.Item{table.AttrPK: table.S("OTHER"), table.AttrSK: table.S("x"), "n": table.N(-7), "s": table.S("a\x00b")})
}

// mustCopyFixture copies testdata/format1.db to a temporary file.
func mustCopyFixture(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/format1.db")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "old.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// metaOf returns the meta bucket's format and whether a migration is
// under way, and the names of the buckets, read with bbolt directly.
func metaOf(t *testing.T, path string) (format string, migrating bool, buckets []string) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.View(func(tx *bbolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		format, migrating = string(meta.Get(metaFormat)), meta.Get(metaMigrating) != nil
		return tx.ForEach(func(name []byte, _ *bbolt.Bucket) error {
			buckets = append(buckets, string(name))
			return nil
		})
	})
	return format, migrating, buckets
}

// checkMigrated checks that tbl holds exactly format1Items, that its index
// buckets are right, and that queries of every index return what a recount
// of the items gives.
func checkMigrated(t *testing.T, tbl *Table) {
	t.Helper()
	if err := tbl.checkIndexes(); err != nil {
		t.Fatal(err)
	}
	want := format1Items()
	got, next, err := tbl.Scan(t.Context(), 0, 1, nil, 1000)
	if err != nil || next != nil || len(got) != len(want) {
		t.Fatalf("Scan: %d items (next %v, %v), want %d", len(got), next, err, len(want))
	}
	for _, it := range want {
		if g := storetest.MustGet(t, tbl, it.Key()); !reflect.DeepEqual(g, it) {
			t.Errorf("%v = %v, want %v", it.Key(), g, it)
		}
	}
	// Product p3's comments, newest first, in each index: a recount.
	for _, d := range table.Indexes {
		var keys []table.Key
		hash := want[3].S(d.Hash) // a comment of product p3
		var sorted []table.Item
		for _, it := range want {
			if it.S(d.Hash) == hash {
				sorted = append(sorted, it)
			}
		}
		slices.SortFunc(sorted, func(a, b table.Item) int { return strings.Compare(b.S(table.AttrGSISK), a.S(table.AttrGSISK)) })
		for _, it := range sorted {
			keys = append(keys, it.Key())
		}
		res := storetest.MustQueryAll(t, tbl, table.Query{Index: d.Name, HashValue: hash, Limit: 4})
		var gotKeys []table.Key
		for _, it := range res {
			gotKeys = append(gotKeys, it.Key())
		}
		if len(keys) == 0 || !slices.Equal(gotKeys, keys) {
			t.Errorf("index %s, partition %s: %v, want %v", d.Name, hash, gotKeys, keys)
		}
	}
	lead := storetest.MustQueryAll(t, tbl, table.Query{Index: table.IndexByLangAndRating, HashValue: store.LeadersPK(""), Limit: 5})
	if len(lead) != 1 || lead[0].N("count_5") != 4 {
		t.Errorf("leaderboard after migration: %v", lead)
	}
}

func TestMigrateFormat1(t *testing.T) {
	path := mustCopyFixture(t)
	if format, _, buckets := metaOf(t, path); format != "1" || !slices.Contains(buckets, "index:all") {
		t.Fatalf("the fixture has format %q and buckets %v", format, buckets)
	}
	defer func(n int) { migrateChunk = n }(migrateChunk)
	migrateChunk = 7 // many transactions
	var log bytes.Buffer
	tbl, err := Open(path, WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	if err != nil {
		t.Fatal(err)
	}
	checkMigrated(t, tbl)
	if !strings.Contains(log.String(), "migrating to format "+formatVersion) || !strings.Contains(log.String(), "items=152") {
		t.Errorf("log of the migration:\n%s", log.String())
	}
	// It takes writes, and reopens without migrating again.
	c := comments(151)[150]
	storetest.MustPut(t, tbl, c)
	tbl.Close()
	format, migrating, buckets := metaOf(t, path)
	if format != formatVersion || migrating || slices.ContainsFunc(buckets, func(b string) bool { return strings.HasPrefix(b, "index:") }) {
		t.Errorf("after migration: format %q, migrating %v, buckets %v", format, migrating, buckets)
	}
	log.Reset()
	tbl = MustOpenPath(t, path, WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	if log.Len() != 0 {
		t.Errorf("reopening logged %s", log.String())
	}
	if got := storetest.MustGet(t, tbl, c.Key()); !reflect.DeepEqual(got, c) {
		t.Errorf("after reopen %v = %v", c.Key(), got)
	}
}

// TestMigrateResumes: a migration that stops half-way (a crash, a full
// disk) leaves a file that the old program refuses and that the next Open
// finishes migrating.
func TestMigrateResumes(t *testing.T) {
	path := mustCopyFixture(t)
	defer func(n int) { migrateChunk = n }(migrateChunk)
	defer func() { rebuildChunkHook = nil }()
	migrateChunk = 10
	crash := errors.New("crash")
	rebuildChunkHook = func(done int) error {
		if done >= 50 {
			return crash
		}
		return nil
	}
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "crash") {
		t.Fatalf("Open with a crash half-way: %v", err)
	}
	if format, migrating, _ := metaOf(t, path); format != formatVersion || !migrating {
		t.Fatalf("after the crash: format %q, migrating %v", format, migrating)
	}
	rebuildChunkHook = nil
	var log bytes.Buffer
	tbl := MustOpenPath(t, path, WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	checkMigrated(t, tbl)
	if !strings.Contains(log.String(), "resuming=true") || !strings.Contains(log.String(), "items=102") {
		t.Errorf("log of the resumed migration:\n%s", log.String())
	}
}
