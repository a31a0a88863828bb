package command

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/acme/comments-gateway/demo"
	"github.com/acme/comments-gateway/internal/flagenv"
	"github.com/acme/comments-gateway/internal/storespec"
	"github.com/acme/comments-gateway/store"
)

// cmdSeed is the seed command: the demo data generator's comments put into
// the -store table, then its stats recounted.
func cmdSeed(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("seed", stderr)
	spec := fs.String("store", storespec.Default, "store: bolt:PATH or dynamodb:TABLE")
	products := fs.Int("products", demo.DefaultProducts, "number of products")
	comments := fs.Int("comments", demo.DefaultComments, "number of comments")
	seed := fs.Uint64("rand-seed", demo.DefaultSeed, "random seed (the same seed gives the same data)")
	if err := flagenv.Parse(fs, args, getenv); err != nil {
		return err
	}
	if *products < 1 || *comments < 0 {
		return fmt.Errorf("seed: -products must be at least 1 and -comments at least 0")
	}
	tbl, err := storespec.Open(ctx, *spec)
	if err != nil {
		return err
	}
	defer tbl.Close()
	s := store.New(tbl)
	if _, err := s.ReadDesign(ctx); err != nil { // a newer gateway's table is left alone
		return err
	}
	start := time.Now()
	cfg := demo.DefaultConfig()
	cfg.Products, cfg.Comments = *products, *comments
	cs := demo.Generate(demo.NewRand(*seed), cfg)
	const chunk = 5000
	for i := 0; i < len(cs); i += chunk {
		if err := s.PutComments(ctx, cs[i:min(i+chunk, len(cs))]); err != nil {
			return err
		}
	}
	res, err := s.RebuildStats(ctx, 4)
	if err != nil {
		return err
	}
	d := time.Since(start)
	fmt.Fprintf(stdout, "seeded %d comments (%d products with comments) in %s, %.0f comments/s\n",
		len(cs), res.Products, d.Round(time.Millisecond), float64(len(cs))/d.Seconds())
	return nil
}
