package dynamo

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// TestCreateTableAddsHelpfulIndexes is the upgrade path of a DynamoDB
// table to the helpful twins (docs/design.md §3.3): a table created
// before them, holding comments without HSK, is served without the
// MOST_HELPFUL order (CheckHelpful: EUNAVAILABLE, naming create-table);
// CreateTable adds the four twins (one UpdateTable each), after which the
// order is still refused (naming rebuild-stats) until RebuildStats gives
// the old comments their HSK and marks the table; the twins then hold
// every published comment.
func TestCreateTableAddsHelpfulIndexes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// A new table is marked with its first design, and served at once.
	c := MustClient(t)
	fresh := store.New(MustTable(t, c, c))
	if _, err := fresh.CheckDesign(ctx); err != nil {
		t.Fatal(err)
	}
	if err := fresh.CheckHelpful(ctx); err != nil {
		t.Fatalf("CheckHelpful of a new table: %v", err)
	}
	tbl := mustTableWithout(t, "test-prehelpful", table.HelpfulIndexes)
	s := store.New(tbl)
	var ids []string
	for i := range 6 {
		c, err := s.CreateComment(ctx, store.NewComment{ProductID: "p", Language: "en", Rating: 1 + i%5, Author: "a", Title: "t", Body: fmt.Sprint("old ", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
		// As the gateway before the twins wrote it: no HSK.
		if err := tbl.Write(ctx, []table.Op{{Kind: table.OpUpdate, Key: store.CommentKey(c.ID), Remove: []string{table.AttrHSK}}}); err != nil {
			t.Fatal(err)
		}
	}
	err := s.CheckHelpful(ctx)
	if store.ErrorCode(err) != store.EUNAVAILABLE || !strings.Contains(store.ErrorMessage(err), "create-table") {
		t.Fatalf("CheckHelpful without the twins: %v, want EUNAVAILABLE naming create-table", err)
	}
	if err := tbl.CreateTable(ctx, false); err != nil {
		t.Fatalf("CreateTable of the existing table: %v", err)
	}
	if missing, ok := missingIndex(mustDescribe(t, tbl)); ok {
		t.Fatalf("after CreateTable, index %s is missing", missing.Name)
	}
	err = s.CheckHelpful(ctx)
	if store.ErrorCode(err) != store.EUNAVAILABLE || !strings.Contains(store.ErrorMessage(err), "rebuild-stats") {
		t.Fatalf("CheckHelpful before the rebuild: %v, want EUNAVAILABLE naming rebuild-stats", err)
	}
	if err := s.HelpfulReady(ctx); store.ErrorCode(err) != store.EUNAVAILABLE {
		t.Fatalf("HelpfulReady before the rebuild: %v, want EUNAVAILABLE", err)
	}
	res, err := s.RebuildStats(ctx, 2)
	if err != nil || res.Backfilled != int64(len(ids)) {
		t.Fatalf("RebuildStats: %+v, %v; want %d comments given their HSK", res, err, len(ids))
	}
	if err := s.HelpfulReady(ctx); err != nil {
		t.Fatalf("HelpfulReady after the rebuild: %v", err)
	}
	if err := store.New(tbl).CheckHelpful(ctx); err != nil {
		t.Fatalf("CheckHelpful after the rebuild: %v", err)
	}
	got, err := tbl.Query(ctx, table.Query{Index: table.IndexHelpfulAll, HashValue: store.ProductPK("p"), Limit: 10})
	if err != nil || len(got.Items) != len(ids) {
		t.Fatalf("helpfulAll after the rebuild: %d items, %v; want %d", len(got.Items), err, len(ids))
	}
}

// mustDescribe returns the description of tbl's table.
func mustDescribe(t *testing.T, tbl *Table) *types.TableDescription {
	t.Helper()
	out, err := tbl.client.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(tbl.name)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Table
}
