package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
)

// TestPageOutlivesItsRecords: a page's records are lent by an arena that
// the next pages' reads reuse once the page is built; the page's comments
// and cursors must not change when they do. In each order, pages of every
// filter are read after the first, which is then checked against what was
// created.
func TestPageOutlivesItsRecords(t *testing.T) {
	for _, order := range []store.Order{store.OrderNewest, store.OrderOldest, store.OrderHighestRating, store.OrderLowestRating, store.OrderMostHelpful} {
		t.Run(fmt.Sprint(order), func(t *testing.T) { pageOutlivesItsRecords(t, order) })
	}
}

func pageOutlivesItsRecords(t *testing.T, order store.Order) {
	s := store.New(bolttest.Open(t))
	ctx := context.Background()
	created := map[string]store.NewComment{} // by id
	for i := range 90 {
		in := store.NewComment{ProductID: "p1", Language: []string{"en", "de"}[i%2], Rating: 1 + i%5,
			Author: fmt.Sprintf("author %d", i), Title: fmt.Sprintf("title %d", i), Body: fmt.Sprintf("body %d", i)}
		c, err := s.CreateComment(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		created[c.ID] = in
	}
	list := func(f store.Filter, after *string) *store.Connection {
		t.Helper()
		stats := func() (*store.Stats, error) {
			sts, err := s.GetStats(ctx, []store.StatsID{{ProductID: "p1", Language: f.Language}})
			if err != nil {
				return nil, err
			}
			return sts[0], nil
		}
		conn, err := s.ListComments(ctx, store.CommentsQuery{ProductID: "p1", Filter: f, Page: store.PageArgs{Order: order, After: after}}, stats)
		if err != nil {
			t.Fatal(err)
		}
		return conn
	}
	type edge struct {
		cursor, id, lang, author, title, body string
		rating                                int
	}
	snapshot := func(conn *store.Connection) []edge {
		out := make([]edge, len(conn.Edges))
		for i, e := range conn.Edges {
			c := e.Comment
			out[i] = edge{e.Cursor, c.ID, c.Language, c.Author, c.Title, c.Body, c.Rating}
		}
		return out
	}
	filtered := store.Filter{Language: "en", Ratings: []int{2, 3, 5}}
	first := list(filtered, nil)
	before := snapshot(first)
	if len(before) != 20 {
		t.Fatalf("page 1 has %d comments, want 20", len(before))
	}
	after := &first.Edges[len(first.Edges)-1].Cursor
	for _, f := range []store.Filter{filtered, {Language: "en"}, {Language: "de", Ratings: []int{1, 4}}, {}} {
		list(f, nil)
		list(filtered, after)
	}
	if now := snapshot(first); fmt.Sprint(now) != fmt.Sprint(before) {
		t.Fatalf("page 1 changed after later reads:\nbefore %v\nnow    %v", before, now)
	}
	for i, e := range before {
		in, ok := created[e.id]
		if !ok || in.Language != "en" || (in.Rating != 2 && in.Rating != 3 && in.Rating != 5) ||
			e.author != in.Author || e.title != in.Title || e.body != in.Body || e.rating != in.Rating || e.lang != in.Language {
			t.Errorf("edge %d: %+v; created as %+v (found: %v)", i, e, in, ok)
		}
	}
}
