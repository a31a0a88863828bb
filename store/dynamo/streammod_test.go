package dynamo

import (
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// streamImage is the stream image of it.
func streamImage(it table.Item) map[string]stypes.AttributeValue {
	if it == nil {
		return nil
	}
	img := map[string]stypes.AttributeValue{}
	for name, v := range it {
		if s, ok := v.Str(); ok {
			img[name] = &stypes.AttributeValueMemberS{Value: s}
		} else if n, ok := v.Num(); ok {
			img[name] = &stypes.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
		}
	}
	return img
}

// TestStreamFollowsPublication: the stream's records of a comment become
// the changes subscribers see (docs/design.md §12.3) on every instance:
// the insert of a pending comment is none, its approval ADDED, hiding it
// DELETED, a write of a hidden comment none.
func TestStreamFollowsPublication(t *testing.T) {
	c := &store.Comment{ID: "01JAAAAAAAAAAAAAAAAAAAAAAA", ProductID: "p", Language: "en", Rating: 5,
		Author: "a", Title: "t", Body: "b", CreatedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), Status: store.StatusPending}
	with := func(st store.Status, v int64) table.Item {
		d := *c
		d.Status, d.Version = st, v
		return d.Item()
	}
	for _, tc := range []struct {
		name     string
		event    stypes.OperationType
		old, new table.Item
		want     store.ChangeKind
	}{
		{"insert pending", stypes.OperationTypeInsert, nil, with(store.StatusPending, 0), ""},
		{"approve", stypes.OperationTypeModify, with(store.StatusPending, 0), with(store.StatusPublished, 1), store.ChangeAdded},
		{"hide", stypes.OperationTypeModify, with(store.StatusPublished, 1), with(store.StatusHidden, 2), store.ChangeDeleted},
		{"reject hidden", stypes.OperationTypeModify, with(store.StatusHidden, 2), with(store.StatusRejected, 3), ""},
		{"delete rejected", stypes.OperationTypeRemove, with(store.StatusRejected, 3), nil, ""},
		{"insert published", stypes.OperationTypeInsert, nil, with(store.StatusPublished, 0), store.ChangeAdded},
	} {
		k := store.CommentKey(c.ID)
		rec, err := recordChange(stypes.Record{EventName: tc.event, Dynamodb: &stypes.StreamRecord{
			SequenceNumber: aws.String("1"), ApproximateCreationDateTime: aws.Time(time.Now()),
			Keys:     map[string]stypes.AttributeValue{table.AttrPK: &stypes.AttributeValueMemberS{Value: k.PK}},
			OldImage: streamImage(tc.old), NewImage: streamImage(tc.new),
		}})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got store.ChangeKind
		if rec.Change != nil {
			got = rec.Change.Kind
		}
		if got != tc.want {
			t.Errorf("%s: change %q, want %q", tc.name, got, tc.want)
		}
	}
}
