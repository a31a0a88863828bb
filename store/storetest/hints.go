package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

type walkMode struct{ backward, everyPage bool } // of walkStats

// testStaleHints: pages planned from a stale hint (the stats the Store last
// saw, now missing comments written since) equal a recount; a stats error
// is the page's error.
func testStaleHints(t *testing.T, tbl table.Table) {
	data := Dataset(8)
	s := MustLoad(t, tbl, data)
	ctx := context.Background()
	filters := []store.Filter{{Ratings: []int{1, 5}}, {Ratings: []int{1, 3, 4}}, {Language: "de", Ratings: []int{2, 4, 5}}, {Language: "en", Ratings: []int{1, 2}}}
	pids := productIDs(data)
	modes := []walkMode{{false, true}, {false, false}, {true, false}}
	walk := func(phase string, modes []walkMode) {
		t.Helper()
		for _, pid := range pids {
			for _, f := range filters {
				want := ids(Recount(data, pid, f.Language, f.Ratings))
				for _, m := range modes {
					got := ids(walkStats(t, s, pid, f, 4, m.backward, len(want), m.everyPage))
					if !slices.Equal(got, want) {
						t.Fatalf("%s: %s %+v %+v:\n got %v\nwant %v", phase, pid, f, m, got, want)
					}
				}
			}
		}
	}
	walk("hints exact", modes)
	// Comments the hints do not count: only a read of the stats updates a
	// hint, and the first page of each merge below is planned before it.
	for round, m := range modes {
		for i, pid := range pids {
			for k := range 12 { // rating 1 (often empty here) in de, rating 3 in en
				r, lang := 1, "de"
				if k%3 == 2 {
					r, lang = 3, "en"
				}
				c, err := s.CreateComment(ctx, store.NewComment{ProductID: pid, Language: lang, Rating: r, Author: "a", Title: "t", Body: "b"})
				if err != nil {
					t.Fatal(err)
				}
				data = append(data, c)
			}
			if i == round { // and the newest comments of one product deleted
				for _, c := range Recount(data, pid, "", nil)[:3] {
					if err := s.DeleteComment(ctx, c.ID, store.AnyOwner); err != nil {
						t.Fatal(err)
					}
					data = slices.DeleteFunc(data, func(d *store.Comment) bool { return d.ID == c.ID })
				}
			}
		}
		walk("hints stale", []walkMode{m})
	}
	if _, err := s.ListComments(ctx, store.CommentsQuery{ProductID: pids[0], Filter: filters[0], Total: true}, func() (*store.Stats, error) {
		time.Sleep(time.Millisecond) // the reads have started
		return nil, table.Errorf(table.EUNAVAILABLE, "stats unavailable")
	}); table.ErrorCode(err) != table.EUNAVAILABLE {
		t.Errorf("ListComments with failing stats: %v, want %s", err, table.EUNAVAILABLE)
	}
}
