package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// ownershipData is a small data set with one product, and two comments of
// it owned by alice and one owned by nobody.
func ownershipData(tb testing.TB, tbl table.Table) (s *store.Store, all []*store.Comment, alices []*store.Comment, unowned *store.Comment) {
	tb.Helper()
	all = Dataset(5)[:30]
	s = MustLoad(tb, tbl, all)
	for _, r := range []int{5, 3} {
		c, err := s.CreateComment(context.Background(), store.NewComment{ProductID: "big", Language: "en", Rating: r,
			Author: "alice", AuthorID: "alice", Title: "mine", Body: "written by alice"})
		if err != nil {
			tb.Fatal(err)
		}
		alices, all = append(alices, c), append(all, c)
	}
	return s, all, alices, all[0]
}

// testOwnership: a change restricted to one author (store.OwnedBy) of
// another author's comment, or of a comment without an owner, is
// EFORBIDDEN and changes neither the comment nor the stats; the author's
// own changes and unrestricted ones (store.AnyOwner) apply; a missing
// comment is ENOTFOUND whoever asks.
func testOwnership(t *testing.T, tbl table.Table) {
	s, all, alices, unowned := ownershipData(t, tbl)
	ctx := context.Background()
	bob, alice := store.OwnedBy("bob"), store.OwnedBy("alice")
	before := snapshotStats(t, s, []string{"big"})
	rating, title := 1, "mine"
	for _, c := range []*store.Comment{alices[0], unowned} {
		by := bob
		if c == unowned {
			by = alice
		}
		for name, u := range map[string]store.CommentUpdate{
			"rating":    {ID: c.ID, Rating: &rating, Owner: by},
			"title":     {ID: c.ID, Title: ptr("changed"), Owner: by},
			"unchanged": {ID: c.ID, Title: &c.Title, Owner: by}, // would write nothing: refused all the same
		} {
			if _, err := s.UpdateComment(ctx, u); table.ErrorCode(err) != table.EFORBIDDEN {
				t.Errorf("update (%s) of %s's comment by someone else: %v, want EFORBIDDEN", name, c.AuthorID, err)
			}
		}
		if err := s.DeleteComment(ctx, c.ID, by); table.ErrorCode(err) != table.EFORBIDDEN {
			t.Errorf("delete of %s's comment by someone else: %v, want EFORBIDDEN", c.AuthorID, err)
		}
		mustUnchanged(t, s, c)
	}
	if after := snapshotStats(t, s, []string{"big"}); !reflect.DeepEqual(before, after) {
		t.Errorf("refused changes changed the stats:\nbefore %v\nafter  %v", before, after)
	}
	checkStats(t, s, all, []string{"big"})

	// The author's own changes, and unrestricted ones, apply.
	u, err := s.UpdateComment(ctx, store.CommentUpdate{ID: alices[0].ID, Rating: &rating, Title: &title, Owner: alice})
	if err != nil || u.Rating != 1 || u.AuthorID != "alice" {
		t.Fatalf("alice updates hers: %+v, %v", u, err)
	}
	*alices[0] = *u
	u, err = s.UpdateComment(ctx, store.CommentUpdate{ID: unowned.ID, Rating: ptr(2), Owner: store.AnyOwner})
	if err != nil {
		t.Fatalf("unrestricted update: %v", err)
	}
	*unowned = *u
	if err := s.DeleteComment(ctx, alices[1].ID, alice); err != nil {
		t.Fatalf("alice deletes hers: %v", err)
	}
	all = removeComment(all, alices[1].ID)
	checkStats(t, s, all, []string{"big"})

	for _, by := range []store.Owner{bob, store.AnyOwner} {
		if err := s.DeleteComment(ctx, alices[1].ID, by); table.ErrorCode(err) != table.ENOTFOUND {
			t.Errorf("delete of a deleted comment: %v, want ENOTFOUND", err)
		}
		if _, err := s.UpdateComment(ctx, store.CommentUpdate{ID: alices[1].ID, Rating: &rating, Owner: by}); table.ErrorCode(err) != table.ENOTFOUND {
			t.Errorf("update of a deleted comment: %v, want ENOTFOUND", err)
		}
	}
	if err := s.DeleteComment(ctx, unowned.ID, store.AnyOwner); err != nil {
		t.Fatalf("unrestricted delete: %v", err)
	}
	checkStats(t, s, removeComment(all, unowned.ID), []string{"big"})
}

// testOwnerChangedBeforeTheWrite: the ownership check and the write are one
// step. Between the store's read of a comment (alice's, so the check on the
// read passes) and its write, the comment is replaced by bob's with the
// same version (as a bulk import would); alice's update or delete must then
// fail in the write itself, with EFORBIDDEN rather than a conflict, and
// leave bob's comment and the stats as they were.
func testOwnerChangedBeforeTheWrite(t *testing.T, tbl table.Table) {
	hook := &replaceBeforeWrite{Table: tbl}
	s, all, alices, _ := ownershipData(t, hook)
	more, err := s.CreateComment(context.Background(), store.NewComment{ProductID: "big", Language: "de", Rating: 4,
		Author: "alice", AuthorID: "alice", Title: "mine too", Body: "written by alice"})
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, more)
	cases := []struct {
		name   string
		c      *store.Comment
		change func(c *store.Comment) error
	}{
		{"update in a transaction", alices[0], func(c *store.Comment) error {
			_, err := s.UpdateComment(context.Background(), store.CommentUpdate{ID: c.ID, Rating: ptr(1), Owner: store.OwnedBy("alice")})
			return err
		}},
		{"update of one item", alices[1], func(c *store.Comment) error {
			_, err := s.UpdateComment(context.Background(), store.CommentUpdate{ID: c.ID, Title: ptr("edited"), Owner: store.OwnedBy("alice")})
			return err
		}},
		{"delete", more, func(c *store.Comment) error {
			return s.DeleteComment(context.Background(), c.ID, store.OwnedBy("alice"))
		}},
	}
	for _, tc := range cases {
		before := snapshotStats(t, s, []string{"big"})
		bobs := *tc.c
		bobs.AuthorID = "bob"
		hook.arm(bobs)
		err := tc.change(tc.c)
		if table.ErrorCode(err) != table.EFORBIDDEN {
			t.Errorf("%s: alice's change of a comment that became bob's: %v, want EFORBIDDEN", tc.name, err)
		}
		if got := hook.result(); table.ErrorCode(got) != table.EFORBIDDEN {
			t.Errorf("%s: the write itself returned %v, want EFORBIDDEN (the check must be in the write)", tc.name, got)
		}
		mustUnchanged(t, s, &bobs)
		if after := snapshotStats(t, s, []string{"big"}); !reflect.DeepEqual(before, after) {
			t.Errorf("%s: the refused write changed the stats:\nbefore %v\nafter  %v", tc.name, before, after)
		}
	}
	checkStats(t, s, all, []string{"big"})
}

// replaceBeforeWrite is a Table that, once armed, replaces a comment by
// another version of it just before the next Write that touches it — a
// concurrent writer slipping in between the store's read and its write —
// and records what that Write returned.
type replaceBeforeWrite struct {
	table.Table
	mu      sync.Mutex
	replace *store.Comment
	err     error
}

func (r *replaceBeforeWrite) arm(c store.Comment) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.replace, r.err = &c, fmt.Errorf("no write touched comment %s", c.ID)
}

func (r *replaceBeforeWrite) result() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Write replaces the armed comment first if ops touch it.
func (r *replaceBeforeWrite) Write(ctx context.Context, ops []table.Op) error {
	r.mu.Lock()
	c := r.replace
	touched := false
	for _, op := range ops {
		touched = touched || (c != nil && op.Key == store.CommentKey(c.ID))
	}
	if !touched {
		r.mu.Unlock()
		return r.Table.Write(ctx, ops)
	}
	r.replace = nil
	r.mu.Unlock()
	if err := r.Table.BatchPut(ctx, []table.Item{c.Item()}); err != nil {
		return err
	}
	err := r.Table.Write(ctx, ops)
	r.mu.Lock()
	r.err = err
	r.mu.Unlock()
	return err
}

// testConcurrentOwnership runs alice's updates of her comments, contending
// with each other (version conflicts, retried), at the same time as bob's
// updates and deletes of the same comments: every one of bob's is
// EFORBIDDEN, none of alice's is, and the comments and stats are a recount
// of alice's changes alone.
func testConcurrentOwnership(t *testing.T, tbl table.Table) {
	s, all, alices, _ := ownershipData(t, tbl)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	latest := &latestComments{byID: map[string]*store.Comment{}}
	for w := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if err := alicesUpdates(s, alices, rand.New(rand.NewPCG(uint64(w), 1)), latest); err != nil {
				fail(err)
			}
		}()
		go func() {
			defer wg.Done()
			bobsAttempts(s, alices, rand.New(rand.NewPCG(uint64(w), 2)), fail)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	for _, c := range alices {
		if l := latest.byID[c.ID]; l != nil {
			c = l
			all = append(removeComment(all, c.ID), c)
		}
		mustUnchanged(t, s, c)
	}
	checkStats(t, s, all, []string{"big"})
}

// latestComments keeps the last written version of each comment.
type latestComments struct {
	mu   sync.Mutex
	byID map[string]*store.Comment
}

func (l *latestComments) keep(c *store.Comment) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if old := l.byID[c.ID]; old == nil || c.Version > old.Version {
		l.byID[c.ID] = c
	}
}

// alicesUpdates changes the ratings of alice's comments, as alice.
func alicesUpdates(s *store.Store, alices []*store.Comment, rng *rand.Rand, latest *latestComments) error {
	for range 8 {
		r := 1 + rng.IntN(5)
		c, err := s.UpdateComment(context.Background(), store.CommentUpdate{ID: alices[rng.IntN(len(alices))].ID, Rating: &r, Owner: store.OwnedBy("alice")})
		if err != nil {
			return fmt.Errorf("alice's update: %w", err)
		}
		latest.keep(c)
	}
	return nil
}

// bobsAttempts tries to update or delete alice's comments, as bob, and
// reports every answer but EFORBIDDEN.
func bobsAttempts(s *store.Store, alices []*store.Comment, rng *rand.Rand, fail func(error)) {
	ctx := context.Background()
	for range 8 {
		id := alices[rng.IntN(len(alices))].ID
		var err error
		if rng.IntN(2) == 0 {
			_, err = s.UpdateComment(ctx, store.CommentUpdate{ID: id, Rating: ptr(1 + rng.IntN(5)), Owner: store.OwnedBy("bob")})
		} else {
			err = s.DeleteComment(ctx, id, store.OwnedBy("bob"))
		}
		if table.ErrorCode(err) != table.EFORBIDDEN {
			fail(fmt.Errorf("bob's change of alice's comment: %v, want EFORBIDDEN", err))
		}
	}
}

// mustUnchanged fails t unless the stored comment equals want.
func mustUnchanged(t *testing.T, s *store.Store, want *store.Comment) {
	t.Helper()
	got, err := s.GetComments(context.Background(), []string{want.ID})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] == nil || !reflect.DeepEqual(got[0].Item(), want.Item()) {
		t.Errorf("comment %s = %+v, want %+v", want.ID, got[0], want)
	}
}

// removeComment returns cs without the comment id.
func removeComment(cs []*store.Comment, id string) []*store.Comment {
	out := make([]*store.Comment, 0, len(cs))
	for _, c := range cs {
		if c.ID != id {
			out = append(out, c)
		}
	}
	return out
}
