package live_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/acme/comments-gateway/live"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
)

// mustStore returns a store on a fresh bbolt file that publishes to a new
// hub (buffer events per subscriber).
func mustStore(tb testing.TB, buffer int) (*store.Store, *live.Hub) {
	tb.Helper()
	tbl := bolttest.Open(tb)
	var s *store.Store
	hub := live.NewHub(live.Config{Buffer: buffer, Stats: func(ctx context.Context, ids []store.StatsID) ([]*store.Stats, error) {
		return s.GetStats(ctx, ids)
	}})
	tb.Cleanup(hub.Close)
	s = store.New(tbl, store.WithPublisher(hub))
	return s, hub
}

func mustSubscribe(tb testing.TB, h *live.Hub, pid string, topic live.Topic, f store.Filter) *live.Subscription {
	tb.Helper()
	sub, err := h.Subscribe(pid, topic, f)
	if err != nil {
		tb.Fatal(err)
	}
	return sub
}

// drain returns the events queued for sub.
func drain(sub *live.Subscription) []live.Event {
	var out []live.Event
	for {
		select {
		case ev, ok := <-sub.Events():
			if !ok {
				return out
			}
			out = append(out, ev)
		default:
			return out
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestFilteredChanges: a filtered subscriber sees a comment enter, change
// in and leave its list; commentAdded subscribers see only new matching
// comments; other products' subscribers see nothing.
func TestFilteredChanges(t *testing.T) {
	ctx := context.Background()
	s, hub := mustStore(t, 64)
	f := store.Filter{Language: "en", Ratings: []int{4, 5}}
	changed := mustSubscribe(t, hub, "p1", live.TopicChanged, f)
	added := mustSubscribe(t, hub, "p1", live.TopicAdded, f)
	other := mustSubscribe(t, hub, "p2", live.TopicChanged, store.Filter{})

	in, err := s.CreateComment(ctx, store.NewComment{ProductID: "p1", Language: "en", Rating: 5, Author: "a", Title: "t", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.CreateComment(ctx, store.NewComment{ProductID: "p1", Language: "fr", Rating: 5, Author: "a", Title: "t", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	steps := []func() error{
		func() error {
			_, err := s.UpdateComment(ctx, store.CommentUpdate{ID: in.ID, Title: ptr("new")})
			return err
		},
		func() error {
			_, err := s.UpdateComment(ctx, store.CommentUpdate{ID: out.ID, Language: ptr("EN")})
			return err
		},
		func() error {
			_, err := s.UpdateComment(ctx, store.CommentUpdate{ID: in.ID, Rating: ptr(1)})
			return err
		},
		func() error { return s.DeleteComment(ctx, out.ID, store.AnyOwner) },
		func() error { return s.DeleteComment(ctx, in.ID, store.AnyOwner) }, // already out of the list
	}
	for _, step := range steps {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"ADDED " + in.ID, "UPDATED " + in.ID, "ADDED " + out.ID, "DELETED " + in.ID, "DELETED " + out.ID}
	if got := describe(drain(changed)); !slices.Equal(got, want) {
		t.Errorf("commentChanged(en, [4,5]) got %q, want %q", got, want)
	}
	if got := describe(drain(added)); !slices.Equal(got, []string{"ADDED " + in.ID}) {
		t.Errorf("commentAdded(en, [4,5]) got %q, want only the first comment", got)
	}
	if got := drain(other); len(got) != 0 {
		t.Errorf("another product's subscriber got %q", describe(got))
	}
}

func describe(evs []live.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = string(ev.Kind) + " " + ev.Comment.ID
	}
	return out
}

// TestSlowConsumer: a subscriber that does not read is ended with
// ErrSlowConsumer once its buffer is full, and the others keep receiving.
func TestSlowConsumer(t *testing.T) {
	ctx := context.Background()
	s, hub := mustStore(t, 3)
	slow := mustSubscribe(t, hub, "p1", live.TopicAdded, store.Filter{})
	for i := range 4 {
		if _, err := s.CreateComment(ctx, store.NewComment{ProductID: "p1", Language: "en", Rating: 3, Author: "a", Title: fmt.Sprint(i), Body: "b"}); err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			// A reader that keeps up subscribes late and reads each event.
			fast := mustSubscribe(t, hub, "p1", live.TopicAdded, store.Filter{})
			defer hub.Unsubscribe(fast)
			defer func() {
				if got := len(drain(fast)); got != 1 {
					t.Errorf("the fast subscriber got %d events, want 1", got)
				}
			}()
		}
	}
	if got := len(drain(slow)); got != 3 {
		t.Errorf("the slow subscriber kept %d events, want its buffer of 3", got)
	}
	if err := slow.Err(); !errors.Is(err, live.ErrSlowConsumer) {
		t.Errorf("Err() = %v, want ErrSlowConsumer", err)
	}
	if n := hub.Subscribers(); n != 1 {
		t.Errorf("Subscribers() = %d, want 1 (the slow one was removed)", n)
	}
}

// TestStatsChanged: statistics subscribers get the statistics read after
// the change, for their language; a title edit sends none.
func TestStatsChanged(t *testing.T) {
	ctx := context.Background()
	s, hub := mustStore(t, 64)
	all := mustSubscribe(t, hub, "p1", live.TopicStats, store.Filter{})
	fr := mustSubscribe(t, hub, "p1", live.TopicStats, store.Filter{Language: "fr"})
	c, err := s.CreateComment(ctx, store.NewComment{ProductID: "p1", Language: "en", Rating: 4, Author: "a", Title: "t", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	ev := <-all.Events()
	if ev.Stats.Total != 1 || ev.Stats.Counts[4] != 1 || ev.Stats.Language != "" {
		t.Errorf("stats after one 4-star comment: %+v", ev.Stats)
	}
	if _, err := s.UpdateComment(ctx, store.CommentUpdate{ID: c.ID, Language: ptr("fr"), Rating: ptr(2)}); err != nil {
		t.Fatal(err)
	}
	ev = <-fr.Events()
	if ev.Stats.Total != 1 || ev.Stats.Counts[2] != 1 || ev.Stats.Language != "fr" {
		t.Errorf("fr stats after the move: %+v", ev.Stats)
	}
	for ev := range all.Events() {
		if ev.Stats.Counts[2] == 1 && ev.Stats.Counts[4] == 0 {
			break // the all-languages stats after the move
		}
	}
	hub.Close()
	if err := fr.Err(); !errors.Is(err, live.ErrClosed) {
		t.Errorf("after Close, Err() = %v, want ErrClosed", err)
	}
	if _, err := hub.Subscribe("p1", live.TopicStats, store.Filter{}); !errors.Is(err, live.ErrClosed) {
		t.Errorf("Subscribe after Close: %v, want ErrClosed", err)
	}
}

// TestLiveListMatchesQuery: a list kept from one initial page plus the
// commentChanged events ends equal to a fresh query, and to the test's own
// record of which comments exist, over random creates, updates and deletes.
func TestLiveListMatchesQuery(t *testing.T) {
	ctx := context.Background()
	s, hub := mustStore(t, 10_000)
	rng := rand.New(rand.NewPCG(1, 2))
	langs := []string{"en", "fr", "de"}
	var ids []string
	exist := map[string]*store.Comment{} // the test's own record
	mutate := func(n int) {
		for range n {
			switch op := rng.IntN(4); {
			case op <= 1 || len(ids) == 0:
				c, err := s.CreateComment(ctx, store.NewComment{ProductID: "p1", Language: langs[rng.IntN(3)], Rating: 1 + rng.IntN(5), Author: "a", Title: "t", Body: "b"})
				if err != nil {
					t.Fatal(err)
				}
				ids, exist[c.ID] = append(ids, c.ID), c
			case op == 2:
				id := ids[rng.IntN(len(ids))]
				c, err := s.UpdateComment(ctx, store.CommentUpdate{ID: id, Language: &langs[rng.IntN(3)], Rating: ptr(1 + rng.IntN(5))})
				if store.ErrorCode(err) == store.ENOTFOUND {
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				exist[id] = c
			default:
				id := ids[rng.IntN(len(ids))]
				if err := s.DeleteComment(ctx, id, store.AnyOwner); err != nil && store.ErrorCode(err) != store.ENOTFOUND {
					t.Fatal(err)
				}
				delete(exist, id)
			}
		}
	}
	mutate(30)
	f := store.Filter{Language: "en", Ratings: []int{2, 4, 5}}
	sub := mustSubscribe(t, hub, "p1", live.TopicChanged, f)
	list := map[string]*store.Comment{}
	page, err := s.ListComments(ctx, store.CommentsQuery{ProductID: "p1", Filter: f, Page: store.PageArgs{First: ptr(100)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range page.Edges {
		list[e.Comment.ID] = e.Comment
	}
	mutate(200)
	for _, ev := range drain(sub) {
		if ev.Kind == store.ChangeDeleted {
			delete(list, ev.Comment.ID)
		} else {
			list[ev.Comment.ID] = ev.Comment
		}
	}
	var want []string
	for id, c := range exist {
		if f.Matches(c) {
			want = append(want, id)
		}
	}
	fresh, err := s.ListComments(ctx, store.CommentsQuery{ProductID: "p1", Filter: f, Page: store.PageArgs{First: ptr(100)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got, queried []string
	for id, c := range list {
		if *c != *exist[id] {
			t.Errorf("live list holds %+v, the comment is %+v", c, exist[id])
		}
		got = append(got, id)
	}
	for _, e := range fresh.Edges {
		queried = append(queried, e.Comment.ID)
	}
	slices.Sort(got)
	slices.Sort(want)
	slices.Sort(queried)
	if !slices.Equal(got, want) || !slices.Equal(queried, want) {
		t.Errorf("live list %d comments, recount %d, fresh query %d:\n%q\n%q\n%q", len(got), len(want), len(queried), got, want, queried)
	}
}
