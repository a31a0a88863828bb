package bolt

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/acme/comments-gateway/store/table"
)

// TestCompactFileMinGain: a file written in random key order is compacted
// to fewer bytes with the same items, the indexes still matching them; a
// compact file is left as it is (not rewritten) when less than minGain of
// it is slack, and rewritten when minGain is 0.
func TestCompactFileMinGain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "comments.db")
	tbl, err := Open(path, WithBatchSize(50))
	if err != nil {
		t.Fatal(err)
	}
	items := comments(4000)
	rand.New(rand.NewPCG(1, 1)).Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	if err := tbl.BatchPut(t.Context(), items); err != nil {
		t.Fatal(err)
	}
	want := scanAll(t, tbl)
	used, _ := tbl.Size()
	tbl.Close()

	_, after, err := CompactFile(path, DefaultLockTimeout, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	if tbl, err = Open(path); err != nil {
		t.Fatal(err)
	}
	if err := tbl.checkIndexes(); err != nil {
		t.Error(err)
	}
	if now, _ := tbl.Size(); now >= used*3/4 { // the file grows by 16 MB steps: its size may not change
		t.Errorf("compacting took the pages in use from %d to %d bytes, want less than 3/4", used, now)
	}
	if got := scanAll(t, tbl); !reflect.DeepEqual(got, want) {
		t.Errorf("%d items after compacting, not the %d before", len(got), len(want))
	}
	tbl.Close()

	fi, _ := os.Stat(path)
	if b, a, err := CompactFile(path, DefaultLockTimeout, 0.2); err != nil || a != b || b != after {
		t.Errorf("CompactFile of a compact file = %d, %d, %v; want it left at %d", b, a, err, after)
	}
	if fi2, _ := os.Stat(path); !os.SameFile(fi, fi2) {
		t.Error("a compact file was rewritten")
	}
	if _, _, err := CompactFile(path, DefaultLockTimeout, 0); err != nil {
		t.Fatal(err)
	}
	if fi2, _ := os.Stat(path); os.SameFile(fi, fi2) {
		t.Error("minGain 0 did not rewrite the file")
	}
}

// scanAll returns every item of tbl, in key order.
func scanAll(t *testing.T, tbl *Table) []table.Item {
	t.Helper()
	var out []table.Item
	var start table.Item
	for {
		items, next, err := tbl.Scan(t.Context(), 0, 1, start, 1000)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, items...)
		if next == nil {
			return out
		}
		start = next
	}
}
