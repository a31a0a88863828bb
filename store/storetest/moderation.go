package storetest

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// The moderation suite (docs/design.md §12): random sequences of create,
// edit, approve, reject, hide, restore, report and delete through a pre
// and a post store over one table, concurrent moderators and reporters,
// then every public list, totalCount, stats, languages, the leaderboard,
// the queues and the authors' lists compared with a recount of an
// independent model.

// modThreshold is the post store's report threshold.
const modThreshold = 2

// modModel is what the suite expects of each comment it wrote: its
// status, open reports and reporters.
type modModel struct {
	c         map[string]*store.Comment
	reporters map[string]map[string]bool
}

// published returns the published comments of the model and of base.
func (m *modModel) published(base []*store.Comment) []*store.Comment {
	out := slices.Clone(base)
	for _, c := range m.c {
		if c.Status == store.StatusPublished {
			out = append(out, c)
		}
	}
	return out
}

// queue returns the model's comments in queue q, oldest first.
func (m *modModel) queue(q store.Queue) []*store.Comment {
	var out []*store.Comment
	for _, c := range m.c {
		in := c.Status == store.StatusPending && q == store.QueuePending ||
			c.Status == store.StatusHidden && q == store.QueueHidden ||
			c.Status == store.StatusPublished && c.Reports > 0 && q == store.QueueReported
		if in {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b *store.Comment) int { return cmp.Compare(a.SortKey(), b.SortKey()) })
	return out
}

// expect is the model's rule for a moderator's action on c: the status it
// moves to, or false when the action does not apply (CONFLICT).
func expect(c *store.Comment, a store.Action) (store.Status, bool) {
	switch a {
	case store.ActionApprove:
		return store.StatusPublished, c.Status == store.StatusPending || c.Status == store.StatusPublished && c.Reports > 0
	case store.ActionReject:
		return store.StatusRejected, c.Status == store.StatusPending || c.Status == store.StatusHidden
	case store.ActionHide:
		return store.StatusHidden, c.Status == store.StatusPublished
	case store.ActionRestore:
		return store.StatusPublished, c.Status == store.StatusHidden || c.Status == store.StatusRejected
	}
	return "", false
}

// testModeration runs the random sequence and the concurrent races, then
// compares everything with the model.
func testModeration(t *testing.T, tbl table.Table) {
	data := Dataset(3)
	MustLoad(t, tbl, data)
	pre := store.New(tbl, store.WithModeration(store.Moderation{Mode: store.ModerationPre}))
	post := store.New(tbl, store.WithModeration(store.Moderation{Mode: store.ModerationPost, ReportThreshold: modThreshold}))
	m := &modModel{c: map[string]*store.Comment{}, reporters: map[string]map[string]bool{}}
	rng := rand.New(rand.NewPCG(28, 4))
	for i := range 70 {
		modStep(t, tbl, rng, pre, post, m, i)
	}
	checkModeration(t, pre, data, m)
	checkHelpfulTwins(t, tbl, m.published(data), []string{"big", "mid-1"})
	t.Run("racing-moderators", func(t *testing.T) {
		for i := range 4 {
			raceModerators(t, pre, m, i)
		}
		checkModeration(t, pre, data, m)
		checkHelpfulTwins(t, tbl, m.published(data), []string{"big", "mid-1"})
	})
	t.Run("racing-reporters", func(t *testing.T) {
		id := raceReporters(t, post, m)
		checkModeration(t, pre, data, m)
		// Its reports go with a deleted comment.
		if err := post.DeleteComment(t.Context(), id, store.AnyOwner); err != nil {
			t.Fatal(err)
		}
		delete(m.c, id)
		for _, r := range []string{"a", "b", "c"} {
			if it, err := tbl.Get(t.Context(), store.ReportKey(id, r)); err != nil || it != nil {
				t.Errorf("the report of %s outlives its comment: %v %v", r, it, err)
			}
		}
	})
	t.Run("moderation-off", func(t *testing.T) {
		off := store.New(tbl)
		if _, err := off.Moderate(t.Context(), "x", store.ActionApprove, ""); store.ErrorCode(err) != store.EINVALID {
			t.Errorf("approve with moderation off: %v, want EINVALID", err)
		}
	})
}

// modStep applies one random operation to the store and the model; a
// deleted comment's reports go with it.
func modStep(t *testing.T, tbl table.Table, rng *rand.Rand, pre, post *store.Store, m *modModel, i int) {
	t.Helper()
	st := modOp{t: t, ctx: context.Background(), s: pre, mode: "pre", m: m, i: i}
	if rng.IntN(2) == 0 {
		st.s, st.mode = post, "post"
	}
	ids := make([]string, 0, len(m.c))
	for id := range m.c {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	op := rng.IntN(10)
	if len(ids) == 0 || op < 3 {
		author := []string{"alice", "bob"}[rng.IntN(2)]
		st.create(store.NewComment{ProductID: []string{"big", "mid-1"}[rng.IntN(2)],
			Language: []string{"en", "de"}[rng.IntN(2)], Rating: 1 + rng.IntN(5), Author: author,
			Title: fmt.Sprintf("step %d", i), Body: "moderated", AuthorID: author})
		return
	}
	id := ids[rng.IntN(len(ids))]
	switch op {
	case 3:
		st.edit(id, 1+rng.IntN(5))
	case 4:
		st.delete(tbl, id)
	case 5:
		st.report(id, []string{"r1", "r2", "r3"}[rng.IntN(3)])
	default:
		st.moderate(id, []store.Action{store.ActionApprove, store.ActionReject, store.ActionHide, store.ActionRestore}[op-6])
	}
}

// modOp is one step of the moderation walk: the store it goes through
// (pre or post mode), the model it keeps in step, and the step's number.
type modOp struct {
	t    *testing.T
	ctx  context.Context
	s    *store.Store
	mode string
	m    *modModel
	i    int
}

func (o modOp) create(nc store.NewComment) {
	c, err := o.s.CreateComment(o.ctx, nc)
	if err != nil {
		o.t.Fatalf("step %d: create (%s): %v", o.i, o.mode, err)
	}
	if want := map[string]store.Status{"pre": store.StatusPending, "post": store.StatusPublished}[o.mode]; c.Status != want {
		o.t.Fatalf("step %d: created (%s) as %q, want %q", o.i, o.mode, c.Status.Name(), want.Name())
	}
	o.m.c[c.ID] = c
}

func (o modOp) edit(id string, r int) {
	old := o.m.c[id]
	c, err := o.s.UpdateComment(o.ctx, store.CommentUpdate{ID: id, Rating: &r, Owner: store.AnyOwner})
	if err != nil {
		o.t.Fatalf("step %d: edit (%s): %v", o.i, o.mode, err)
	}
	want := old.Status
	if o.mode == "pre" && r != old.Rating {
		want = store.StatusPending
	}
	if c.Status != want || c.Rating != r {
		o.t.Fatalf("step %d: edit (%s) of a %s comment: %s rating %d, want %s rating %d", o.i, o.mode, old.Status.Name(), c.Status.Name(), c.Rating, want.Name(), r)
	}
	o.m.c[id] = c
}

func (o modOp) delete(tbl table.Table, id string) {
	if err := o.s.DeleteComment(o.ctx, id, store.AnyOwner); err != nil {
		o.t.Fatalf("step %d: delete: %v", o.i, err)
	}
	for r := range o.m.reporters[id] {
		if it, err := tbl.Get(o.ctx, store.ReportKey(id, r)); err != nil || it != nil {
			o.t.Fatalf("step %d: the report of %s outlives its comment: %v %v", o.i, r, it, err)
		}
	}
	delete(o.m.c, id)
}

func (o modOp) report(id, reporter string) {
	old := o.m.c[id]
	c, err := o.s.ReportComment(o.ctx, id, reporter, "spam")
	switch {
	case old.Status != store.StatusPublished:
		if store.ErrorCode(err) != store.ENOTFOUND {
			o.t.Fatalf("step %d: report of a %s comment: %v, want ENOTFOUND", o.i, old.Status.Name(), err)
		}
		return
	case err != nil:
		o.t.Fatalf("step %d: report: %v", o.i, err)
	}
	want := *old
	if !o.m.reporters[id][reporter] {
		if o.m.reporters[id] == nil {
			o.m.reporters[id] = map[string]bool{}
		}
		o.m.reporters[id][reporter] = true
		want.Reports++
		if o.mode == "post" && want.Reports >= modThreshold {
			want.Status = store.StatusHidden
		}
	}
	if c.Status != want.Status || c.Reports != want.Reports {
		o.t.Fatalf("step %d: report (%s) by %s: %s with %d reports, want %s with %d", o.i, o.mode, reporter, c.Status.Name(), c.Reports, want.Status.Name(), want.Reports)
	}
	o.m.c[id] = c
}

func (o modOp) moderate(id string, a store.Action) {
	old := o.m.c[id]
	c, err := o.s.Moderate(o.ctx, id, a, "step")
	st, ok := expect(old, a)
	if !ok {
		if store.ErrorCode(err) != store.ECONFLICT {
			o.t.Fatalf("step %d: %s of a %s comment: %v, want ECONFLICT", o.i, a, old.Status.Name(), err)
		}
		return
	}
	if err != nil || c.Status != st || c.Reports != 0 || c.ModeratedAt.IsZero() || c.ModerationReason != "step" {
		o.t.Fatalf("step %d: %s of a %s comment: %+v, %v; want %s", o.i, a, old.Status.Name(), c, err, st.Name())
	}
	o.m.c[id] = c
}

// raceModerators creates a pending comment and has two moderators approve
// and reject it at once: exactly one wins, the other is ECONFLICT.
func raceModerators(t *testing.T, s *store.Store, m *modModel, i int) {
	ctx := context.Background()
	c, err := s.CreateComment(ctx, store.NewComment{ProductID: "big", Language: "en", Rating: 5, Author: "race",
		Title: fmt.Sprintf("race %d", i), Body: "raced", AuthorID: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	actions := []store.Action{store.ActionApprove, store.ActionReject}
	got := make([]*store.Comment, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for k, a := range actions {
		wg.Go(func() { got[k], errs[k] = s.Moderate(ctx, c.ID, a, "race") })
	}
	wg.Wait()
	wins := 0
	for k := range actions {
		switch {
		case errs[k] == nil:
			wins++
			m.c[c.ID] = got[k]
		case store.ErrorCode(errs[k]) != store.ECONFLICT:
			t.Errorf("race %d: %s: %v, want success or ECONFLICT", i, actions[k], errs[k])
		}
	}
	if wins != 1 {
		t.Errorf("race %d: %d moderators won (%v), want exactly 1", i, wins, errs)
	}
}

// raceReporters has four reporters, one of them twice, report a new
// published comment at once: it counts each reporter once and is hidden.
// It returns the comment's id.
func raceReporters(t *testing.T, s *store.Store, m *modModel) string {
	ctx := context.Background()
	c, err := s.CreateComment(ctx, store.NewComment{ProductID: "mid-1", Language: "de", Rating: 5, Author: "r",
		Title: "reported", Body: "reported at once", AuthorID: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, r := range []string{"a", "a", "b", "c"} {
		wg.Go(func() {
			if _, err := s.ReportComment(ctx, c.ID, r, ""); err != nil && store.ErrorCode(err) != store.ENOTFOUND {
				t.Errorf("report by %s: %v", r, err) // ENOTFOUND: hidden by the others first
			}
		})
	}
	wg.Wait()
	got, err := s.GetComments(ctx, []string{c.ID})
	if err != nil {
		t.Fatal(err)
	}
	if g := got[0]; g.Status != store.StatusHidden || g.Reports < modThreshold || g.Reports > 3 {
		t.Errorf("after 4 reports by 3 reporters: %s with %d reports, want HIDDEN with %d..3", g.Status.Name(), g.Reports, modThreshold)
	}
	m.c[c.ID] = got[0]
	return c.ID
}

// checkModeration compares the public lists, stats, languages and
// leaderboards with a recount of the published comments, and the queues,
// the authors' lists and each comment with the model.
func checkModeration(t *testing.T, s *store.Store, data []*store.Comment, m *modModel) {
	t.Helper()
	pub := m.published(data)
	for _, pid := range []string{"big", "mid-1"} {
		for _, lang := range []string{"", "en", "de"} {
			for _, rs := range [][]int{nil, {5}, {1, 3, 5}} {
				checkWalks(t, s, pub, pid, lang, rs)
			}
		}
	}
	checkStats(t, s, pub, []string{"big", "mid-1"})
	for _, q := range []store.Queue{store.QueuePending, store.QueueReported, store.QueueHidden} {
		want := m.queue(q)
		for _, size := range []int{1, 3, 100} {
			got := walkList(t, func(after string) (*store.CommentPage, error) {
				return s.ModerationQueue(context.Background(), q, size, after)
			}, len(want))
			if !slices.Equal(ids(got), ids(want)) {
				t.Errorf("queue %s, pages of %d:\n got %v\nwant %v", q, size, ids(got), ids(want))
			}
		}
	}
	for _, author := range []string{"alice", "bob"} {
		var want []*store.Comment
		for _, c := range m.c {
			if c.AuthorID == author {
				want = append(want, c)
			}
		}
		slices.SortFunc(want, func(a, b *store.Comment) int { return cmp.Compare(b.SortKey(), a.SortKey()) })
		got := walkList(t, func(after string) (*store.CommentPage, error) {
			return s.AuthorComments(context.Background(), author, 4, after)
		}, len(want))
		if !slices.Equal(ids(got), ids(want)) {
			t.Errorf("comments of %s:\n got %v\nwant %v", author, ids(got), ids(want))
		}
		for i := range min(len(got), len(want)) {
			if got[i].Status != want[i].Status {
				t.Errorf("comments of %s: %s is %s, want %s", author, got[i].ID, got[i].Status.Name(), want[i].Status.Name())
			}
		}
	}
}

// walkList reads a moderation list to its end, a page at a time.
func walkList(t *testing.T, page func(after string) (*store.CommentPage, error), want int) []*store.Comment {
	t.Helper()
	var got []*store.Comment
	after := ""
	for pages := 0; ; pages++ {
		if pages > want+2 {
			t.Fatalf("no end after %d pages", pages)
		}
		p, err := page(after)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p.Comments...)
		if !p.HasNext {
			return got
		}
		if len(p.Cursors) == 0 {
			t.Fatal("a page with more after it has no edge")
		}
		after = p.Cursors[len(p.Cursors)-1]
	}
}
