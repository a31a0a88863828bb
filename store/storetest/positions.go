package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// testCursorPositions checks that a forward cursor's position (the remaining
// counts it carries) never changes what a page holds: each page after a
// write between pages — a comment created before or after the cursor, one
// deleted, one moved to another rating or language — holds exactly the
// recount of what follows the cursor, with an exact hasNextPage; and a
// cursor of another filter, or one whose counts are forged, reads the same
// comments.
func testCursorPositions(t *testing.T, tbl table.Table) {
	p := newCursorPositions(t, tbl)
	for _, f := range positionFilters {
		for _, w := range p.writes() {
			for _, everyPage := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/lang=%q/ratings=%v/stats-every-page=%v", w.name, f.Language, f.Ratings, everyPage), func(t *testing.T) {
					cursor := p.first(t, "big", f, 7)
					sk, _ := store.DecodeCursor(cursor)
					w.write(t, "big", f, sk)
					p.rest(t, "big", f, cursor, 7, everyPage)
				})
			}
		}
	}
	t.Run("stats-version", p.statsVersion)
	t.Run("other-filter", p.otherFilter)
	t.Run("forged-counts", p.forgedCounts)
}

// positionFilters are the filters testCursorPositions pages through.
var positionFilters = []store.Filter{{}, {Ratings: []int{5}}, {Ratings: []int{1, 3, 5}}, {Ratings: []int{3, 4}}, {Language: "en", Ratings: []int{1, 4, 5}}, {Language: "de"}}

// cursorPositions is the state of testCursorPositions: a store whose clock
// the writes set, and the live comments that the recount reads.
type cursorPositions struct {
	s    *store.Store
	live map[string]*store.Comment

	mu    sync.Mutex
	clock time.Time
}

// newCursorPositions loads Dataset(3) into tbl.
func newCursorPositions(t *testing.T, tbl table.Table) *cursorPositions {
	data := Dataset(3)
	MustLoad(t, tbl, data)
	p := &cursorPositions{live: map[string]*store.Comment{}, clock: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	p.s = store.New(tbl, store.WithClock(p.now))
	for _, c := range data {
		p.live[c.ID] = c
	}
	return p
}

func (p *cursorPositions) now() time.Time { p.mu.Lock(); defer p.mu.Unlock(); return p.clock }

func (p *cursorPositions) setClock(at time.Time) { p.mu.Lock(); p.clock = at; p.mu.Unlock() }

// all returns the live comments.
func (p *cursorPositions) all() []*store.Comment {
	out := make([]*store.Comment, 0, len(p.live))
	for _, c := range p.live {
		out = append(out, c)
	}
	return out
}

// after is the recount of what follows sort key sk in the list of pid
// matching f.
func (p *cursorPositions) after(pid string, f store.Filter, sk string) []string {
	var out []string
	for _, c := range Recount(p.all(), pid, f.Language, f.Ratings) {
		if store.SortKey(c.CreatedAt, c.ID) < sk {
			out = append(out, c.ID)
		}
	}
	return out
}

// rest pages from cursor to the end and checks every page against the
// recount of what follows its cursor.
func (p *cursorPositions) rest(t *testing.T, pid string, f store.Filter, cursor string, size int, everyPage bool) {
	t.Helper()
	for pages := 0; ; pages++ {
		if pages > 200 {
			t.Fatal("no end")
		}
		conn, err := List(context.Background(), p.s, pid, f, store.PageArgs{First: &size, After: &cursor}, everyPage)
		if err != nil {
			t.Fatal(err)
		}
		sk, _ := store.DecodeCursor(cursor)
		want := p.after(pid, f, sk)
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

// first reads the first page of size comments and returns the cursor of its
// last one, which must carry a position.
func (p *cursorPositions) first(t *testing.T, pid string, f store.Filter, size int) string {
	t.Helper()
	conn, err := List(context.Background(), p.s, pid, f, store.PageArgs{First: &size}, true)
	if err != nil || len(conn.Edges) != size || !conn.HasNextPage {
		t.Fatalf("first page: %d edges, %v", len(conn.Edges), err)
	}
	if !conn.Trace.Positioned {
		t.Fatalf("a first page read with its stats carries no position")
	}
	return conn.Edges[size-1].Cursor
}

// positionWrite is one write between two pages: of product pid, for the
// filter f being paged, given the sort key of the cursor.
type positionWrite struct {
	name  string
	write func(t *testing.T, pid string, f store.Filter, cursorSK string)
}

// writes are the writes testCursorPositions makes between two pages.
func (p *cursorPositions) writes() []positionWrite {
	return []positionWrite{
		{"none", func(*testing.T, string, store.Filter, string) {}},
		{"created-newest", p.createNewest},
		{"created-after-cursor", p.createAfterCursor},
		{"deleted-after-cursor", p.deleteAfterCursor},
		{"deleted-before-cursor", p.deleteBeforeCursor},
		{"moved-out-and-in", p.moveOutAndIn},
	}
}

func (p *cursorPositions) createNewest(t *testing.T, pid string, f store.Filter, _ string) {
	p.setClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	create(t, p.s, p.live, pid, f, 0)
}

// createAfterCursor creates a comment with an old timestamp (an import or a
// clock behind): it belongs to the pages still to come.
func (p *cursorPositions) createAfterCursor(t *testing.T, pid string, f store.Filter, _ string) {
	p.setClock(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC).Add(time.Millisecond))
	create(t, p.s, p.live, pid, f, 1)
}

func (p *cursorPositions) deleteAfterCursor(t *testing.T, pid string, f store.Filter, sk string) {
	ids := p.after(pid, f, sk)
	del(t, p.s, p.live, ids[len(ids)-1])
	del(t, p.s, p.live, ids[len(ids)/2])
}

func (p *cursorPositions) deleteBeforeCursor(t *testing.T, pid string, f store.Filter, sk string) {
	for _, c := range Recount(p.all(), pid, f.Language, f.Ratings) {
		if store.SortKey(c.CreatedAt, c.ID) > sk {
			del(t, p.s, p.live, c.ID)
			return
		}
	}
}

// moveOutAndIn moves the oldest match out of the filter (when it selects
// ratings), and an old non-match into it.
func (p *cursorPositions) moveOutAndIn(t *testing.T, pid string, f store.Filter, sk string) {
	ids := p.after(pid, f, sk)
	if f.Ratings != nil {
		for r := store.MinRating; r <= store.MaxRating; r++ {
			if !slices.Contains(f.Ratings, r) {
				update(t, p.s, p.live, store.CommentUpdate{ID: ids[len(ids)-1], Rating: &r})
				break
			}
		}
	}
	for _, c := range Recount(p.all(), pid, "", nil) {
		if store.SortKey(c.CreatedAt, c.ID) < sk && !slices.Contains(ids, c.ID) {
			r, lang := f.Ratings, f.Language
			u := store.CommentUpdate{ID: c.ID}
			if r != nil {
				u.Rating = &r[0]
			}
			if lang != "" {
				u.Language = &lang
			}
			update(t, p.s, p.live, u)
			return
		}
	}
}

// statsVersion checks that every write of a comment, and every rebuild,
// changes the version of the stats items it touches.
func (p *cursorPositions) statsVersion(t *testing.T) {
	v := func(lang string) int64 { return mustStats(t, p.s, "mid-1", lang).Version }
	all0, en0, de0 := v(""), v("en"), v("de")
	create(t, p.s, p.live, "mid-1", store.Filter{Language: "en"}, 0)
	if v("") <= all0 || v("en") <= en0 || v("de") != de0 {
		t.Fatalf("create: versions %d→%d, en %d→%d, de %d→%d", all0, v(""), en0, v("en"), de0, v("de"))
	}
	all0, en0 = v(""), v("en")
	if _, err := p.s.RebuildStats(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if v("") <= all0 || v("en") <= en0 {
		t.Fatalf("rebuild: versions %d→%d, en %d→%d", all0, v(""), en0, v("en"))
	}
}

// otherFilter pages every filter, and another product, from the cursor of
// one filter.
func (p *cursorPositions) otherFilter(t *testing.T) {
	cursor := p.first(t, "big", store.Filter{Ratings: []int{1, 3, 5}}, 7)
	for _, f := range positionFilters {
		p.rest(t, "big", f, cursor, 9, false)
	}
	p.rest(t, "mid-1", store.Filter{Ratings: []int{1, 3, 5}}, cursor, 9, true)
}

// forgedCounts pages from cursors whose counts are zero, or whose version
// is stale: the pages are exact.
func (p *cursorPositions) forgedCounts(t *testing.T) {
	f := store.Filter{Ratings: []int{1, 3, 5}}
	cursor := p.first(t, "big", f, 7)
	sk, _ := store.DecodeCursor(cursor)
	st := mustStats(t, p.s, "big", "")
	for _, pos := range []store.Position{
		{Filter: store.FilterHash("big", f), Version: st.Version, Remaining: []int64{0, 0, 0}},
		{Filter: store.FilterHash("big", f), Version: st.Version + 1, Remaining: []int64{1 << 40, 0, 3}},
	} {
		p.rest(t, "big", f, store.EncodePositionCursor(sk, &pos), 7, true)
		p.rest(t, "big", f, store.EncodePositionCursor(sk, &pos), 7, false)
	}
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
