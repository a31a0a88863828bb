package command

import (
	"context"
	"fmt"
	"io"

	"github.com/acme/comments-gateway/internal/flagenv"
	"github.com/acme/comments-gateway/internal/serve"
	"github.com/acme/comments-gateway/internal/storespec"
	"github.com/acme/comments-gateway/store"
)

// cmdCreateTable is the create-table command: the DynamoDB table, its
// indexes and stream, created or checked, and its logical design recorded.
func cmdCreateTable(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("create-table", stderr)
	spec := fs.String("store", "", "the table to create: dynamodb:TABLE")
	stream := fs.Bool("stream", true, "give the table its stream, which subscriptions across gateways read (false: none, for gateways run with -no-subscriptions)")
	if err := flagenv.Parse(fs, args, getenv); err != nil {
		return err
	}
	ss, err := storespec.Parse(*spec)
	if err != nil || ss.Kind != storespec.DynamoDB {
		return fmt.Errorf("create-table: -store must be dynamodb:TABLE (the embedded store needs no table)")
	}
	name := ss.Arg
	t, err := storespec.OpenDynamo(ctx, name)
	if err != nil {
		return err
	}
	defer t.Close()
	if err := t.CreateTable(ctx, *stream); err != nil {
		return err
	}
	d, err := store.New(t).CheckDesign(ctx) // a new table records its design
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "table %s is ACTIVE with its four indexes\n", name)
	if d.Legacy {
		fmt.Fprintf(stdout, "note: %s\n", serve.LegacyMessage(ss))
	}
	return nil
}
