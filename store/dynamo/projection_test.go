package dynamo

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/storetest"
	"github.com/acme/comments-gateway/store/table"
)

// pageAttrs are the attributes the public indexes project since pages
// show helpful counts, verified purchases and replies.
var pageAttrs = []string{table.AttrHelpful, table.AttrUnhelpful, table.AttrVerified, table.AttrReply}

// oldProjectionInput is CreateTableInput(name, false) as a gateway
// before helpful votes, verified purchases and replies created it: no
// helpful twins, the public indexes INCLUDE the 9 attributes a page then
// showed, the moderation indexes those but count_5 and the moderation
// state (62 attributes in all).
func oldProjectionInput(name string) *dynamodb.CreateTableInput {
	in := CreateTableInput(name, false)
	page := []string{"id", "productId", "language", "rating", "author", "title", "body", "createdAt"}
	in.GlobalSecondaryIndexes = slices.DeleteFunc(in.GlobalSecondaryIndexes, func(g types.GlobalSecondaryIndex) bool {
		return aws.ToString(g.KeySchema[1].AttributeName) == table.AttrHSK
	})
	in.AttributeDefinitions = slices.DeleteFunc(in.AttributeDefinitions, func(a types.AttributeDefinition) bool {
		return aws.ToString(a.AttributeName) == table.AttrHSK
	})
	for i, g := range in.GlobalSecondaryIndexes {
		old := append(slices.Clone(page), "count_5")
		if g.Projection.ProjectionType == types.ProjectionTypeAll {
			old = append(slices.Clone(page), "status", "reports", "moderatedAt", "moderationReason", "authorId")
		}
		in.GlobalSecondaryIndexes[i].Projection = &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: old}
	}
	return in
}

// TestCreateTableReplacesStaleProjections is the upgrade of the index
// projection: on a table whose indexes lack the attributes a page shows
// (and lacks index all, as a run of create-table interrupted after its
// delete leaves it, and the helpful twins),
// CheckProjections refuses (naming each index and what it lacks) and a
// page shows no reply; CreateTable replaces every such index, one at a
// time, and then the table passes, its indexes project what
// CreateTableInput declares, and the comments written before show their
// reply, verified purchase and helpful counts on every public index. It
// reports each index it replaces or adds as it goes.
func TestCreateTableReplacesStaleProjections(t *testing.T) {
	c := MustClient(t)
	name := fmt.Sprintf("test-oldproj-%d-%d", os.Getpid(), time.Now().UnixNano()%1e9)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// As a run of create-table interrupted after it deleted index all.
	in := oldProjectionInput(name)
	in.GlobalSecondaryIndexes = slices.DeleteFunc(in.GlobalSecondaryIndexes, func(g types.GlobalSecondaryIndex) bool {
		return aws.ToString(g.IndexName) == table.IndexAll
	})
	in.AttributeDefinitions = slices.DeleteFunc(in.AttributeDefinitions, func(a types.AttributeDefinition) bool {
		return aws.ToString(a.AttributeName) == table.AttrGSI4PK
	})
	if _, err := c.CreateTable(ctx, in); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	tbl := New(c, name)
	if err := tbl.waitActive(ctx); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	cs := []*store.Comment{
		{ID: "c1", ProductID: "rp", Language: "en", Rating: 5, Author: "a", Title: "t", Body: "b", CreatedAt: at,
			HelpfulCount: 4, UnhelpfulCount: 1, VerifiedPurchase: true, Reply: &store.Reply{Body: "Thanks", CreatedAt: at.Add(time.Hour), UpdatedAt: at.Add(2 * time.Hour)}},
		{ID: "c2", ProductID: "rp", Language: "de", Rating: 2, Author: "a", Title: "t", Body: "b", CreatedAt: at.Add(time.Minute)},
	}
	s := storetest.MustLoad(t, tbl, cs)

	err := tbl.CheckProjections(ctx)
	if store.ErrorCode(err) != store.EINVALID || !strings.Contains(err.Error(), "create-table") ||
		!strings.Contains(err.Error(), table.IndexByLang+" lacks "+strings.Join(pageAttrs, ", ")) ||
		!strings.Contains(err.Error(), table.IndexModeration+" lacks ALL") {
		t.Fatalf("CheckProjections of the old table: %v", err)
	}
	if conn, err := storetest.List(ctx, s, "rp", store.Filter{Language: "en"}, store.PageArgs{}, false); err != nil || len(conn.Edges) != 1 || conn.Edges[0].Comment.Reply != nil {
		t.Fatalf("a page of the old table: %+v %v; want 1 comment, the reply missing", conn, err)
	}

	var lines []string
	tbl.ReportIndexChanges(func(msg string) { lines = append(lines, msg) })
	if err := tbl.CreateTable(ctx, false); err != nil {
		t.Fatalf("CreateTable of the old table: %v", err)
	}
	report := strings.Join(lines, "\n")
	for _, want := range []string{"replacing index " + table.IndexByLang + ",", "adding index " + table.IndexAll + ":"} {
		if !strings.Contains(report, want) {
			t.Errorf("CreateTable's progress lines lack %q:\n%s", want, report)
		}
	}
	if err := tbl.CheckProjections(ctx); err != nil {
		t.Fatalf("CheckProjections after CreateTable: %v", err)
	}
	out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Table.GlobalSecondaryIndexes) != len(table.AllIndexes) || !active(out.Table) {
		t.Fatalf("after CreateTable: %d indexes, active %v", len(out.Table.GlobalSecondaryIndexes), active(out.Table))
	}
	for _, d := range table.AllIndexes {
		g, ok := describedIndex(out.Table, d.Name)
		if !ok {
			t.Errorf("index %s missing after CreateTable", d.Name)
		}
		checkProjection(t, d, g.Projection)
	}
	for _, f := range []store.Filter{{}, {Language: "en"}, {Ratings: []int{5}}, {Language: "en", Ratings: []int{5}}} {
		conn, err := storetest.List(ctx, s, "rp", f, store.PageArgs{}, false)
		if err != nil || len(conn.Edges) == 0 {
			t.Fatalf("page %+v: %+v %v", f, conn, err)
		}
		got := conn.Edges[len(conn.Edges)-1].Comment
		if got.ID != "c1" || got.HelpfulCount != 4 || got.UnhelpfulCount != 1 || !got.VerifiedPurchase || got.Reply == nil ||
			got.Reply.Body != "Thanks" || !got.Reply.UpdatedAt.Equal(at.Add(2*time.Hour)) {
			t.Errorf("page %+v after CreateTable shows %+v (reply %+v)", f, got, got.Reply)
		}
	}
	if err := tbl.CreateTable(ctx, false); err != nil {
		t.Errorf("CreateTable again: %v", err)
	}
}
