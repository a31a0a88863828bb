package command

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/acme/comments-gateway/internal/flagenv"
	"github.com/acme/comments-gateway/internal/storespec"
	"github.com/acme/comments-gateway/jsonl"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt"
)

// cmdImport is the import command: JSON lines (jsonl.Read) bulk-loaded
// into a store (store.BulkLoad). A bad line loads nothing (the whole input
// is checked first), and a bolt file that the import created is removed
// when the import fails, never one that existed before. A bolt file is
// compacted after the load when its pages are sparse (compactAfterImport).
func cmdImport(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("import", stderr)
	spec := fs.String("store", storespec.Default, "store: bolt:PATH or dynamodb:TABLE")
	if err := flagenv.Parse(fs, args, getenv); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("import: want one FILE (or - for standard input), got %d arguments", fs.NArg())
	}
	ss, err := storespec.Parse(*spec)
	if err != nil {
		return err
	}
	in := stdin
	if name := fs.Arg(0); name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	created := false
	if ss.Kind == storespec.Bolt {
		created = createNew(ss.Arg)
	}
	loaded, err := importInto(ctx, ss, in, stdout, stderr)
	if err == nil && ss.Kind == storespec.Bolt {
		err = compactAfterImport(ss.Arg, stdout)
	}
	if err != nil && created && !loaded {
		if rerr := os.Remove(ss.Arg); rerr != nil {
			return fmt.Errorf("%w\n(%s, which this import created, could not be removed: %v)", err, ss.Arg, rerr)
		}
	}
	return err
}

// importInto loads the comments of in into the store ss and recounts the
// stats, and closes the store before it returns. loaded reports whether
// the comments are in the store (also when the stats then failed).
func importInto(ctx context.Context, ss storespec.Spec, in io.Reader, stdout, stderr io.Writer) (loaded bool, err error) {
	tbl, err := ss.Open(ctx)
	if err != nil {
		return false, err
	}
	defer tbl.Close()
	s := store.New(tbl)
	if _, err := s.ReadDesign(ctx); err != nil { // a newer gateway's table is left alone
		return false, err
	}
	defer tuneImportGC()()
	bulk, err := s.StartBulkLoad(ctx)
	if err != nil {
		return false, fmt.Errorf("import: %w", err)
	}
	bar := jsonl.NewBar(stderr)
	var sum jsonl.Summary
	err = bulk.Load(ctx, func(put func([]*store.Comment) error) error {
		var err error
		sum, err = jsonl.Read(in, jsonl.Options{Progress: bar.Update}, put)
		return err
	})
	bar.Clear()
	if err != nil {
		return false, fmt.Errorf("import: %w", err)
	}
	res, err := bulk.Stats(ctx, 8)
	if err != nil {
		return true, fmt.Errorf("import: comments loaded, but recounting the stats failed (run rebuild-stats): %w", err)
	}
	fmt.Fprintln(stdout, sum)
	fmt.Fprintf(stdout, "stats recounted: %d comments in the store, %d products\n", res.Comments, res.Products)
	return true, nil
}

// importMinGain is the share of a bolt file an import compacts it to free
// (bolt.CompactFile): input in random key order (by product, shuffled)
// leaves pages half full, a third to two thirds of the file; input in
// creation order leaves about a seventh, not worth a copy of the file.
const importMinGain = 0.2

// compactAfterImport compacts the bolt file at path that an import loaded
// into when that frees at least importMinGain of it, so that the file's
// size does not depend on the order of the input.
func compactAfterImport(path string, stdout io.Writer) error {
	start := time.Now()
	before, after, err := bolt.CompactFile(path, bolt.DefaultLockTimeout, importMinGain)
	if err != nil {
		return fmt.Errorf("import: comments loaded, but compacting the file failed (run compact): %w", err)
	}
	if after != before {
		fmt.Fprintf(stdout, "compacted: %.1f MB -> %.1f MB in %s\n", float64(before)/1e6, float64(after)/1e6, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// createNew creates an empty file at path unless one exists, and reports
// whether it did: a bolt file that the import created is its own to remove
// when the import fails, and only such a file. An error (the file exists,
// its directory does not) is left to the store's open, which reports it in
// the store's terms.
func createNew(path string) (created bool) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return false
	}
	f.Close()
	return true
}
