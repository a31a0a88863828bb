package command

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/demo"
	"github.com/acme/comments-gateway/store/bolt"
	"github.com/acme/comments-gateway/store/table"
)

// importFile writes n demo comments (seed) as JSON lines to a file, with
// line bad (1-based; 0: none) replaced by a bad one, and returns its path.
func importFile(t *testing.T, seed uint64, n, bad int) string {
	t.Helper()
	cfg := demo.DefaultConfig()
	cfg.Products, cfg.Comments = 20, n
	lines := demoLines(t, seed, cfg)
	if bad > 0 {
		lines[bad-1] = strings.Replace(lines[bad-1], `"rating":`, `"rating":7,"x":`, 1)
	}
	return writeLines(t, lines)
}

// storeItems returns every item of the bolt file at path, as sorted JSON.
func storeItems(t *testing.T, path string) []string {
	t.Helper()
	tbl, err := bolt.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	var out []string
	var start table.Item
	for {
		items, next, err := tbl.Scan(context.Background(), 0, 1, start, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			b, _ := json.Marshal(it)
			out = append(out, string(b))
		}
		if next == nil {
			slices.Sort(out)
			return out
		}
		start = next
	}
}

func runImport(db, file string) error {
	args := []string{"-store", "bolt:" + db, file}
	return cmdImport(context.Background(), args, func(string) string { return "" }, nil, io.Discard, io.Discard)
}

// TestImportBadLineLeavesStoreUnchanged: an import with a bad line deep in
// the file (past the first blocks of the parallel parse) writes nothing,
// into an empty file (the bulk path) or one that holds comments and stats.
func TestImportBadLineLeavesStoreUnchanged(t *testing.T) {
	bad := importFile(t, 2, 4000, 3333)
	dir := t.TempDir()
	empty, full := filepath.Join(dir, "empty.db"), filepath.Join(dir, "full.db")
	if err := runImport(full, importFile(t, 1, 500, 0)); err != nil {
		t.Fatal(err)
	}
	storeItems(t, empty) // creates it
	before := storeItems(t, full)
	for _, db := range []string{empty, full} {
		err := runImport(db, bad)
		if err == nil || !strings.HasPrefix(err.Error(), "import: line 3333: ") {
			t.Errorf("%s: got %v, want import: line 3333: …", filepath.Base(db), err)
		}
	}
	if got := storeItems(t, empty); len(got) != 0 {
		t.Errorf("empty store: %d items after the failed import", len(got))
	}
	if got := storeItems(t, full); !slices.Equal(got, before) {
		t.Errorf("store with comments: %d items after the failed import, %d before (or they differ)", len(got), len(before))
	}
}

// TestFailedImportRemovesTheFileItCreated: an import that fails into a
// bolt file it created (a bad line, a duplicate id) leaves no file behind;
// a file that existed before, an empty one or an empty store, stays.
func TestFailedImportRemovesTheFileItCreated(t *testing.T) {
	bad := importFile(t, 3, 300, 120)
	dir := t.TempDir()
	created := filepath.Join(dir, "created.db")
	if err := runImport(created, bad); err == nil {
		t.Fatal("the bad import succeeded")
	}
	if _, err := os.Stat(created); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the file the failed import created is still there (stat: %v)", err)
	}
	zero, emptyStore := filepath.Join(dir, "zero.db"), filepath.Join(dir, "empty.db")
	if err := os.WriteFile(zero, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	storeItems(t, emptyStore) // creates it
	for _, db := range []string{zero, emptyStore} {
		if err := runImport(db, bad); err == nil {
			t.Fatalf("%s: the bad import succeeded", filepath.Base(db))
		}
		if _, err := os.Stat(db); err != nil {
			t.Errorf("%s existed before the failed import: %v", filepath.Base(db), err)
		}
	}
	if err := runImport(created, importFile(t, 3, 300, 0)); err != nil {
		t.Fatal(err)
	}
	if got := storeItems(t, created); len(got) < 300 {
		t.Errorf("a good import into a new file: %d items", len(got))
	}
}
