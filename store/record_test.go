package store_test

import (
	"reflect"
	"testing"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/storetest"
	"github.com/acme/comments-gateway/store/table"
)

// TestCommentColumnsHoldEveryAttribute: every attribute a comment item of
// any shape holds is a column of the records a page is read in, but the
// index hash keys (no field of a comment), so that an attribute added to
// the item is read by the one rule of "item → comment"; and each comment
// reads back from its item exactly (CommentFromItem, through a record).
func TestCommentColumnsHoldEveryAttribute(t *testing.T) {
	hashKeys := map[string]bool{table.AttrGSIPK: true, table.AttrGSI2PK: true, table.AttrGSI3PK: true,
		table.AttrGSI4PK: true, table.AttrGSI5PK: true, table.AttrGSI6PK: true}
	for _, c := range storetest.CommentShapes("p1") {
		it := c.Item()
		for name := range it {
			if !hashKeys[name] && store.CommentColumns.Index(name) < 0 {
				t.Errorf("attribute %s of comment items is no column of store's comment records", name)
			}
		}
		got, err := store.CommentFromItem(it)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Fatalf("comment %s read back as %+v, want %+v", c.ID, got, c)
		}
	}
}
