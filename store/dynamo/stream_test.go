package dynamo

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// TestCreateTableEnablesStream: a table created without a stream (by an
// earlier version) has none, which StreamARN reports with the command to
// run; CreateTable over it enables the stream, idempotently.
func TestCreateTableEnablesStream(t *testing.T) {
	c := MustClient(t)
	ctx := ctxT(t)
	name := fmt.Sprintf("test-nostream-%d-%d", os.Getpid(), tableSeq.Add(1))
	in := CreateTableInput(name, false)
	if _, err := c.CreateTable(ctx, in); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = c.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	tbl := New(c, name)
	if err := tbl.waitActive(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.StreamARN(ctx); table.ErrorCode(err) != table.EINVALID {
		t.Fatalf("StreamARN of a table without a stream: %v, want EINVALID", err)
	}
	for range 2 {
		if err := tbl.CreateTable(ctx, true); err != nil {
			t.Fatal(err)
		}
	}
	arn, err := tbl.StreamARN(ctx)
	if err != nil || arn == "" {
		t.Fatalf("StreamARN after CreateTable: %q, %v", arn, err)
	}
	shards, err := NewStream(StreamClientFor(c, ""), arn).Shards(ctx)
	if err != nil || len(shards) == 0 {
		t.Fatalf("Shards: %v, %v", shards, err)
	}
}

func TestParentsFirst(t *testing.T) {
	in := []store.StreamShard{
		{ID: "c2", Parent: "b"}, {ID: "b", Parent: "a"}, {ID: "c1", Parent: "b"},
		{ID: "x", Parent: "expired"}, {ID: "a"},
	}
	var got []string
	for _, sh := range parentsFirst(in) {
		got = append(got, sh.ID)
	}
	want := []string{"a", "b", "c2", "c1", "x"}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}
