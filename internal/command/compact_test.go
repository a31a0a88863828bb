package command

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/demo"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt"
)

// fileSize returns the size of the file at path.
func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestImportSizeIndependentOfOrder: the same 20,000 comments imported in
// three orders (sorted by product and time, shuffled, and as generated)
// give files within 10% of each other's and at most 2.2 times the JSON
// lines, with the same items: import compacts the pages a load in random
// key order leaves half full, and the helpful twins hold entries only for
// the comments with a helpful vote.
func TestImportSizeIndependentOfOrder(t *testing.T) {
	cfg := demo.DefaultConfig()
	cfg.Comments = 20_000
	lines := demoLines(t, 3, cfg)
	lines = lines[:len(lines)-1] // SplitAfter's empty last element
	type key struct{ product, created string }
	keyOf := func(line string) key {
		var c struct{ ProductID, CreatedAt string }
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		return key{c.ProductID, c.CreatedAt}
	}
	sorted := slices.Clone(lines)
	slices.SortStableFunc(sorted, func(a, b string) int {
		ka, kb := keyOf(a), keyOf(b)
		return strings.Compare(ka.product+" "+ka.created, kb.product+" "+kb.created)
	})
	shuffled := slices.Clone(lines)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	jsonBytes := int64(len(strings.Join(lines, "")))
	dir := t.TempDir()
	sizes := map[string]int64{}
	var items []string
	for _, c := range []struct {
		name  string
		lines []string
	}{{"sorted", sorted}, {"shuffled", shuffled}, {"generated", lines}} {
		db := filepath.Join(dir, c.name+".db")
		if err := runImport(db, writeLines(t, c.lines)); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		sizes[c.name] = fileSize(t, db)
		got := storeItems(t, db)
		if items == nil {
			items = got
		} else if !slices.Equal(got, items) {
			t.Errorf("%s: the items differ from the sorted import's", c.name)
		}
	}
	t.Logf("JSON lines %d bytes; files: %v", jsonBytes, sizes)
	for name, n := range sizes {
		if r := float64(n) / float64(sizes["sorted"]); r > 1.1 || r < 1/1.1 {
			t.Errorf("%s import: %d bytes, %.2f times the sorted import's", name, n, r)
		}
		if r := float64(n) / float64(jsonBytes); r > 2.2 {
			t.Errorf("%s import: %d bytes, %.2f times its JSON lines", name, n, r)
		}
	}
}

// TestCompactCommand: compact rewrites a bolt file that grew by writes in
// random key order to a smaller one with the same items; a second run
// still works; it refuses DynamoDB, arguments, a missing file (without
// creating it) and a file another process holds.
func TestCompactCommand(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	tbl, err := bolt.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	cfg := demo.DefaultConfig()
	cfg.Comments = 5000
	cs := demo.Generate(demo.NewRand(4), cfg)
	rand.New(rand.NewPCG(3, 4)).Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
	s := store.New(tbl)
	for i := 0; i < len(cs); i += 100 { // batches in random key order, as writes come
		if err := s.PutComments(t.Context(), cs[i:i+100]); err != nil {
			t.Fatal(err)
		}
	}
	tbl.Close()
	want, before := storeItems(t, db), fileSize(t, db)
	compact := func(args ...string) (string, error) {
		var stderr bytes.Buffer
		err := Run(t.Context(), append([]string{"compact"}, args...), func(string) string { return "" }, nil, &bytes.Buffer{}, &stderr)
		return stderr.String(), err
	}
	for range 2 {
		out, err := compact("-store", "bolt:"+db)
		if err != nil || !strings.HasPrefix(out, "compacted "+db+": ") {
			t.Fatalf("compact: %q, %v", out, err)
		}
	}
	if after := fileSize(t, db); after > before*3/4 {
		t.Errorf("compacted %d bytes to %d, want less than 3/4", before, after)
	}
	if got := storeItems(t, db); !slices.Equal(got, want) {
		t.Error("the compacted file's items differ")
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, "*.compact-*")); len(matches) > 0 {
		t.Errorf("left behind %v", matches)
	}

	missing := filepath.Join(dir, "missing.db")
	held, err := bolt.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-store", "dynamodb:t"}, "compact: rewrites a bolt file"},
		{[]string{"-store", "bolt:" + db, "x"}, "compact: takes no arguments"},
		{[]string{"-store", "bolt:" + missing}, "compact: not_found: no bolt store " + missing},
		{[]string{"-store", "bolt:" + db, "-lock-timeout", "50ms"}, "compact: unavailable: bolt store " + db + " is locked by another process"},
	} {
		if _, err := compact(c.args...); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("compact %v: %v, want %s…", c.args, err, c.want)
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("compact created the missing file")
	}
}
