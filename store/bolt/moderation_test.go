package bolt

import (
	"testing"

	"github.com/acme/comments-gateway/store"
)

// TestOldFileServesModeration is the upgrade path to moderation on bbolt
// (docs/design.md §12.3): a file written long before moderation opens with
// its indexes rebuilt, its comments are published (listed and counted),
// and moderating one of them moves it out of the public list and stats and
// into its queue.
func TestOldFileServesModeration(t *testing.T) {
	tbl := MustOpenPath(t, mustCopyFixture(t))
	s := store.New(tbl, store.WithModeration(store.Moderation{Mode: store.ModerationPost}))
	ctx := t.Context()
	if err := s.CheckModeration(ctx); err != nil {
		t.Fatalf("CheckModeration: %v", err)
	}
	if _, err := s.RebuildStats(ctx, 2); err != nil {
		t.Fatal(err)
	}
	total := func() int64 {
		st, err := s.GetStats(ctx, []store.StatsID{{ProductID: "p0"}})
		if err != nil {
			t.Fatal(err)
		}
		return st[0].Total
	}
	before := total()
	cs, err := s.GetComments(ctx, []string{"c00000"}) // a comment of p0
	if err != nil || cs[0] == nil || cs[0].Status != store.StatusPublished {
		t.Fatalf("an old comment: %+v, %v; want it PUBLISHED", cs[0], err)
	}
	if _, err := s.Moderate(ctx, "c00000", store.ActionHide, "old spam"); err != nil {
		t.Fatal(err)
	}
	if got := total(); got != before-1 {
		t.Errorf("p0's total after hiding one: %d, want %d", got, before-1)
	}
	q, err := s.ModerationQueue(ctx, store.QueueHidden, 10, "")
	if err != nil || len(q.Comments) != 1 || q.Comments[0].ID != "c00000" {
		t.Errorf("hidden queue: %+v, %v", q, err)
	}
	if _, err := s.RebuildStats(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if got := total(); got != before-1 {
		t.Errorf("p0's total after rebuild-stats: %d, want %d (published comments only)", got, before-1)
	}
}
