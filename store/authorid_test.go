package store_test

import (
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// TestAuthorIDIsOptional checks that the owner round-trips through an item
// and that comments without one keep exactly the items they had before.
func TestAuthorIDIsOptional(t *testing.T) {
	c := &store.Comment{ID: "01JAAAAAAAAAAAAAAAAAAAAAAA", ProductID: "p", Language: "en", Rating: 5,
		Author: "a", Title: "t", Body: "b", CreatedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
	it := c.Item()
	if _, ok := it[table.AttrAuthorID]; ok {
		t.Errorf("a comment without an owner has %s: %v", table.AttrAuthorID, it)
	}
	back, err := store.CommentFromItem(it)
	if err != nil || back.AuthorID != "" {
		t.Fatalf("%+v %v", back, err)
	}
	c.AuthorID = "user-1"
	back, err = store.CommentFromItem(c.Item())
	if err != nil || *back != *c {
		t.Errorf("round trip: %+v, want %+v (%v)", back, c, err)
	}
}
