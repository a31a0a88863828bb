package storetest

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// Orders are the orders the conformance suite walks.
var Orders = []store.Order{store.OrderNewest, store.OrderOldest, store.OrderHighestRating, store.OrderLowestRating, store.OrderMostHelpful}

// OrderCompare is the recount's order o, written from the schema's rules
// and nothing of the store: negative when comment a is listed before b.
// NEWEST is createdAt then id, descending; OLDEST exactly its reverse; the
// rating orders and MOST_HELPFUL break ties as NEWEST does.
func OrderCompare(o store.Order, a, b *store.Comment) int {
	newest := cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
	switch o {
	case store.OrderOldest:
		return -newest
	case store.OrderHighestRating:
		return cmp.Or(cmp.Compare(b.Rating, a.Rating), newest)
	case store.OrderLowestRating:
		return cmp.Or(cmp.Compare(a.Rating, b.Rating), newest)
	case store.OrderMostHelpful:
		return cmp.Or(cmp.Compare(b.HelpfulCount, a.HelpfulCount), newest)
	}
	return newest
}

// RecountOrder is Recount listed in order o.
func RecountOrder(all []*store.Comment, pid, lang string, ratings []int, o store.Order) []*store.Comment {
	out := Recount(all, pid, lang, ratings)
	slices.SortStableFunc(out, func(a, b *store.Comment) int { return OrderCompare(o, a, b) })
	return out
}

// HasHelpfulIndexes reports whether the table's indexes include the helpful
// twins that MOST_HELPFUL reads, and published comments carry their HSK.
func HasHelpfulIndexes() bool {
	_, ok := table.IndexByName(table.IndexHelpfulAll)
	c := store.Comment{ID: "c", ProductID: "p", Language: "en", Rating: 1, Status: store.StatusPublished}
	_, hsk := c.Item()[table.AttrHSK]
	return ok && hsk
}

// withHelpfulCounts sets deterministic helpful counts on cs, with many ties
// (most comments have none), and returns cs.
func withHelpfulCounts(cs []*store.Comment, seed uint64) []*store.Comment {
	rng := rand.New(rand.NewPCG(seed, 0x4e1f))
	counts := []int64{0, 0, 0, 0, 1, 1, 2, 3, 3, 7, 12}
	for _, c := range cs {
		c.HelpfulCount = counts[rng.IntN(len(counts))]
	}
	return cs
}

// testOrders walks every order × filter (all languages or one; ratings
// nil, one, several, none, all five) × direction × page size (1, 7, 20,
// 100) over Dataset(1), whose timestamps tie, and compares each walk with
// RecountOrder; then cursors of one order in another (refused), cursors
// across filters, and MOST_HELPFUL with helpful counts changing between
// pages. MOST_HELPFUL runs only on a table with the helpful indexes.
func testOrders(t *testing.T, tbl table.Table) {
	data := withHelpfulCounts(Dataset(1), 1)
	s := MustLoad(t, tbl, data)
	orders := Orders
	if !HasHelpfulIndexes() {
		orders = orders[:len(orders)-1]
		t.Log("no helpful indexes, or no HSK on comments: MOST_HELPFUL not walked")
	}
	for _, o := range orders {
		t.Run("walks/"+o.String(), func(t *testing.T) {
			for _, pid := range []string{"big", "mid-1", "one", "no-comments"} {
				for _, lang := range []string{"", "en"} {
					for _, rs := range [][]int{nil, {5}, {2}, {1, 5}, {2, 3, 4}, {}, {1, 2, 3, 4, 5}} {
						checkOrderWalks(t, s, data, pid, store.Filter{Language: lang, Ratings: rs}, o)
					}
				}
			}
		})
	}
	t.Run("size-zero", func(t *testing.T) {
		// first: 0 and last: 0 return no edges but tell whether any exist
		// (an empty filter: none), in every order.
		zero := 0
		for _, o := range orders {
			for _, f := range []store.Filter{{}, {Ratings: []int{2}}, {Language: "fr", Ratings: []int{1, 5}}} {
				all := RecountOrder(data, "mid-1", f.Language, f.Ratings, o)
				for _, backward := range []bool{false, true} {
					args := store.PageArgs{Order: o, First: &zero}
					if backward {
						args = store.PageArgs{Order: o, Last: &zero}
					}
					conn, err := List(context.Background(), s, "mid-1", f, args, false)
					if err != nil || len(conn.Edges) != 0 || conn.HasNextPage != (!backward && len(all) > 0) || conn.HasPreviousPage != (backward && len(all) > 0) {
						t.Errorf("%s %+v backward=%v size 0: %v, %+v", o, f, backward, err, conn)
					}
				}
			}
		}
	})
	t.Run("short-replies", func(t *testing.T) {
		// Replies cut short with more to read (DynamoDB's 1 MB page): a
		// partition is read on from its last key, in every order.
		short := store.New(shortReplies{tbl})
		for _, o := range orders {
			for _, f := range []store.Filter{{}, {Language: "en", Ratings: []int{1, 4, 5}}} {
				checkOrderWalks(t, short, data, "big", f, o)
			}
		}
	})
	t.Run("cursor-of-another-order", func(t *testing.T) { checkCursorOfAnotherOrder(t, s, orders) })
	t.Run("cursor-across-filters", func(t *testing.T) {
		for _, o := range orders {
			checkOrderCursorAcrossFilters(t, s, data, o)
		}
	})
	if HasHelpfulIndexes() {
		t.Run("helpful-counts-change", func(t *testing.T) { checkHelpfulChanges(t, tbl, s, data) })
	}
}

// shortReplies is a Table whose queries return at most 2 items each, with
// the key to read on from when more may follow.
type shortReplies struct{ table.Table }

func (s shortReplies) Query(ctx context.Context, q table.Query) (table.QueryResult, error) {
	q.Limit = min(q.Limit, 2)
	return s.Table.Query(ctx, q)
}

// checkOrderWalks walks filter f of pid in order o at every page size,
// forward (stats on every page, or only where needed) and backward.
func checkOrderWalks(t *testing.T, s *store.Store, data []*store.Comment, pid string, f store.Filter, o store.Order) {
	t.Helper()
	want := ids(RecountOrder(data, pid, f.Language, f.Ratings, o))
	for _, size := range []int{1, 7, 20, 100} {
		if size == 1 && len(want) > 40 {
			continue // page size 1 is walked on the smaller filters only
		}
		for _, m := range []struct{ backward, everyPage bool }{{false, true}, {false, false}, {true, true}, {true, false}} {
			got := ids(walkOrder(t, s, pid, f, o, size, m.backward, len(want), m.everyPage))
			if !slices.Equal(got, want) {
				t.Fatalf("%s %s lang=%q ratings=%v size=%d %+v:\n got %v\nwant %v", o, pid, f.Language, f.Ratings, size, m, got, want)
			}
		}
	}
}

// checkCursorOfAnotherOrder checks that a cursor issued in one order is
// refused, as EINVALID naming its order, in every other.
func checkCursorOfAnotherOrder(t *testing.T, s *store.Store, orders []store.Order) {
	ctx := context.Background()
	n := 3
	for _, from := range orders {
		conn, err := List(ctx, s, "big", store.Filter{}, store.PageArgs{Order: from, First: &n}, false)
		if err != nil {
			t.Fatal(err)
		}
		cur := conn.Edges[1].Cursor
		for _, to := range orders {
			for _, args := range []store.PageArgs{{Order: to, First: &n, After: &cur}, {Order: to, Last: &n, Before: &cur}} {
				_, err := List(ctx, s, "big", store.Filter{}, args, false)
				switch {
				case to == from && err != nil:
					t.Errorf("a %s cursor in its own order: %v", from, err)
				case to != from && store.ErrorCode(err) != store.EINVALID:
					t.Errorf("a %s cursor in %s: error %v, want EINVALID", from, to, err)
				case to != from && !strings.Contains(store.ErrorMessage(err), "belongs to orderBy: "+from.String()):
					t.Errorf("a %s cursor in %s: message %q does not name its order", from, to, store.ErrorMessage(err))
				}
			}
		}
	}
}

// checkOrderCursorAcrossFilters checks that, in order o, the cursor of the
// k-th comment of the unfiltered list resumes a filtered list right after
// (before) that comment.
func checkOrderCursorAcrossFilters(t *testing.T, s *store.Store, data []*store.Comment, o store.Order) {
	ctx := context.Background()
	all := RecountOrder(data, "big", "", nil, o)
	n := 5
	for _, f := range []store.Filter{{Language: "en", Ratings: []int{1, 5}}, {Ratings: []int{3}}, {Language: "de"}} {
		matching := RecountOrder(data, "big", f.Language, f.Ratings, o)
		for _, k := range []int{0, 1, 17, 90, len(all) - 2, len(all) - 1} {
			cur := orderCursorAt(t, s, "big", o, k)
			var after, before []*store.Comment
			for _, c := range matching {
				if OrderCompare(o, c, all[k]) > 0 {
					after = append(after, c)
				} else if c.ID != all[k].ID {
					before = append(before, c)
				}
			}
			fwd, err := List(ctx, s, "big", f, store.PageArgs{Order: o, First: &n, After: &cur}, true)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := edgeIDs(fwd), ids(after[:min(n, len(after))]); !slices.Equal(got, want) || fwd.HasNextPage != (len(after) > n) {
				t.Errorf("%s %+v after comment %d: got %v (hasNext %v), want %v of %d", o, f, k, got, fwd.HasNextPage, want, len(after))
			}
			back, err := List(ctx, s, "big", f, store.PageArgs{Order: o, Last: &n, Before: &cur}, true)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := edgeIDs(back), ids(before[max(0, len(before)-n):]); !slices.Equal(got, want) || back.HasPreviousPage != (len(before) > n) {
				t.Errorf("%s %+v before comment %d: got %v (hasPrevious %v), want %v of %d", o, f, k, got, back.HasPreviousPage, want, len(before))
			}
		}
	}
}

// orderCursorAt returns the cursor of the k-th comment of pid's unfiltered
// list in order o.
func orderCursorAt(tb testing.TB, s *store.Store, pid string, o store.Order, k int) string {
	tb.Helper()
	var cur *string
	for {
		n := min(k+1, store.MaxPageSize)
		conn, err := List(context.Background(), s, pid, store.Filter{}, store.PageArgs{Order: o, First: &n, After: cur}, false)
		if err != nil || len(conn.Edges) != n {
			tb.Fatalf("cursor of comment %d in %s: %d edges, %v", k, o, len(conn.Edges), err)
		}
		cur = &conn.Edges[n-1].Cursor
		if k -= n; k < 0 {
			return *cur
		}
	}
}

// checkHelpfulChanges walks MOST_HELPFUL forward while helpful counts
// change between pages (comments before and after the cursor voted up and
// down, written as comment items through the Table) and checks the
// documented guarantee: every page is the recount, under the counts of
// the moment, of what follows the cursor's position (the last comment's
// helpful count as that page read it, then its createdAt and id); so every
// comment whose count did not change during the walk is listed exactly
// once, in order, and a comment whose count changed may be missed or
// listed twice.
// helpfulAfter is the recount of mine's MOST_HELPFUL list under filter f,
// from the start or (after) past last.
func helpfulAfter(mine []*store.Comment, f store.Filter, after bool, last *store.Comment) []*store.Comment {
	var want []*store.Comment
	for _, c := range RecountOrder(mine, "big", f.Language, f.Ratings, store.OrderMostHelpful) {
		if !after || OrderCompare(store.OrderMostHelpful, c, last) > 0 {
			want = append(want, c)
		}
	}
	return want
}

// moveHelpful moves one of mine's helpful counts up or down, writes it and
// returns its id.
func moveHelpful(t *testing.T, tbl table.Table, rng *rand.Rand, mine []*store.Comment) string {
	c := mine[rng.IntN(len(mine))]
	c.HelpfulCount = max(0, c.HelpfulCount+int64(rng.IntN(9))-4)
	MustPut(t, tbl, c.Item())
	return c.ID
}

func checkHelpfulChanges(t *testing.T, tbl table.Table, s *store.Store, data []*store.Comment) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 7))
	for _, f := range []store.Filter{{}, {Ratings: []int{1, 3, 5}}, {Language: "en"}, {Ratings: []int{4}}} {
		live := map[string]*store.Comment{}
		var mine []*store.Comment
		for _, c := range data {
			if c.ProductID == "big" {
				cp := *c
				live[c.ID] = &cp
				mine = append(mine, &cp)
			}
		}
		changed := map[string]bool{}
		seen := map[string]int{}
		size := 7
		var cursor *string
		var last store.Comment // the last comment of the page before, as that page read it
		for pages := 0; ; pages++ {
			if pages > 100 {
				t.Fatal("no end")
			}
			conn, err := List(ctx, s, "big", f, store.PageArgs{Order: store.OrderMostHelpful, First: &size, After: cursor}, pages%2 == 0)
			if err != nil {
				t.Fatal(err)
			}
			want := helpfulAfter(mine, f, cursor != nil, &last)
			if got := edgeIDs(conn); !slices.Equal(got, ids(want[:min(size, len(want))])) || conn.HasNextPage != (len(want) > size) {
				t.Fatalf("%+v page %d: got %v (hasNext %v)\nwant %v of %d", f, pages, got, conn.HasNextPage, ids(want[:min(size, len(want))]), len(want))
			}
			for _, e := range conn.Edges {
				seen[e.Comment.ID]++
			}
			if !conn.HasNextPage {
				break
			}
			cursor = &conn.Edges[len(conn.Edges)-1].Cursor
			last = *live[conn.Edges[len(conn.Edges)-1].Comment.ID]
			// Votes between pages: a few comments up or down, on both
			// sides of the cursor.
			for range 3 {
				changed[moveHelpful(t, tbl, rng, mine)] = true
			}
		}
		for _, c := range Recount(mine, "big", f.Language, f.Ratings) {
			if !changed[c.ID] && seen[c.ID] != 1 {
				t.Errorf("%+v: comment %s, whose count did not change, listed %d times", f, c.ID, seen[c.ID])
			}
		}
		// Restore the counts for the next filter.
		for _, c := range data {
			if changed[c.ID] {
				MustPut(t, tbl, c.Item())
			}
		}
	}
}
