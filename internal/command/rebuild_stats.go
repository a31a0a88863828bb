package command

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/acme/comments-gateway/internal/flagenv"
	"github.com/acme/comments-gateway/internal/storespec"
	"github.com/acme/comments-gateway/store"
)

// cmdRebuildStats is the rebuild-stats command: every product's stats
// recounted from its comments by a parallel scan, which also gives the
// comments written before the helpful indexes their HSK.
func cmdRebuildStats(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("rebuild-stats", stderr)
	spec := fs.String("store", storespec.Default, "store: bolt:PATH or dynamodb:TABLE")
	segments := fs.Int("segments", 8, "parallel scan segments")
	if err := flagenv.Parse(fs, args, getenv); err != nil {
		return err
	}
	tbl, err := storespec.Open(ctx, *spec)
	if err != nil {
		return err
	}
	defer tbl.Close()
	start := time.Now()
	res, err := store.New(tbl).RebuildStats(ctx, *segments)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "recounted %d comments of %d products, wrote %d stats items in %s\n",
		res.Comments, res.Products, res.StatsItems, time.Since(start).Round(time.Millisecond))
	if res.Backfilled > 0 {
		fmt.Fprintf(stdout, "gave %d comments written before the helpful indexes their sort key (HSK)\n", res.Backfilled)
	}
	return nil
}
