package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/acme/comments-gateway/demo"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
	"github.com/acme/comments-gateway/store/storetest"
)

// browseOrder runs the browsing workload (every product × all languages
// or its most common one × storetest.WorkloadRatings × the first 10 pages
// of 20) in order o, with or without totalCount, and totals it.
func browseOrder(tb testing.TB, w *storetest.Browsing, o store.Order, withTotal bool) storetest.Tally {
	var all storetest.Tally
	for _, byLang := range []bool{false, true} {
		for _, rs := range storetest.WorkloadRatings {
			all.Add(w.BrowseOrder(tb, o, byLang, rs, 10, withTotal))
		}
	}
	return all
}

// BenchmarkOrderAmplification reports the read amplification (items read,
// stats items included, per item returned) and the store calls per page
// of the browsing workload in each order, with and without totalCount,
// under the default merge sizings of the embedded store and of DynamoDB
// (the rating orders merge nothing: the sizing does not change them).
func BenchmarkOrderAmplification(b *testing.B) {
	w := MustDemoStore(b)
	for _, sz := range []string{"balanced", "one-round"} {
		w.S.SetSizing(store.Sizings[sz])
		for _, o := range storetest.Orders {
			if o == store.OrderMostHelpful && !storetest.HasHelpfulIndexes() {
				continue
			}
			for _, withTotal := range []bool{true, false} {
				b.Run(fmt.Sprintf("sizing=%s/order=%s/totalCount=%v", sz, o, withTotal), func(b *testing.B) {
					var t storetest.Tally
					for b.Loop() {
						t = browseOrder(b, w, o, withTotal)
					}
					b.ReportMetric(t.Amplification(), "read/returned")
					b.ReportMetric(float64(t.Calls)/float64(t.Pages), "calls/page")
				})
			}
		}
	}
}

// TestRatingOrderAmplification: on the browsing workload the rating
// orders read at most 5% more items per item returned than NEWEST (they
// read no merge's over-read: a page is its items and the one past it).
func TestRatingOrderAmplification(t *testing.T) {
	w := MustDemoStore(t)
	for _, withTotal := range []bool{true, false} {
		newest := browseOrder(t, w, store.OrderNewest, withTotal).Amplification()
		for _, o := range []store.Order{store.OrderHighestRating, store.OrderLowestRating} {
			if a := browseOrder(t, w, o, withTotal).Amplification(); a > 1.05*newest {
				t.Errorf("totalCount=%v: %s reads %.3f items per item returned, NEWEST %.3f", withTotal, o, a, newest)
			}
		}
	}
}

// ratingOrderPages loads one product with 40,000 comments and returns a
// function that reads one page of 20 in order o after cursor after (nil:
// page 1), with totalCount, and reports the items read and calls made.
func ratingOrderPages(tb testing.TB) func(o store.Order, f store.Filter, after *string) (*store.Connection, int64, int64) {
	tbl := bolttest.Open(tb)
	cfg := demo.DefaultConfig()
	cfg.Products, cfg.Comments = 1, 40_000
	cs := demo.Generate(demo.NewRand(7), cfg)
	s := storetest.MustLoad(tb, tbl, cs)
	pid := cs[0].ProductID
	size := 20
	return func(o store.Order, f store.Filter, after *string) (*store.Connection, int64, int64) {
		ctx, u := store.WithUsage(context.Background())
		conn, err := storetest.List(ctx, s, pid, f, store.PageArgs{Order: o, First: &size, After: after}, true)
		if err != nil {
			tb.Fatal(err)
		}
		return conn, u.ItemsRead(), u.Requests()
	}
}

// deepCursor pages n pages of 20 into the list and returns the cursor
// that starts page n+1.
func deepCursor(tb testing.TB, page func(store.Order, store.Filter, *string) (*store.Connection, int64, int64), o store.Order, f store.Filter, n int) *string {
	var cursor *string
	for range n {
		conn, _, _ := page(o, f, cursor)
		if !conn.HasNextPage {
			tb.Fatalf("%s %+v: the list ends before page %d", o, f, n+1)
		}
		cursor = &conn.Edges[len(conn.Edges)-1].Cursor
	}
	return cursor
}

// BenchmarkRatingOrderDeepPage reports the items read and store calls of
// page 1 and page 500 (10,000 comments in) of HIGHEST_RATING on one
// product with 40,000 comments, all ratings and three, with totalCount:
// the cursor holds the rating and the GSISK, so a deep page is one query
// like page 1.
func BenchmarkRatingOrderDeepPage(b *testing.B) {
	page := ratingOrderPages(b)
	for _, f := range []store.Filter{{}, {Ratings: []int{1, 3, 5}}} {
		b.Run(fmt.Sprintf("ratings=%v", f.Ratings), func(b *testing.B) {
			deep := deepCursor(b, page, store.OrderHighestRating, f, 499)
			var r1, c1, r500, c500 int64
			for b.Loop() {
				_, r1, c1 = page(store.OrderHighestRating, f, nil)
				_, r500, c500 = page(store.OrderHighestRating, f, deep)
			}
			b.ReportMetric(float64(r1), "p1-items")
			b.ReportMetric(float64(c1), "p1-calls")
			b.ReportMetric(float64(r500), "p500-items")
			b.ReportMetric(float64(c500), "p500-calls")
		})
	}
}

// TestRatingOrderDeepPage: page 500 of HIGHEST_RATING reads what page 1
// reads (items and calls), and a page that crosses from one rating to the
// next makes two queries. (Both pages are read after the walk to page 500,
// so that the stats are current for both: store.ReadStats.)
func TestRatingOrderDeepPage(t *testing.T) {
	page := ratingOrderPages(t)
	for _, f := range []store.Filter{{}, {Ratings: []int{1, 3, 5}}} {
		deep := deepCursor(t, page, store.OrderHighestRating, f, 499)
		_, r1, c1 := page(store.OrderHighestRating, f, nil)
		_, r500, c500 := page(store.OrderHighestRating, f, deep)
		if r500 != r1 || c500 != c1 {
			t.Errorf("%+v: page 500 read %d items in %d calls, page 1 %d in %d", f, r500, c500, r1, c1)
		}
	}
	// Find the page that crosses from the 5s into the 4s.
	var cursor *string
	for range 2000 {
		conn, _, _ := page(store.OrderHighestRating, store.Filter{}, cursor)
		first, last := conn.Edges[0].Comment.Rating, conn.Edges[len(conn.Edges)-1].Comment.Rating
		if first == last {
			cursor = &conn.Edges[len(conn.Edges)-1].Cursor
			continue
		}
		if tr := conn.Trace; len(tr.Plan.Partitions) != 2 || tr.Calls != 2 {
			t.Errorf("the page from %d to %d stars: %d partitions, %d calls", first, last, len(tr.Plan.Partitions), tr.Calls)
		}
		return
	}
	t.Fatal("no page crosses ratings")
}
