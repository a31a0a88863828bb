package bolt

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/acme/comments-gateway/demo"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// allItems returns every item of t, each as JSON, sorted.
func allItems(tb testing.TB, t *Table) []string {
	tb.Helper()
	var out []string
	var start table.Item
	for {
		items, next, err := t.Scan(context.Background(), 0, 1, start, 500)
		if err != nil {
			tb.Fatalf("Scan: %v", err)
		}
		for _, it := range items {
			b, _ := json.Marshal(it)
			out = append(out, string(b))
		}
		if next == nil {
			break
		}
		start = next
	}
	slices.Sort(out)
	return out
}

// bulkComments are demo comments of a few products.
func bulkComments() []*store.Comment {
	cfg := demo.DefaultConfig()
	cfg.Products, cfg.Comments = 12, 3000
	return demo.Generate(demo.NewRand(7), cfg)
}

// bulkLoad loads cs into s with a BulkLoad, in batches of 700, and
// rebuilds the stats.
func bulkLoad(tb testing.TB, s *store.Store, cs []*store.Comment) store.RebuildResult {
	tb.Helper()
	ctx := context.Background()
	b, err := s.StartBulkLoad(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	err = b.Load(ctx, func(put func([]*store.Comment) error) error {
		for batch := range slices.Chunk(cs, 700) {
			if err := put(batch); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	res, err := b.Stats(ctx, 3)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// TestBulkLoadIsPutAndRebuild: a bulk load into an empty file (stats
// counted as the comments are put, synced once) and into a file that held
// comments (the general path) leave exactly the items, stats included, of
// PutComments followed by RebuildStats' scan.
func TestBulkLoadIsPutAndRebuild(t *testing.T) {
	ctx := context.Background()
	cs := bulkComments()
	for _, before := range []int{0, 100} {
		refTbl := MustOpen(t)
		ref := store.New(refTbl)
		if err := ref.PutComments(ctx, cs); err != nil {
			t.Fatal(err)
		}
		want, err := ref.RebuildStats(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		tbl := MustOpen(t)
		s := store.New(tbl)
		if before > 0 { // not empty: comments already there, stats stale
			if err := s.PutComments(ctx, cs[:before]); err != nil {
				t.Fatal(err)
			}
		}
		got := bulkLoad(t, s, cs)
		if got != want {
			t.Errorf("before=%d: result %+v, want %+v", before, got, want)
		}
		if a, b := allItems(t, tbl), allItems(t, refTbl); !slices.Equal(a, b) {
			t.Errorf("before=%d: %d items, want %d (or they differ)", before, len(a), len(b))
		}
		if tbl.db.NoSync || tbl.db.NoGrowSync {
			t.Errorf("before=%d: syncing not restored", before)
		}
	}
}

// TestBulkLoadFailure: when the load fails, Load returns its error, what was
// put stays, the file syncs again, and it reopens.
func TestBulkLoadFailure(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.db")
	tbl, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s := store.New(tbl)
	b, err := s.StartBulkLoad(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cs := bulkComments()
	boom := errors.New("boom")
	err = b.Load(ctx, func(put func([]*store.Comment) error) error {
		if err := put(cs[:500]); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Load: %v, want boom", err)
	}
	if tbl.db.NoSync || tbl.db.NoGrowSync {
		t.Error("syncing not restored")
	}
	if err := tbl.Close(); err != nil {
		t.Fatal(err)
	}
	tbl = MustOpenPath(t, path)
	if n := len(allItems(t, tbl)); n != 500 {
		t.Errorf("%d items after reopening, want the 500 put", n)
	}
}

// TestLoadUnsyncedErrors: an invalid item fails its own put; a cancelled
// context fails the next put; a failed commit surfaces at a later put or
// from LoadUnsynced. What was queued before a cancellation is written and
// synced.
func TestLoadUnsyncedErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	items := comments(300)
	path := filepath.Join(t.TempDir(), "c.db")
	tbl, err := Open(path, WithBatchSize(40))
	if err != nil {
		t.Fatal(err)
	}
	var putErrs []error
	err = tbl.LoadUnsynced(ctx, func(put func([]table.Item) error) error {
		bad := table.Item{table.AttrPK: table.S("x")}
		putErrs = append(putErrs, put([]table.Item{bad}))
		putErrs = append(putErrs, put(items[:200]))
		cancel()
		err := put(items[200:])
		putErrs = append(putErrs, err)
		return err
	})
	if table.ErrorCode(putErrs[0]) != table.EINVALID || putErrs[1] != nil || table.ErrorCode(putErrs[2]) != table.EUNAVAILABLE {
		t.Fatalf("puts: %v", putErrs)
	}
	if table.ErrorCode(err) != table.EUNAVAILABLE {
		t.Fatalf("LoadUnsynced: %v", err)
	}
	if err := tbl.Close(); err != nil {
		t.Fatal(err)
	}
	tbl = MustOpenPath(t, path)
	if n := len(allItems(t, tbl)); n != 200 {
		t.Errorf("%d items, want the 200 queued before the cancellation", n)
	}

	// A commit that fails (the file closed under the writer).
	closed, err := Open(filepath.Join(t.TempDir(), "closed.db"))
	if err != nil {
		t.Fatal(err)
	}
	err = closed.LoadUnsynced(context.Background(), func(put func([]table.Item) error) error {
		closed.db.Close()
		for range 10 {
			if err := put(items[:50]); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		t.Fatal("LoadUnsynced on a closed file: no error")
	}
}
