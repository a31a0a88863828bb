package command

import (
	"context"
	"fmt"
	"io"

	"github.com/acme/comments-gateway/internal/flagenv"
	"github.com/acme/comments-gateway/internal/serve"
	"github.com/acme/comments-gateway/internal/storespec"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// cmdCreateTable is the create-table command: the DynamoDB table, its
// indexes and stream, created or checked (missing indexes added), and its
// logical design recorded; it notes what an older table still needs.
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
	t.ReportIndexChanges(func(msg string) { fmt.Fprintln(stdout, msg) })
	if err := t.CreateTable(ctx, *stream); err != nil {
		return err
	}
	s := store.New(t)
	d, err := s.CheckDesign(ctx) // a new table records its design
	if err != nil {
		return err
	}
	helpful := s.CheckHelpful(ctx) // a new table got its mark with its design
	if helpful != nil && store.ErrorCode(helpful) != store.EUNAVAILABLE {
		return helpful
	}
	fmt.Fprintf(stdout, "table %s is ACTIVE with its %d indexes\n", name, len(table.AllIndexes))
	if d.Legacy {
		fmt.Fprintf(stdout, "note: %s\n", serve.LegacyMessage(ss))
	}
	if helpful != nil {
		fmt.Fprintf(stdout, "note: %s\n", store.ErrorMessage(helpful))
	}
	return nil
}
