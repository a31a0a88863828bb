package command

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/acme/comments-gateway/internal/flagenv"
	"github.com/acme/comments-gateway/internal/storespec"
	"github.com/acme/comments-gateway/store/bolt"
)

// cmdCompact is the compact command: a bolt file rewritten with every page
// full (bolt.CompactFile), for a file that grew by writes in random key
// order or kept the pages its deletes freed. import compacts the file it
// loaded into (compactAfterImport).
func cmdCompact(args []string, getenv func(string) string, stderr io.Writer) error {
	fs := newFlags("compact", stderr)
	spec := fs.String("store", storespec.Default, "the file to compact: bolt:PATH (not held open by a server)")
	wait := fs.Duration("lock-timeout", bolt.DefaultLockTimeout, "how long to wait for a file that another process holds")
	if err := flagenv.Parse(fs, args, getenv); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("compact: takes no arguments, got %d", fs.NArg())
	}
	ss, err := storespec.Parse(*spec)
	if err != nil {
		return err
	}
	if ss.Kind != storespec.Bolt {
		return errors.New("compact: rewrites a bolt file; DynamoDB manages its own storage")
	}
	start := time.Now()
	before, after, err := bolt.CompactFile(ss.Arg, *wait, 0)
	if err != nil {
		return fmt.Errorf("compact: %w", err)
	}
	fmt.Fprintf(stderr, "compacted %s: %.1f MB -> %.1f MB in %s\n", ss.Arg, float64(before)/1e6, float64(after)/1e6, time.Since(start).Round(time.Millisecond))
	return nil
}
