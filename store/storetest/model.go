package storetest

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// RunModel is the conformance suite of the comments model (store.Store) on a
// Table: every filter, page size and direction of ListComments, cursors
// across filters, stats, languages and the leaderboard, all compared with an
// independent recount of the raw data; then mutations, concurrent ones
// included, with stats and leaderboard equal to a recount afterwards.
//
// Each subtest gets a fresh table from newTable.
func RunModel(t *testing.T, newTable func(t *testing.T) table.Table) {
	t.Run("Listing", func(t *testing.T) { testListing(t, newTable(t)) })
	t.Run("Mutations", func(t *testing.T) { testMutations(t, newTable(t)) })
	t.Run("ConcurrentMutations", func(t *testing.T) { testConcurrentMutations(t, newTable(t)) })
	t.Run("Ownership", func(t *testing.T) { testOwnership(t, newTable(t)) })
	t.Run("OwnerChangedBeforeTheWrite", func(t *testing.T) { testOwnerChangedBeforeTheWrite(t, newTable(t)) })
	t.Run("ConcurrentOwnership", func(t *testing.T) { testConcurrentOwnership(t, newTable(t)) })
	t.Run("HotProduct", func(t *testing.T) { testHotProduct(t, newTable(t)) })
	t.Run("UnshardedStats", func(t *testing.T) { testUnshardedStats(t, newTable(t)) })
	t.Run("LanguagesOverShards", func(t *testing.T) { testLanguagesOverShards(t, newTable(t)) })
	t.Run("UnsettledLeaderboard", func(t *testing.T) { testUnsettledLeaderboard(t, newTable(t)) })
	t.Run("Design", func(t *testing.T) { testDesign(t, newTable) })
	t.Run("StaleHints", func(t *testing.T) { testStaleHints(t, newTable(t)) })
	t.Run("Validation", func(t *testing.T) { testValidation(t, newTable(t)) })
	t.Run("CursorPositions", func(t *testing.T) { testCursorPositions(t, newTable(t)) })
	t.Run("Orders", func(t *testing.T) { testOrders(t, newTable(t)) })
	t.Run("Moderation", func(t *testing.T) { testModeration(t, newTable(t)) })
	t.Run("HelpfulBackfill", func(t *testing.T) { testHelpfulBackfill(t, newTable(t)) })
	t.Run("Votes", func(t *testing.T) { testVotes(t, newTable(t)) })
	t.Run("Replies", func(t *testing.T) { testReplies(t, newTable(t)) })
}

// Dataset returns a small deterministic data set with skewed ratings (one
// product has no 2-star comment, one only 5-star ones), three languages, and
// runs of identical timestamps to exercise the tie-break on id.
func Dataset(seed uint64) []*store.Comment {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	products := []struct {
		id      string
		n       int
		ratings []int // weighted pool
		langs   []string
	}{
		{"big", 180, []int{1, 3, 3, 4, 4, 4, 5, 5, 5, 5, 5, 5}, []string{"en", "en", "en", "de", "fr"}},
		{"mid-1", 60, []int{1, 2, 3, 4, 5, 5}, []string{"en", "de"}},
		{"only_five", 12, []int{5}, []string{"fr"}},
		{"one", 1, []int{3}, []string{"de"}},
	}
	base := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	var out []*store.Comment
	n := 0
	for _, p := range products {
		at := base
		for i := 0; i < p.n; i++ {
			if rng.IntN(4) != 0 { // one in four shares the previous timestamp
				at = at.Add(time.Duration(1+rng.IntN(90_000)) * time.Millisecond)
			}
			n++
			out = append(out, &store.Comment{
				ID:        fmt.Sprintf("c%05d-%c", (n*7919)%100000, 'a'+rune(rng.IntN(26))), // ids not in time order
				ProductID: p.id,
				Language:  p.langs[rng.IntN(len(p.langs))],
				Rating:    p.ratings[rng.IntN(len(p.ratings))],
				Author:    fmt.Sprintf("author %d", rng.IntN(50)),
				Title:     fmt.Sprintf("title %d", n),
				Body:      fmt.Sprintf("body of comment %d", n),
				CreatedAt: at,
			})
		}
	}
	return out
}

// Recount is the oracle: the comments matching a filter (lang "" for all,
// ratings nil for all), newest first, ties by id descending, computed from
// the raw data without any store code.
func Recount(all []*store.Comment, pid, lang string, ratings []int) []*store.Comment {
	var out []*store.Comment
	for _, c := range all {
		if c.ProductID != pid || (lang != "" && c.Language != lang) {
			continue
		}
		if ratings != nil && !slices.Contains(ratings, c.Rating) {
			continue
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *store.Comment) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	return out
}

// MustLoad bulk-loads cs into a new Store on tbl and rebuilds its stats.
func MustLoad(tb testing.TB, tbl table.Table, cs []*store.Comment) *store.Store {
	tb.Helper()
	s := store.New(tbl)
	ctx := context.Background()
	if err := s.PutComments(ctx, cs); err != nil {
		tb.Fatalf("PutComments: %v", err)
	}
	if _, err := s.RebuildStats(ctx, 3); err != nil {
		tb.Fatalf("RebuildStats: %v", err)
	}
	return s
}

// List is store.ListComments of product pid's comments matching f, its
// stats read with GetStats when the store asks for them; total asks for
// TotalCount.
func List(ctx context.Context, s *store.Store, pid string, f store.Filter, args store.PageArgs, total bool) (*store.Connection, error) {
	return s.ListComments(ctx, store.CommentsQuery{ProductID: pid, Filter: f, Page: args, Total: total}, func() (*store.Stats, error) {
		st, err := s.GetStats(ctx, []store.StatsID{{ProductID: pid, Language: f.Language}})
		if err != nil {
			return nil, err
		}
		return st[0], nil
	})
}

func mustStats(tb testing.TB, s *store.Store, pid, lang string) *store.Stats {
	tb.Helper()
	st, err := s.GetStats(context.Background(), []store.StatsID{{ProductID: pid, Language: lang}})
	if err != nil {
		tb.Fatalf("GetStats: %v", err)
	}
	return st[0]
}

func ids(cs []*store.Comment) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

// walk pages through a filter, forward (first/after) or backward
// (last/before), and returns the comments in display order.
func walk(tb testing.TB, s *store.Store, pid string, f store.Filter, size int, backward bool, want int) []*store.Comment {
	tb.Helper()
	return walkStats(tb, s, pid, f, size, backward, want, true)
}

// walkStats is walk reading the stats on every page (everyPage, as for a
// client that asks for totalCount) or only where the page needs them (as
// the resolver does otherwise: a merge's first page, or a page whose
// cursor carries no position). Every page's hasNextPage (hasPreviousPage)
// must be exact.
func walkStats(tb testing.TB, s *store.Store, pid string, f store.Filter, size int, backward bool, want int, everyPage bool) []*store.Comment {
	tb.Helper()
	return walkOrder(tb, s, pid, f, store.OrderNewest, size, backward, want, everyPage)
}

// walkOrder is walkStats in order o.
func walkOrder(tb testing.TB, s *store.Store, pid string, f store.Filter, o store.Order, size int, backward bool, want int, everyPage bool) []*store.Comment {
	tb.Helper()
	ctx := context.Background()
	var got []*store.Comment
	var cursor *string
	for pages := 0; ; pages++ {
		if pages > want+2 {
			tb.Fatalf("%s %+v %s size %d backward %v: no end after %d pages", pid, f, o, size, backward, pages)
		}
		n := size
		args := store.PageArgs{Order: o, First: &n, After: cursor}
		if backward {
			args = store.PageArgs{Order: o, Last: &n, Before: cursor}
		}
		conn, err := List(ctx, s, pid, f, args, everyPage)
		if err != nil {
			tb.Fatalf("ListComments: %v", err)
		}
		if everyPage && conn.TotalCount < 0 {
			tb.Fatalf("%s %+v: no totalCount with the stats asked for", pid, f)
		}
		if conn.TotalCount >= 0 && int(conn.TotalCount) != want {
			tb.Fatalf("%s %+v: totalCount %d, want %d", pid, f, conn.TotalCount, want)
		}
		page := make([]*store.Comment, len(conn.Edges))
		for i, e := range conn.Edges {
			page[i] = e.Comment
		}
		more := conn.HasNextPage
		if backward {
			more = conn.HasPreviousPage
			got = append(page, got...)
		} else {
			got = append(got, page...)
		}
		if len(page) > size || (more && len(page) != size) {
			tb.Fatalf("%s %+v size %d: page of %d, more=%v", pid, f, size, len(page), more)
		}
		if more != (len(got) < want) {
			tb.Fatalf("%s %+v %s size %d backward %v: after %d of %d comments, more=%v", pid, f, o, size, backward, len(got), want, more)
		}
		if !more {
			return got
		}
		if backward {
			cursor = &conn.Edges[0].Cursor
		} else {
			cursor = &conn.Edges[len(conn.Edges)-1].Cursor
		}
	}
}

// testListing compares ListComments with a recount: every filter, page
// size and direction walked to its end, cursors carried across filters,
// first: 0, a page bounded by after and before, then the stats.
func testListing(t *testing.T, tbl table.Table) {
	data := Dataset(1)
	s := MustLoad(t, tbl, data)
	pids := []string{"big", "mid-1", "only_five", "one", "no-comments"}
	t.Run("walks", func(t *testing.T) {
		ratings := [][]int{nil, {}, {5}, {2}, {1, 2}, {1, 3, 5}, {3, 4, 5}, {2, 3, 4, 5}, {1, 2, 3, 4}, {4, 5}, {1, 2, 3, 4, 5}, {5, 1, 5}}
		for _, pid := range pids {
			for _, lang := range []string{"", "en", "de", "fr", "ja"} {
				for _, rs := range ratings {
					checkWalks(t, s, data, pid, lang, rs)
				}
			}
		}
	})
	t.Run("walks-by-sizing", func(t *testing.T) {
		// Every named merge sizing returns the same pages (the sizing
		// trades items read against rounds, never what a page holds).
		for name, sz := range store.Sizings {
			s := store.New(tbl, store.WithSizing(sz))
			for _, pid := range []string{"big", "mid-1"} {
				for _, lang := range []string{"", "en"} {
					for _, rs := range [][]int{{1, 2}, {1, 3, 5}, {3, 4, 5}, {1, 2, 3, 4}, {4, 5}} {
						t.Run(name, func(t *testing.T) { checkWalks(t, s, data, pid, lang, rs) })
					}
				}
			}
		}
	})
	t.Run("cursor-of-another-filter", func(t *testing.T) { checkCursorAcrossFilters(t, s, data) })
	t.Run("first-zero", func(t *testing.T) {
		// first: 0 returns no edges but tells whether any exist.
		zero := 0
		conn, err := List(context.Background(), s, "big", store.Filter{}, store.PageArgs{First: &zero}, true)
		if err != nil || len(conn.Edges) != 0 || !conn.HasNextPage {
			t.Errorf("first: 0 = %d edges, hasNext %v, err %v", len(conn.Edges), conn.HasNextPage, err)
		}
	})
	t.Run("after-and-before", func(t *testing.T) {
		// after and before together bound the page on both sides.
		all := Recount(data, "big", "", nil)
		a, b := cursorAt(t, s, "big", 10), cursorAt(t, s, "big", 20)
		ten := 50
		conn, err := List(context.Background(), s, "big", store.Filter{}, store.PageArgs{First: &ten, After: &a, Before: &b}, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := edgeIDs(conn); !slices.Equal(got, ids(all[11:20])) || conn.HasNextPage {
			t.Errorf("between 10 and 20: got %v (hasNext %v), want %v", got, conn.HasNextPage, ids(all[11:20]))
		}
	})
	t.Run("stats", func(t *testing.T) { checkStats(t, s, data, pids) })
}

// checkWalks walks the comments of pid in lang with ratings rs, at every
// page size, forward (stats on every page or only where needed) and
// backward, and compares them with the recount.
func checkWalks(t *testing.T, s *store.Store, data []*store.Comment, pid, lang string, rs []int) {
	t.Helper()
	norm, err := store.NormalizeRatings(rs)
	if err != nil {
		t.Fatal(err)
	}
	f := store.Filter{Language: lang, Ratings: norm}
	want := ids(Recount(data, pid, lang, norm))
	for _, size := range []int{1, 7, 20, 100} {
		if size == 1 && len(want) > 40 {
			continue // page size 1 is walked on the smaller filters only
		}
		for _, m := range []struct{ backward, everyPage bool }{{false, true}, {false, false}, {true, true}} {
			got := ids(walkStats(t, s, pid, f, size, m.backward, len(want), m.everyPage))
			if !slices.Equal(got, want) {
				t.Fatalf("%s lang=%q ratings=%v size=%d %+v:\n got %v\nwant %v", pid, lang, rs, size, m, got, want)
			}
		}
	}
}

// checkCursorAcrossFilters checks that a cursor from one filter resumes
// another filter right after (before) that comment.
func checkCursorAcrossFilters(t *testing.T, s *store.Store, data []*store.Comment) {
	all := Recount(data, "big", "", nil)
	f := store.Filter{Language: "en", Ratings: []int{1, 5}}
	matches := func(cs []*store.Comment) []*store.Comment {
		var out []*store.Comment
		for _, c := range cs {
			if c.Language == "en" && (c.Rating == 1 || c.Rating == 5) {
				out = append(out, c)
			}
		}
		return out
	}
	n := 5
	for _, k := range []int{0, 1, 17, 90, len(all) - 2, len(all) - 1} {
		// the cursor of the k-th comment of the unfiltered list
		cur := cursorAt(t, s, "big", k)
		fwd, err := List(context.Background(), s, "big", f, store.PageArgs{First: &n, After: &cur}, true)
		if err != nil {
			t.Fatal(err)
		}
		want := matches(all[k+1:])
		if got := edgeIDs(fwd); !slices.Equal(got, ids(want[:min(n, len(want))])) {
			t.Errorf("after comment %d: got %v want %v", k, got, ids(want[:min(n, len(want))]))
		}
		if fwd.HasNextPage != (len(want) > n) {
			t.Errorf("after comment %d: hasNextPage %v with %d left", k, fwd.HasNextPage, len(want))
		}
		back, err := List(context.Background(), s, "big", f, store.PageArgs{Last: &n, Before: &cur}, true)
		if err != nil {
			t.Fatal(err)
		}
		want = matches(all[:k])
		if got := edgeIDs(back); !slices.Equal(got, ids(want[max(0, len(want)-n):])) {
			t.Errorf("before comment %d: got %v want %v", k, got, ids(want[max(0, len(want)-n):]))
		}
		if back.HasPreviousPage != (len(want) > n) {
			t.Errorf("before comment %d: hasPreviousPage %v with %d before", k, back.HasPreviousPage, len(want))
		}
	}
}

func cursorAt(tb testing.TB, s *store.Store, pid string, k int) string {
	tb.Helper()
	n := k + 1
	if n > store.MaxPageSize {
		var cur *string
		for n > store.MaxPageSize {
			m := store.MaxPageSize
			conn, err := List(context.Background(), s, pid, store.Filter{}, store.PageArgs{First: &m, After: cur}, true)
			if err != nil {
				tb.Fatal(err)
			}
			cur = &conn.Edges[len(conn.Edges)-1].Cursor
			n -= m
		}
		conn, err := List(context.Background(), s, pid, store.Filter{}, store.PageArgs{First: &n, After: cur}, true)
		if err != nil {
			tb.Fatal(err)
		}
		return conn.Edges[n-1].Cursor
	}
	conn, err := List(context.Background(), s, pid, store.Filter{}, store.PageArgs{First: &n}, true)
	if err != nil {
		tb.Fatal(err)
	}
	return conn.Edges[k].Cursor
}

func edgeIDs(c *store.Connection) []string {
	out := make([]string, len(c.Edges))
	for i, e := range c.Edges {
		out[i] = e.Comment.ID
	}
	return out
}

// checkStats compares stats, languages and both leaderboards with a recount.
func checkStats(t *testing.T, s *store.Store, data []*store.Comment, pids []string) {
	t.Helper()
	counts, langs := recountStats(data)
	for _, pid := range pids {
		for lang := range langs {
			checkStatsOf(t, s, pid, lang, counts[statsKey{pid, lang}])
		}
		checkLanguages(t, s, pid, recountLanguages(counts, pid))
	}
	for lang := range langs {
		checkTopProducts(t, s, lang, recountLeaders(counts, lang))
	}
}

// statsKey is a product, and a language ("" for all of them).
type statsKey struct{ pid, lang string }

// recountStats returns the counts per rating of every product and of every
// product and language in data, and the languages of data ("" included).
func recountStats(data []*store.Comment) (map[statsKey]*[6]int64, map[string]bool) {
	counts := map[statsKey]*[6]int64{}
	langs := map[string]bool{"": true}
	for _, c := range data {
		for _, k := range []statsKey{{c.ProductID, ""}, {c.ProductID, c.Language}} {
			if counts[k] == nil {
				counts[k] = new([6]int64)
			}
			counts[k][c.Rating]++
		}
		langs[c.Language] = true
	}
	return counts, langs
}

// checkStatsOf compares the stats of pid in lang with want (nil: none).
func checkStatsOf(t *testing.T, s *store.Store, pid, lang string, want *[6]int64) {
	t.Helper()
	st := mustStats(t, s, pid, lang)
	if want == nil {
		want = new([6]int64)
	}
	var total int64
	for r := 1; r <= 5; r++ {
		total += want[r]
		if st.Counts[r] != want[r] {
			t.Errorf("stats %s/%q rating %d = %d, want %d", pid, lang, r, st.Counts[r], want[r])
		}
	}
	if st.Total != total {
		t.Errorf("stats %s/%q total = %d, want %d", pid, lang, st.Total, total)
	}
}

// recountLanguages returns the languages of pid that have comments, with
// their totals, in tag order.
func recountLanguages(counts map[statsKey]*[6]int64, pid string) []*store.Stats {
	var out []*store.Stats
	for k, c := range counts {
		if k.pid == pid && k.lang != "" {
			st := &store.Stats{Language: k.lang}
			for r := 1; r <= 5; r++ {
				st.Total += c[r]
			}
			if st.Total > 0 {
				out = append(out, st)
			}
		}
	}
	slices.SortFunc(out, func(a, b *store.Stats) int { return cmp.Compare(a.Language, b.Language) })
	return out
}

// checkLanguages compares the languages of pid, all of them and the first
// n for every n, with want, and checks that n out of range is EINVALID.
func checkLanguages(t *testing.T, s *store.Store, pid string, want []*store.Stats) {
	t.Helper()
	ctx := context.Background()
	got, err := s.Languages(ctx, pid, store.MaxLanguages)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("languages of %s: %d, want %d", pid, len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i].Language != want[i].Language || got[i].Total != want[i].Total {
			t.Errorf("languages of %s [%d] = %s:%d, want %s:%d", pid, i, got[i].Language, got[i].Total, want[i].Language, want[i].Total)
		}
	}
	// The first n are a prefix (no language of this data set has had
	// all its comments deleted).
	for n := range len(want) + 1 {
		first, err := s.Languages(ctx, pid, n)
		if err != nil || len(first) != n || (n > 0 && first[n-1].Language != want[n-1].Language) {
			t.Errorf("languages of %s, first %d: %d languages, %v", pid, n, len(first), err)
		}
	}
	for _, n := range []int{-1, store.MaxLanguages + 1} {
		if _, err := s.Languages(ctx, pid, n); table.ErrorCode(err) != table.EINVALID {
			t.Errorf("languages of %s, first %d: %v, want EINVALID", pid, n, err)
		}
	}
}

// leader is a product's place on a leaderboard: its 5-star count.
type leader struct {
	pid string
	n   int64
}

// recountLeaders returns the leaderboard of lang: the products with 5-star
// comments, most first, ties by product id descending.
func recountLeaders(counts map[statsKey]*[6]int64, lang string) []leader {
	var out []leader
	for k, c := range counts {
		if k.lang == lang && c[5] > 0 {
			out = append(out, leader{k.pid, c[5]})
		}
	}
	slices.SortFunc(out, func(a, b leader) int {
		if a.n != b.n {
			return cmp.Compare(b.n, a.n)
		}
		return cmp.Compare(b.pid, a.pid)
	})
	return out
}

// checkTopProducts compares the leaderboard of lang, for several n, with
// want.
func checkTopProducts(t *testing.T, s *store.Store, lang string, want []leader) {
	t.Helper()
	for _, n := range []int{1, 2, 10, 100} {
		got, err := s.TopProducts(context.Background(), lang, n)
		if err != nil {
			t.Fatal(err)
		}
		w := want[:min(n, len(want))]
		if len(got) != len(w) {
			t.Errorf("topProducts(%d, %q) has %d entries, want %d", n, lang, len(got), len(w))
			continue
		}
		for i := range w {
			if got[i].ProductID != w[i].pid || got[i].FiveStarCount != w[i].n || got[i].Rank != i+1 {
				t.Errorf("topProducts(%d, %q)[%d] = %+v, want %+v", n, lang, i, got[i], w[i])
			}
		}
	}
}

// testMutations creates, updates and deletes comments, and compares the
// lists, stats and leaderboards with a recount of the live comments after
// each step; then missing comments are ENOTFOUND, and a rebuild of the
// stats changes nothing.
func testMutations(t *testing.T, tbl table.Table) {
	data := Dataset(2)
	s := MustLoad(t, tbl, data)
	live := map[string]*store.Comment{}
	for _, c := range data {
		live[c.ID] = c
	}
	c := checkCreate(t, s, live)
	checkUpdate(t, s, live, c)
	checkDeletes(t, s, data, live)
	checkNotFound(t, s, data, live, c)
	checkRebuildKeepsStats(t, s)
}

// checkCreate creates a comment of "mid-1", which reads back and heads the
// list of every filter it matches, and adds it to live.
func checkCreate(t *testing.T, s *store.Store, live map[string]*store.Comment) *store.Comment {
	ctx := context.Background()
	c, err := s.CreateComment(ctx, store.NewComment{ProductID: "mid-1", Language: "EN-gb", Rating: 5, Author: "Ann", Title: "Great", Body: "Really great."})
	if err != nil {
		t.Fatal(err)
	}
	if c.Language != "en-GB" || c.ID == "" || c.CreatedAt.IsZero() {
		t.Fatalf("created %+v", c)
	}
	live[c.ID] = c
	got, err := s.GetComments(ctx, []string{c.ID, "missing"})
	if err != nil || got[0] == nil || got[0].Title != "Great" || got[1] != nil {
		t.Fatalf("GetComments = %v, %v", got, err)
	}
	// Newest first: the new comment heads every list it matches.
	conn, err := List(ctx, s, "mid-1", store.Filter{Language: "en-GB", Ratings: []int{5}}, store.PageArgs{}, true)
	if err != nil || len(conn.Edges) != 1 || conn.Edges[0].Comment.ID != c.ID || conn.TotalCount != 1 {
		t.Fatalf("list after create: %+v, %v", conn, err)
	}
	return c
}

// checkUpdate moves c between rating and language partitions and stats,
// then changes its title.
func checkUpdate(t *testing.T, s *store.Store, live map[string]*store.Comment, c *store.Comment) {
	ctx := context.Background()
	two, de := 2, "de"
	u, err := s.UpdateComment(ctx, store.CommentUpdate{ID: c.ID, Rating: &two, Language: &de})
	if err != nil || u.Rating != 2 || u.Language != "de" || u.Title != "Great" || !u.CreatedAt.Equal(c.CreatedAt) {
		t.Fatalf("update = %+v, %v", u, err)
	}
	live[c.ID] = u
	title := "Changed title"
	if _, err := s.UpdateComment(ctx, store.CommentUpdate{ID: c.ID, Title: &title}); err != nil {
		t.Fatal(err)
	}
	live[c.ID].Title = title
	checkStats(t, s, slices.Collect(maps.Values(live)), []string{"big", "mid-1"})
}

// checkDeletes deletes the 5-star comments of the leader and a whole
// language of a product.
func checkDeletes(t *testing.T, s *store.Store, data []*store.Comment, live map[string]*store.Comment) {
	for _, d := range data {
		if d.ProductID == "only_five" || (d.ProductID == "big" && d.Rating == 5 && d.Language == "de") {
			if err := s.DeleteComment(context.Background(), d.ID, store.AnyOwner); err != nil {
				t.Fatal(err)
			}
			delete(live, d.ID)
		}
	}
	checkStats(t, s, slices.Collect(maps.Values(live)), []string{"big", "mid-1", "only_five"})
	for _, pid := range []string{"big", "only_five"} {
		want := ids(Recount(slices.Collect(maps.Values(live)), pid, "", nil))
		if got := ids(walk(t, s, pid, store.Filter{}, 20, false, len(want))); !slices.Equal(got, want) {
			t.Errorf("%s after deletes: got %d comments, want %d", pid, len(got), len(want))
		}
	}
}

// checkNotFound checks that deletes and updates of missing comments are
// ENOTFOUND, c's second delete included.
func checkNotFound(t *testing.T, s *store.Store, data []*store.Comment, live map[string]*store.Comment, c *store.Comment) {
	ctx := context.Background()
	if err := s.DeleteComment(ctx, data[0].ID+"x", store.AnyOwner); table.ErrorCode(err) != table.ENOTFOUND {
		t.Errorf("delete missing: %v", err)
	}
	title := "Changed title"
	if _, err := s.UpdateComment(ctx, store.CommentUpdate{ID: "nope", Title: &title}); table.ErrorCode(err) != table.ENOTFOUND {
		t.Errorf("update missing: %v", err)
	}
	if err := s.DeleteComment(ctx, c.ID, store.AnyOwner); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteComment(ctx, c.ID, store.AnyOwner); table.ErrorCode(err) != table.ENOTFOUND {
		t.Errorf("second delete: %v", err)
	}
	delete(live, c.ID)
}

// checkRebuildKeepsStats checks that rebuilding the stats changes nothing:
// they never drifted.
func checkRebuildKeepsStats(t *testing.T, s *store.Store) {
	pids := []string{"big", "mid-1", "only_five", "one"}
	before := snapshotStats(t, s, pids)
	if _, err := s.RebuildStats(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if after := snapshotStats(t, s, pids); !slices.Equal(before, after) {
		t.Errorf("stats drifted:\nbefore %v\nafter  %v", before, after)
	}
}

func snapshotStats(t *testing.T, s *store.Store, pids []string) []string {
	var out []string
	for _, pid := range pids {
		for _, lang := range []string{"", "en", "de", "fr", "en-GB"} {
			st := mustStats(t, s, pid, lang)
			out = append(out, fmt.Sprintf("%s/%s:%v", pid, lang, st.Counts))
		}
	}
	top, err := s.TopProducts(context.Background(), "", 100)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, fmt.Sprint(top))
}

// testConcurrentMutations runs writers on the same products at once, with
// 5-star changes contending for the leaderboard keys, then compares the
// stats and leaderboards with a recount.
func testConcurrentMutations(t *testing.T, tbl table.Table) {
	data := Dataset(3)[:40]
	s := MustLoad(t, tbl, data)
	live := &liveComments{m: map[string]*store.Comment{}}
	for _, c := range data {
		live.m[c.ID] = c
	}
	const workers, perWorker = 6, 15
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := mutateConcurrently(s, live, w, perWorker); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	all := live.values()
	checkStats(t, s, all, []string{"big", "p2"})
	for _, pid := range []string{"big", "p2"} {
		want := ids(Recount(all, pid, "", []int{4, 5}))
		if got := ids(walk(t, s, pid, store.Filter{Ratings: []int{4, 5}}, 20, false, len(want))); !slices.Equal(got, want) {
			t.Errorf("%s after concurrent writes: %d comments, want %d", pid, len(got), len(want))
		}
	}
}

// liveComments is the set of live comments, by id, of concurrent writers.
type liveComments struct {
	mu sync.Mutex
	m  map[string]*store.Comment
}

func (l *liveComments) put(c *store.Comment) { l.mu.Lock(); l.m[c.ID] = c; l.mu.Unlock() }

func (l *liveComments) remove(id string) { l.mu.Lock(); delete(l.m, id); l.mu.Unlock() }

func (l *liveComments) values() []*store.Comment {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Collect(maps.Values(l.m))
}

// mutateConcurrently is writer w of testConcurrentMutations: n creates (of 4
// and 5 stars), rating changes and deletes of its own comments of products
// "big" and "p2", recorded in live.
func mutateConcurrently(s *store.Store, live *liveComments, w, n int) error {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(uint64(w), 7))
	var mine []string
	for i := 0; i < n; i++ {
		pid := []string{"big", "p2"}[rng.IntN(2)]
		switch op := rng.IntN(4); {
		case op <= 1 || len(mine) == 0:
			c, err := s.CreateComment(ctx, store.NewComment{ProductID: pid, Language: []string{"en", "de"}[rng.IntN(2)],
				Rating: 4 + rng.IntN(2), Author: "w", Title: "t", Body: "b"})
			if err != nil {
				return fmt.Errorf("create: %w", err)
			}
			mine = append(mine, c.ID)
			live.put(c)
		case op == 2:
			r := 1 + rng.IntN(5)
			c, err := s.UpdateComment(ctx, store.CommentUpdate{ID: mine[rng.IntN(len(mine))], Rating: &r})
			if err != nil {
				return fmt.Errorf("update: %w", err)
			}
			live.put(c)
		default:
			k := rng.IntN(len(mine))
			id := mine[k]
			mine = slices.Delete(mine, k, k+1)
			if err := s.DeleteComment(ctx, id, store.AnyOwner); err != nil {
				return fmt.Errorf("delete: %w", err)
			}
			live.remove(id)
		}
	}
	return nil
}

func testValidation(t *testing.T, tbl table.Table) {
	s := store.New(tbl)
	ctx := context.Background()
	ok := store.NewComment{ProductID: "p", Language: "en", Rating: 3, Author: "a", Title: "t", Body: "b"}
	long := func(n int) string { return string(slices.Repeat([]byte{'x'}, n)) }
	bad := []func(*store.NewComment){
		func(c *store.NewComment) { c.ProductID = "" },
		func(c *store.NewComment) { c.ProductID = "a/b" },
		func(c *store.NewComment) { c.ProductID = long(65) },
		func(c *store.NewComment) { c.Language = "" },
		func(c *store.NewComment) { c.Language = "en/5" },
		func(c *store.NewComment) { c.Rating = 0 },
		func(c *store.NewComment) { c.Rating = 6 },
		func(c *store.NewComment) { c.Author = "  " },
		func(c *store.NewComment) { c.Author = long(101) },
		func(c *store.NewComment) { c.Title = "" },
		func(c *store.NewComment) { c.Title = long(201) },
		func(c *store.NewComment) { c.Body = "" },
		func(c *store.NewComment) { c.Body = long(10_001) },
		func(c *store.NewComment) { c.Body = "\xff\xfe" },
	}
	for i, mut := range bad {
		in := ok
		mut(&in)
		if _, err := s.CreateComment(ctx, in); table.ErrorCode(err) != table.EINVALID {
			t.Errorf("case %d: err = %v, want EINVALID", i, err)
		}
	}
	if empty, err := s.IsEmpty(ctx); err != nil || !empty {
		t.Errorf("invalid input wrote something: empty=%v err=%v", empty, err)
	}
	for _, a := range []store.PageArgs{
		{First: ptr(-1)}, {First: ptr(101)}, {Last: ptr(-1)}, {First: ptr(1), Last: ptr(1)},
		{After: ptr("")}, {After: ptr("garbage")}, {Before: ptr("AAAA")},
	} {
		if _, err := List(ctx, s, "p", store.Filter{}, a, true); table.ErrorCode(err) != table.EINVALID {
			t.Errorf("page args %+v: err = %v", a, err)
		}
	}
	if _, err := s.TopProducts(ctx, "", 101); table.ErrorCode(err) != table.EINVALID {
		t.Errorf("topProducts(101): %v", err)
	}
}

func ptr[T any](v T) *T { return &v }
