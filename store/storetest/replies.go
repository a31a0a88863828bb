package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// The replies suite (docs/design.md §3.3): a merchant's reply written,
// replaced and deleted on the comment's item; a page read from every
// public index shows the reply, verifiedPurchase and the helpful counts
// as the comment's item holds them; a reply racing edits of the comment
// loses neither.

// testReplies runs the suite on tbl.
func testReplies(t *testing.T, tbl table.Table) {
	ctx := context.Background()
	var clock atomic.Int64
	clock.Store(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Add(int64(time.Second))).UTC() }
	s := store.New(tbl, store.WithClock(now))

	counted, verified, plain := replyComments(t, s)
	to := func(id string) store.ReplyTarget { return store.ReplyTarget{CommentID: id} }

	first, err := s.ReplyToComment(ctx, to(verified.ID), "Thank you!\nThe shop")
	if err != nil || first.Reply == nil || first.Reply.Body != "Thank you!\nThe shop" || !first.Reply.CreatedAt.Equal(first.Reply.UpdatedAt) ||
		first.Version != verified.Version+1 || !first.VerifiedPurchase {
		t.Fatalf("first reply: %+v %v", first, err)
	}
	again, err := s.ReplyToComment(ctx, to(verified.ID), "Thank you!\nThe shop")
	if err != nil || again.Version != first.Version || !again.Reply.UpdatedAt.Equal(first.Reply.UpdatedAt) {
		t.Errorf("the same reply again wrote: %s %v", replyString(again.Reply), err)
	}
	second, err := s.ReplyToComment(ctx, to(verified.ID), "Thanks, Bo.")
	if err != nil || second.Reply.Body != "Thanks, Bo." || !second.Reply.CreatedAt.Equal(first.Reply.CreatedAt) ||
		!second.Reply.UpdatedAt.After(first.Reply.UpdatedAt) || second.Version != first.Version+1 {
		t.Fatalf("replaced reply: %s %v", replyString(second.Reply), err)
	}
	if _, err := s.ReplyToComment(ctx, to(counted.ID), "We are sorry."); err != nil {
		t.Fatal(err)
	}
	checkPagesShowItems(t, s, "rp", 3)

	t.Run("validation", func(t *testing.T) { checkReplyValidation(t, s, verified.ID, plain.ID) })

	t.Run("unpublished", func(t *testing.T) { checkReplyUnpublished(t, tbl, now) })

	t.Run("edit-keeps-reply", func(t *testing.T) {
		title := "Fits well"
		c, err := s.UpdateComment(ctx, store.CommentUpdate{ID: verified.ID, Title: &title, Owner: store.AnyOwner})
		if err != nil || c.Reply == nil || c.Reply.Body != "Thanks, Bo." || !c.VerifiedPurchase {
			t.Fatalf("edited: %+v %v", c, err)
		}
		checkPagesShowItems(t, s, "rp", 3)
	})

	t.Run("racing-edits", func(t *testing.T) { raceReplyAndEdits(t, s, plain.ID) })

	t.Run("delete", func(t *testing.T) {
		c, err := s.DeleteReply(ctx, to(verified.ID))
		if err != nil || c.Reply != nil || !c.VerifiedPurchase {
			t.Fatalf("deleted: %+v %v", c, err)
		}
		again, err := s.DeleteReply(ctx, to(verified.ID))
		if err != nil || again.Version != c.Version {
			t.Errorf("a second delete: %+v %v, want no write and no error", again, err)
		}
		checkPagesShowItems(t, s, "rp", 3)
	})
}

// replyComments writes the comments testReplies replies to: one with
// helpful counts, a verified purchase and a plain one.
func replyComments(t *testing.T, s *store.Store) (counted, verified, plain *store.Comment) {
	ctx := context.Background()
	counted = &store.Comment{ID: "rp-counted", ProductID: "rp", Language: "de", Rating: 2, Author: "a", Title: "t", Body: "b",
		CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), HelpfulCount: 7, UnhelpfulCount: 2}
	if err := s.PutComments(ctx, []*store.Comment{counted}); err != nil {
		t.Fatal(err)
	}
	var err error
	verified, err = s.CreateComment(ctx, store.NewComment{ProductID: "rp", Language: "en", Rating: 5, Author: "Bo", Title: "Fits", Body: "Good.", VerifiedPurchase: true})
	if err != nil || !verified.VerifiedPurchase || verified.Reply != nil {
		t.Fatalf("create verified: %+v %v", verified, err)
	}
	plain, err = s.CreateComment(ctx, store.NewComment{ProductID: "rp", Language: "en", Rating: 4, Author: "Cy", Title: "Ok", Body: "Fine."})
	if err != nil || plain.VerifiedPurchase {
		t.Fatalf("create plain: %+v %v", plain, err)
	}
	return counted, verified, plain
}

// checkReplyValidation checks the refusals of ReplyToComment and DeleteReply.
func checkReplyValidation(t *testing.T, s *store.Store, verifiedID, plainID string) {
	ctx := context.Background()
	to := func(id string) store.ReplyTarget { return store.ReplyTarget{CommentID: id} }
	for _, tc := range []struct{ id, body, code, arg string }{
		{verifiedID, "", store.EINVALID, "body"},
		{verifiedID, " \t\n\u00a0", store.EINVALID, "body"},
		{verifiedID, strings.Repeat("é", store.MaxReplyLen+1), store.EINVALID, "body"},
		{verifiedID, "bell\a", store.EINVALID, "body"},
		{"bad id!", "hi", store.EINVALID, "commentId"},
		{"rp-missing", "hi", store.ENOTFOUND, ""},
	} {
		_, err := s.ReplyToComment(ctx, to(tc.id), tc.body)
		var e *table.Error
		if store.ErrorCode(err) != tc.code || tc.arg != "" && (!errors.As(err, &e) || e.Argument != tc.arg) {
			t.Errorf("reply %q to %s: %v, want %s about %q", short(tc.body), tc.id, err, tc.code, tc.arg)
		}
	}
	if _, err := s.ReplyToComment(ctx, to(plainID), strings.Repeat("é", store.MaxReplyLen)); err != nil {
		t.Errorf("a reply of %d characters: %v", store.MaxReplyLen, err)
	}
	if _, err := s.DeleteReply(ctx, to("rp-missing")); store.ErrorCode(err) != store.ENOTFOUND {
		t.Errorf("delete the reply of a missing comment: %v", err)
	}
}

// checkReplyUnpublished checks replies to a pending comment: hidden from
// one who may not see it, allowed to a moderator.
func checkReplyUnpublished(t *testing.T, tbl table.Table, now func() time.Time) {
	ctx := context.Background()
	to := func(id string) store.ReplyTarget { return store.ReplyTarget{CommentID: id} }
	pre := store.New(tbl, store.WithClock(now), store.WithModeration(store.Moderation{Mode: store.ModerationPre}))
	pending, err := pre.CreateComment(ctx, store.NewComment{ProductID: "rp", Language: "en", Rating: 1, Author: "D", Title: "t", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pre.ReplyToComment(ctx, to(pending.ID), "hi"); store.ErrorCode(err) != store.ENOTFOUND {
		t.Errorf("reply to a pending comment by one who may not see it: %v, want ENOTFOUND", err)
	}
	c, err := pre.ReplyToComment(ctx, store.ReplyTarget{CommentID: pending.ID, Unpublished: true}, "hi")
	if err != nil || c.Reply == nil || c.Status != store.StatusPending {
		t.Errorf("reply to a pending comment by a moderator: %+v %v", c, err)
	}
	if _, err := pre.DeleteReply(ctx, to(pending.ID)); store.ErrorCode(err) != store.ENOTFOUND {
		t.Errorf("delete on a pending comment by one who may not see it: %v, want ENOTFOUND", err)
	}
}

// raceReplyAndEdits replies to comment id and edits its title at once,
// several times each: every write lands (none undoes another), and the
// comment ends with one of the replies and one of the titles, its
// version counting every write.
func raceReplyAndEdits(t *testing.T, s *store.Store, id string) {
	ctx := context.Background()
	before, err := s.GetComments(ctx, []string{id})
	if err != nil {
		t.Fatal(err)
	}
	const n = 4
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, err := s.ReplyToComment(ctx, store.ReplyTarget{CommentID: id}, fmt.Sprintf("reply %d", i))
			errs <- err
		}()
		go func() {
			defer wg.Done()
			title := fmt.Sprintf("title %d", i)
			_, err := s.UpdateComment(ctx, store.CommentUpdate{ID: id, Title: &title, Owner: store.AnyOwner})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	after, err := s.GetComments(ctx, []string{id})
	if err != nil {
		t.Fatal(err)
	}
	c := after[0]
	if c.Reply == nil || !strings.HasPrefix(c.Reply.Body, "reply ") || !strings.HasPrefix(c.Title, "title ") || c.Version != before[0].Version+2*n {
		t.Errorf("after the race: reply %s, title %q, version %d (was %d)", replyString(c.Reply), c.Title, c.Version, before[0].Version)
	}
}

// checkPagesShowItems lists product pid through every public index (all
// languages, one language, one rating, both) and checks that each of the
// want comments' page entries shows the reply, verifiedPurchase and the
// helpful counts its item holds.
func checkPagesShowItems(t *testing.T, s *store.Store, pid string, want int) {
	t.Helper()
	ctx := context.Background()
	seen := 0
	for _, f := range []store.Filter{{}, {Language: "en"}, {Language: "de"}, {Ratings: []int{5}}, {Ratings: []int{2}}, {Language: "en", Ratings: []int{5}}} {
		conn, err := List(ctx, s, pid, f, store.PageArgs{}, false)
		if err != nil {
			t.Fatalf("list %+v: %v", f, err)
		}
		ids := make([]string, len(conn.Edges))
		for i, e := range conn.Edges {
			ids[i] = e.Comment.ID
		}
		items, err := s.GetComments(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range conn.Edges {
			got, it := e.Comment, items[i]
			if got.HelpfulCount != it.HelpfulCount || got.UnhelpfulCount != it.UnhelpfulCount || got.VerifiedPurchase != it.VerifiedPurchase ||
				replyString(got.Reply) != replyString(it.Reply) {
				t.Errorf("filter %+v: page shows %s as helpful %d/%d, verified %v, reply %s; its item: %d/%d, %v, %s", f, got.ID,
					got.HelpfulCount, got.UnhelpfulCount, got.VerifiedPurchase, replyString(got.Reply),
					it.HelpfulCount, it.UnhelpfulCount, it.VerifiedPurchase, replyString(it.Reply))
			}
		}
		if f.Language == "" && f.Ratings == nil {
			seen = len(conn.Edges)
		}
	}
	if seen != want {
		t.Errorf("product %s lists %d comments, want %d", pid, seen, want)
	}
}

// replyString describes r for a comparison and a message.
func replyString(r *store.Reply) string {
	if r == nil {
		return "none"
	}
	return fmt.Sprintf("%q (%s, %s, %d bytes)", short(r.Body), r.CreatedAt.Format(time.RFC3339Nano), r.UpdatedAt.Format(time.RFC3339Nano), len(r.Body))
}

// short is s cut to 20 bytes for a message.
func short(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}
