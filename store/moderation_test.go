package store_test

import (
	"sync"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
	"github.com/acme/comments-gateway/store/table"
)

// changeLog is a store.Publisher that keeps what it is told.
type changeLog struct {
	mu  sync.Mutex
	got []string
}

func (l *changeLog) Publish(ch store.Change) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, string(ch.Kind)+" "+ch.Comment.Status.Name())
}

func (l *changeLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.got
	l.got = nil
	return out
}

// TestModerationPublishesPublications: subscribers hear of a comment when
// it is published (ADDED) and when it is unpublished (DELETED), never of
// writes of an unpublished comment.
func TestModerationPublishesPublications(t *testing.T) {
	log := &changeLog{}
	s := store.New(bolttest.Open(t), store.WithPublisher(log),
		store.WithModeration(store.Moderation{Mode: store.ModerationPre}))
	ctx := t.Context()
	c, err := s.CreateComment(ctx, store.NewComment{ProductID: "p", Language: "en", Rating: 5, Author: "a", Title: "t", Body: "b", AuthorID: "u"})
	if err != nil {
		t.Fatal(err)
	}
	r := 4
	steps := []struct {
		name string
		do   func() error
		want []string
	}{
		{"create (pending)", func() error { return nil }, nil},
		{"edit while pending", func() error {
			_, err := s.UpdateComment(ctx, store.CommentUpdate{ID: c.ID, Rating: &r, Owner: store.AnyOwner})
			return err
		}, nil},
		{"approve", func() error { _, err := s.Moderate(ctx, c.ID, store.ActionApprove, ""); return err }, []string{"ADDED PUBLISHED"}},
		{"hide", func() error { _, err := s.Moderate(ctx, c.ID, store.ActionHide, "x"); return err }, []string{"DELETED PUBLISHED"}},
		{"reject", func() error { _, err := s.Moderate(ctx, c.ID, store.ActionReject, ""); return err }, nil},
		{"restore", func() error { _, err := s.Moderate(ctx, c.ID, store.ActionRestore, ""); return err }, []string{"ADDED PUBLISHED"}},
		{"edit while published (pre: back to review)", func() error {
			r = 2
			_, err := s.UpdateComment(ctx, store.CommentUpdate{ID: c.ID, Rating: &r, Owner: store.AnyOwner})
			return err
		}, []string{"DELETED PUBLISHED"}},
		{"delete while pending", func() error { return s.DeleteComment(ctx, c.ID, store.AnyOwner) }, nil},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := log.take(); len(got) != len(st.want) || len(got) > 0 && got[0] != st.want[0] {
			t.Errorf("%s: published %v, want %v", st.name, got, st.want)
		}
	}
}

// TestModerationItems: a published comment's item is the item of a
// comment written before moderation; an unpublished one lacks the public
// indexes' keys and carries its queue's.
func TestModerationItems(t *testing.T) {
	c := &store.Comment{ID: "01JAAAAAAAAAAAAAAAAAAAAAAA", ProductID: "p", Language: "en", Rating: 5,
		Author: "a", Title: "t", Body: "b", CreatedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
	pub := c.Item()
	for _, a := range []string{table.AttrStatus, table.AttrGSI5PK, table.AttrGSI6PK, table.AttrReports, table.AttrModeratedAt} {
		if _, ok := pub[a]; ok {
			t.Errorf("a published comment's item has %s: %v", a, pub)
		}
	}
	c.Status = store.StatusPending
	it := c.Item()
	for _, d := range table.Indexes {
		if _, ok := it[d.Hash]; ok {
			t.Errorf("a pending comment's item has %s, the key of public index %s", d.Hash, d.Name)
		}
	}
	if got := it.S(table.AttrGSI5PK); got[:len("MODERATION#PENDING/")] != "MODERATION#PENDING/" {
		t.Errorf("a pending comment's queue key %q", got)
	}
	back, err := store.CommentFromItem(it)
	if err != nil || *back != *c {
		t.Errorf("round trip: %+v, want %+v (%v)", back, c, err)
	}
}
