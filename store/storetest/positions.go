package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
)

// testCursorPositions checks that a forward cursor's position (the remaining
// counts it carries) never changes what a page holds: each page after a
// write between pages — a comment created before or after the cursor, one
// deleted, one moved to another rating or language — holds exactly the
// recount of what follows the cursor, with an exact hasNextPage; and a
// cursor of another filter, or one whose counts are forged, reads the same
// comments.
func testCursorPositions(t *testing.T, tbl store.Table) {
	data := Dataset(3)
	MustLoad(t, tbl, data)
	var mu sync.Mutex
	clock := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	s := store.New(tbl, store.WithClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }))
	setClock := func(at time.Time) { mu.Lock(); clock = at; mu.Unlock() }
	ctx := context.Background()
	live := map[string]*store.Comment{}
	for _, c := range data {
		live[c.ID] = c
	}
	all := func() []*store.Comment {
		out := make([]*store.Comment, 0, len(live))
		for _, c := range live {
			out = append(out, c)
		}
		return out
	}
	after := func(pid string, f store.Filter, sk string) []string {
		var out []string
		for _, c := range Recount(all(), pid, f.Language, f.Ratings) {
			if store.SortKey(c.CreatedAt, c.ID) < sk {
				out = append(out, c.ID)
			}
		}
		return out
	}
	// rest pages from cursor to the end and checks every page against the
	// recount of what follows its cursor.
	rest := func(t *testing.T, pid string, f store.Filter, cursor string, size int, everyPage bool) {
		t.Helper()
		for pages := 0; ; pages++ {
			if pages > 200 {
				t.Fatal("no end")
			}
			conn, err := List(ctx, s, pid, f, store.PageArgs{First: &size, After: &cursor}, everyPage)
			if err != nil {
				t.Fatal(err)
			}
			sk, _ := store.DecodeCursor(cursor)
			want := after(pid, f, sk)
			got := make([]string, len(conn.Edges))
			for i, e := range conn.Edges {
				got[i] = e.Comment.ID
			}
			if !slices.Equal(got, want[:min(size, len(want))]) {
				t.Fatalf("page after %s:\n got %v\nwant %v", sk, got, want[:min(size, len(want))])
			}
			if conn.HasNextPage != (len(want) > size) {
				t.Fatalf("page after %s: hasNextPage %v with %d comments after the cursor, page of %d", sk, conn.HasNextPage, len(want), size)
			}
			if !conn.HasNextPage {
				return
			}
			cursor = conn.Edges[len(conn.Edges)-1].Cursor
		}
	}
	first := func(t *testing.T, pid string, f store.Filter, size int) string {
		t.Helper()
		conn, err := List(ctx, s, pid, f, store.PageArgs{First: &size}, true)
		if err != nil || len(conn.Edges) != size || !conn.HasNextPage {
			t.Fatalf("first page: %d edges, %v", len(conn.Edges), err)
		}
		if !conn.Trace.Positioned {
			t.Fatalf("a first page read with its stats carries no position")
		}
		return conn.Edges[size-1].Cursor
	}
	filters := []store.Filter{{}, {Ratings: []int{5}}, {Ratings: []int{1, 3, 5}}, {Ratings: []int{3, 4}}, {Language: "en", Ratings: []int{1, 4, 5}}, {Language: "de"}}
	writes := []struct {
		name  string
		write func(t *testing.T, pid string, f store.Filter, cursorSK string)
	}{
		{"none", func(*testing.T, string, store.Filter, string) {}},
		{"created-newest", func(t *testing.T, pid string, f store.Filter, _ string) {
			setClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			create(t, s, live, pid, f, 0)
		}},
		{"created-after-cursor", func(t *testing.T, pid string, f store.Filter, sk string) {
			// an old timestamp (an import or a clock behind): it belongs
			// to the pages still to come
			setClock(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC).Add(time.Millisecond))
			create(t, s, live, pid, f, 1)
		}},
		{"deleted-after-cursor", func(t *testing.T, pid string, f store.Filter, sk string) {
			ids := after(pid, f, sk)
			del(t, s, live, ids[len(ids)-1])
			del(t, s, live, ids[len(ids)/2])
		}},
		{"deleted-before-cursor", func(t *testing.T, pid string, f store.Filter, sk string) {
			for _, c := range Recount(all(), pid, f.Language, f.Ratings) {
				if store.SortKey(c.CreatedAt, c.ID) > sk {
					del(t, s, live, c.ID)
					return
				}
			}
		}},
		{"moved-out-and-in", func(t *testing.T, pid string, f store.Filter, sk string) {
			// the oldest match leaves the filter (when it selects ratings),
			// and an old non-match joins it
			ids := after(pid, f, sk)
			if f.Ratings != nil {
				for r := store.MinRating; r <= store.MaxRating; r++ {
					if !slices.Contains(f.Ratings, r) {
						update(t, s, live, store.CommentUpdate{ID: ids[len(ids)-1], Rating: &r})
						break
					}
				}
			}
			for _, c := range Recount(all(), pid, "", nil) {
				if store.SortKey(c.CreatedAt, c.ID) < sk && !slices.Contains(ids, c.ID) {
					r, lang := f.Ratings, f.Language
					u := store.CommentUpdate{ID: c.ID}
					if r != nil {
						u.Rating = &r[0]
					}
					if lang != "" {
						u.Language = &lang
					}
					update(t, s, live, u)
					return
				}
			}
		}},
	}
	for _, f := range filters {
		for _, w := range writes {
			for _, everyPage := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/lang=%q/ratings=%v/stats-every-page=%v", w.name, f.Language, f.Ratings, everyPage), func(t *testing.T) {
					cursor := first(t, "big", f, 7)
					sk, _ := store.DecodeCursor(cursor)
					w.write(t, "big", f, sk)
					rest(t, "big", f, cursor, 7, everyPage)
				})
			}
		}
	}
	t.Run("stats-version", func(t *testing.T) {
		// every write of a comment, and every rebuild, changes the
		// version of the stats items it touches
		v := func(lang string) int64 { return mustStats(t, s, "mid-1", lang).Version }
		all0, en0, de0 := v(""), v("en"), v("de")
		create(t, s, live, "mid-1", store.Filter{Language: "en"}, 0)
		if v("") <= all0 || v("en") <= en0 || v("de") != de0 {
			t.Fatalf("create: versions %d→%d, en %d→%d, de %d→%d", all0, v(""), en0, v("en"), de0, v("de"))
		}
		all0, en0 = v(""), v("en")
		if _, err := s.RebuildStats(ctx, 2); err != nil {
			t.Fatal(err)
		}
		if v("") <= all0 || v("en") <= en0 {
			t.Fatalf("rebuild: versions %d→%d, en %d→%d", all0, v(""), en0, v("en"))
		}
	})
	t.Run("other-filter", func(t *testing.T) {
		cursor := first(t, "big", store.Filter{Ratings: []int{1, 3, 5}}, 7)
		for _, f := range filters {
			rest(t, "big", f, cursor, 9, false)
		}
		rest(t, "mid-1", store.Filter{Ratings: []int{1, 3, 5}}, cursor, 9, true)
	})
	t.Run("forged-counts", func(t *testing.T) {
		f := store.Filter{Ratings: []int{1, 3, 5}}
		cursor := first(t, "big", f, 7)
		sk, _ := store.DecodeCursor(cursor)
		st := mustStats(t, s, "big", "")
		// counts of zero, and a stale version: the pages are exact
		for _, pos := range []store.Position{
			{Filter: store.FilterHash("big", f), Version: st.Version, Remaining: []int64{0, 0, 0}},
			{Filter: store.FilterHash("big", f), Version: st.Version + 1, Remaining: []int64{1 << 40, 0, 3}},
		} {
			rest(t, "big", f, store.EncodePositionCursor(sk, &pos), 7, true)
			rest(t, "big", f, store.EncodePositionCursor(sk, &pos), 7, false)
		}
	})
}

func create(t *testing.T, s *store.Store, live map[string]*store.Comment, pid string, f store.Filter, pick int) {
	t.Helper()
	in := store.NewComment{ProductID: pid, Language: "en", Rating: 5, Author: "a", Title: "t", Body: "b"}
	if f.Language != "" {
		in.Language = f.Language
	}
	if f.Ratings != nil {
		in.Rating = f.Ratings[pick%len(f.Ratings)]
	}
	c, err := s.CreateComment(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	live[c.ID] = c
}

func del(t *testing.T, s *store.Store, live map[string]*store.Comment, id string) {
	t.Helper()
	if err := s.DeleteComment(context.Background(), id, store.AnyOwner); err != nil {
		t.Fatal(err)
	}
	delete(live, id)
}

func update(t *testing.T, s *store.Store, live map[string]*store.Comment, u store.CommentUpdate) {
	t.Helper()
	c, err := s.UpdateComment(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	live[c.ID] = c
}
