package command

import (
	"context"
	"fmt"
	"io"
	"net/url"

	"github.com/acme/comments-gateway/internal/flagenv"
	"github.com/acme/comments-gateway/internal/serve"
	"github.com/acme/comments-gateway/internal/storespec"
	"github.com/acme/comments-gateway/jsonl"
	"github.com/acme/comments-gateway/store"
)

// cmdExport is the export command: the comments as JSON lines, read from
// the -store table or, with -from, from a running server's admin listener
// (serve -admin-addr), since bbolt locks the file a server holds.
func cmdExport(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("export", stderr)
	spec := fs.String("store", storespec.Default, "store: bolt:PATH or dynamodb:TABLE")
	from := fs.String("from", "", "admin URL of a running server (serve -admin-addr) to export from, instead of -store")
	product := fs.String("product", "", "export only this product's comments (newest first)")
	if err := flagenv.Parse(fs, args, getenv); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("export: want one FILE (or - for standard output), got %d arguments", fs.NArg())
	}
	return writeOutput("export", fs.Arg(0), stdout, stderr, func(out io.Writer, bar *jsonl.Bar) (string, error) {
		if *from == "" {
			n, err := exportLocal(ctx, *spec, *product, out, bar)
			return fmt.Sprintf("exported %d comments", n), err
		}
		q := url.Values{}
		if *product != "" {
			q.Set("product", *product)
		}
		n, err := download(ctx, *from+"/export?"+q.Encode(), out, jsonl.Exporting, bar)
		return fmt.Sprintf("exported %.1f MB", float64(n)/1e6), err
	})
}

// exportLocal writes the comments of the store spec (of product, or all)
// to out as JSON lines and returns how many.
func exportLocal(ctx context.Context, spec, product string, out io.Writer, bar *jsonl.Bar) (int, error) {
	tbl, err := storespec.Open(ctx, spec)
	if err != nil {
		return 0, heldHint(err)
	}
	defer tbl.Close()
	w := jsonl.NewWriter(out)
	err = serve.WriteExport(ctx, store.New(tbl), product, w, bar.Update)
	return w.Progress().Comments, err
}
