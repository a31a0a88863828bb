package storetest

import (
	"context"
	"reflect"
	"testing"

	"github.com/acme/comments-gateway/store"
)

// testListPageLater walks every product's comments under several filters,
// forward and backward, with totalCount, once with ListPage given the stats
// and once with ListPageLater loading them alongside the reads: the pages,
// cursors, flags and totals must be the same.
func testListPageLater(t *testing.T, tbl store.Table) {
	data := Dataset(8)
	s := MustLoad(t, tbl, data)
	ctx := context.Background()
	filters := []store.Filter{{}, {Language: "en"}, {Ratings: []int{5}}, {Ratings: []int{1, 3}}, {Language: "de", Ratings: []int{2, 4, 5}}, {Ratings: []int{}}}
	for _, pid := range productIDs(data) {
		for _, f := range filters {
			for _, backward := range []bool{false, true} {
				var cursor *string
				for page := 0; page < 50; page++ {
					n := 3
					args := store.PageArgs{First: &n, After: cursor}
					if backward {
						args = store.PageArgs{Last: &n, Before: cursor}
					}
					pg, err := store.ParsePage(args)
					if err != nil {
						t.Fatal(err)
					}
					st := mustStats(t, s, pid, f.Language)
					want, err := s.ListPage(ctx, pid, f, pg, st)
					if err != nil {
						t.Fatal(err)
					}
					got, err := s.ListPageLater(ctx, pid, f, pg, func() (*store.Stats, error) { return st, nil })
					if err != nil {
						t.Fatal(err)
					}
					sameEdges := len(got.Edges) == 0 && len(want.Edges) == 0 || reflect.DeepEqual(got.Edges, want.Edges)
					if !sameEdges || got.HasNextPage != want.HasNextPage ||
						got.HasPreviousPage != want.HasPreviousPage || got.TotalCount != want.TotalCount {
						t.Fatalf("%s %+v backward=%v page %d: ListPageLater = %d edges next=%v prev=%v total=%d, ListPage = %d edges next=%v prev=%v total=%d",
							pid, f, backward, page, len(got.Edges), got.HasNextPage, got.HasPreviousPage, got.TotalCount,
							len(want.Edges), want.HasNextPage, want.HasPreviousPage, want.TotalCount)
					}
					more := want.HasNextPage || want.HasPreviousPage
					if !more || len(want.Edges) == 0 {
						break
					}
					c := want.Edges[len(want.Edges)-1].Cursor
					if backward {
						c = want.Edges[0].Cursor
					}
					cursor = &c
				}
			}
		}
	}
	// A stats error is the page's error.
	pg, _ := store.ParsePage(store.PageArgs{})
	if _, err := s.ListPageLater(ctx, data[0].ProductID, store.Filter{}, pg, func() (*store.Stats, error) {
		return nil, store.Errorf(store.EUNAVAILABLE, "stats unavailable")
	}); store.ErrorCode(err) != store.EUNAVAILABLE {
		t.Errorf("ListPageLater with failing stats: %v, want %s", err, store.EUNAVAILABLE)
	}
}
