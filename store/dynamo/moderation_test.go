package dynamo

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// TestCreateTableAddsModerationIndexes is the upgrade path to moderation
// (docs/design.md §12.3): a table created before moderation, without its
// two indexes, serves moderation off as it is and is refused by
// CheckModeration; CreateTable adds the indexes, and the comments written
// before are published, in the stats, and moderated like any other.
func TestCreateTableAddsModerationIndexes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tbl := mustTableWithout(t, "test-premod", table.ModerationIndexes, table.HelpfulIndexes)
	old := store.New(tbl)
	made, err := old.CreateComment(ctx, store.NewComment{ProductID: "p", Language: "en", Rating: 5, Author: "a", Title: "t", Body: "before moderation"})
	if err != nil {
		t.Fatal(err)
	}
	mod := store.New(tbl, store.WithModeration(store.Moderation{Mode: store.ModerationPost}))
	if err := mod.CheckModeration(ctx); store.ErrorCode(err) != store.EINVALID {
		t.Fatalf("CheckModeration without the indexes: %v, want EINVALID", err)
	}
	if err := tbl.CreateTable(ctx, false); err != nil {
		t.Fatalf("CreateTable of the existing table: %v", err)
	}
	if err := mod.CheckModeration(ctx); err != nil {
		t.Fatalf("CheckModeration after CreateTable: %v", err)
	}
	got, err := mod.GetComments(ctx, []string{made.ID})
	if err != nil || got[0] == nil || got[0].Status != store.StatusPublished {
		t.Fatalf("the comment written before: %+v, %v; want it PUBLISHED", got[0], err)
	}
	if _, err := mod.Moderate(ctx, made.ID, store.ActionHide, "abuse"); err != nil {
		t.Fatal(err)
	}
	st, err := mod.GetStats(ctx, []store.StatsID{{ProductID: "p"}})
	if err != nil || st[0].Total != 0 {
		t.Fatalf("stats after hiding the only comment: %+v, %v; want 0", st[0], err)
	}
	q, err := mod.ModerationQueue(ctx, store.QueueHidden, 10, "")
	if err != nil || len(q.Comments) != 1 || q.Comments[0].ID != made.ID {
		t.Fatalf("hidden queue: %+v, %v; want the comment", q, err)
	}
}

// mustTableWithout creates a table as CreateTable would (without its
// stream) but without the indexes of drop, as an older gateway created it,
// waits for it to be ACTIVE and deletes it when the test ends.
func mustTableWithout(t *testing.T, prefix string, drop ...[]table.IndexDef) *Table {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := MustClient(t)
	name := fmt.Sprintf("%s-%d-%d", prefix, os.Getpid(), time.Now().UnixNano()%1e9)
	in := CreateTableInput(name, false)
	dropped := map[string]bool{}
	for _, d := range slices.Concat(drop...) {
		dropped[d.Name] = true
	}
	in.GlobalSecondaryIndexes = slices.DeleteFunc(in.GlobalSecondaryIndexes, func(g types.GlobalSecondaryIndex) bool { return dropped[aws.ToString(g.IndexName)] })
	used := map[string]bool{table.AttrPK: true, table.AttrSK: true}
	for _, g := range in.GlobalSecondaryIndexes {
		for _, k := range g.KeySchema {
			used[aws.ToString(k.AttributeName)] = true
		}
	}
	in.AttributeDefinitions = slices.DeleteFunc(in.AttributeDefinitions, func(a types.AttributeDefinition) bool { return !used[aws.ToString(a.AttributeName)] })
	if _, err := c.CreateTable(ctx, in); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	tbl := New(c, name)
	if err := tbl.waitActive(ctx); err != nil {
		t.Fatal(err)
	}
	return tbl
}
