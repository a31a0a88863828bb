package resolvers_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/internal/policy"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
)

var shop = []string{"Authorization", "Bearer a.shop.merchant"}

// pageComment is a comment of a page with the merchant's fields.
type pageComment struct {
	ID               string
	VerifiedPurchase bool
	Reply            *struct{ Body, CreatedAt, UpdatedAt string }
}

// publicPage is product p1's first page as the public reads it (from the
// public indexes).
func publicPage(tb testing.TB, e *accessEnv) map[string]pageComment {
	tb.Helper()
	r := e.MustPost(tb, q(`{ product(id: "p1") { comments(first: 20) { nodes { id verifiedPurchase reply { body createdAt updatedAt } } } } }`))
	var d struct{ Comments struct{ Nodes []pageComment } }
	if len(r.Errors) > 0 || json.Unmarshal(field(r, "product"), &d) != nil {
		tb.Fatalf("public page: %s %s", r.Data, r.RawErrors)
	}
	out := map[string]pageComment{}
	for _, c := range d.Comments.Nodes {
		out[c.ID] = c
	}
	return out
}

func replyMut(id, body string) map[string]any {
	return map[string]any{"query": `mutation($id: ID!, $body: String!) { replyToComment(input: {commentId: $id, body: $body}) { comment { id reply { body createdAt updatedAt } } } }`,
		"variables": map[string]any{"id": id, "body": body}}
}

func deleteReplyMut(id string) map[string]any {
	return q(fmt.Sprintf(`mutation { deleteReply(input: {commentId: %q}) { comment { id reply { body } } } }`, id))
}

// TestReplyRoles: a merchant's or moderator's JWT or API key replies; a
// plain user's JWT or a plain API key is FORBIDDEN; no credential is
// UNAUTHENTICATED. The reply shows on the public page (read from the
// index), is replaced keeping its createdAt, and deleted (twice is no
// error).
func TestReplyRoles(t *testing.T) {
	e := mustModerationEnv(t, store.Moderation{})
	id, _ := createdID(t, e.MustPost(t, q(createMut), alice...))

	for _, tc := range []struct {
		name string
		hdr  []string
		code string
	}{
		{"anonymous", nil, policy.CodeUnauthenticated},
		{"user", alice, policy.CodeForbidden},
		{"plain API key", []string{"X-API-Key", testAPIKey}, policy.CodeForbidden},
	} {
		for _, m := range []map[string]any{replyMut(id, "Thanks"), deleteReplyMut(id)} {
			if r := e.MustPost(t, m, tc.hdr...); r.Code() != tc.code || field(r, "replyToComment") != nil && string(field(r, "replyToComment")) != "null" {
				t.Errorf("%s: %s %s, want %s", tc.name, r.Data, r.RawErrors, tc.code)
			}
		}
	}
	var created string
	for i, hdr := range [][]string{shop, {"X-API-Key", testMerchantKey}, mia, {"Authorization", "Bearer " + testModeratorKey}} {
		body := fmt.Sprintf("Thank you (%d)", i)
		r := e.MustPost(t, replyMut(id, body), hdr...)
		var d struct{ Comment pageComment }
		if len(r.Errors) > 0 || json.Unmarshal(field(r, "replyToComment"), &d) != nil || d.Comment.Reply == nil || d.Comment.Reply.Body != body {
			t.Fatalf("reply as %v: %s %s", hdr, r.Data, r.RawErrors)
		}
		if created == "" {
			created = d.Comment.Reply.CreatedAt
		}
		page := publicPage(t, e)[id]
		if page.Reply == nil || page.Reply.Body != body || page.Reply.CreatedAt != created || i > 0 && page.Reply.UpdatedAt == created {
			t.Errorf("the page after reply %d: %+v (created %s)", i, page.Reply, created)
		}
	}
	for range 2 {
		r := e.MustPost(t, deleteReplyMut(id), shop...)
		if len(r.Errors) > 0 || !strings.Contains(string(field(r, "deleteReply")), `"reply":null`) {
			t.Errorf("deleteReply: %s %s", r.Data, r.RawErrors)
		}
	}
	if page := publicPage(t, e)[id]; page.Reply != nil {
		t.Errorf("the page after deleteReply: %+v", page.Reply)
	}
}

// TestReplyInput: a blank or too long body is BAD_USER_INPUT about
// input.body, a malformed id about input.commentId; a missing comment,
// and an unpublished one to a merchant's JWT (which may not see it), are
// NOT_FOUND; a moderator replies to a pending comment.
func TestReplyInput(t *testing.T) {
	e := mustModerationEnv(t, store.Moderation{Mode: store.ModerationPre})
	id, _ := createdID(t, e.MustPost(t, q(createMut), alice...))
	for _, tc := range []struct {
		id, body, code, arg string
	}{
		{id, " \n\t", gqlhttp.CodeBadUserInput, "input.body"},
		{id, strings.Repeat("x", store.MaxReplyLen+1), gqlhttp.CodeBadUserInput, "input.body"},
		{"no such id!", "hi", gqlhttp.CodeBadUserInput, "input.commentId"},
		{"missing", "hi", gqlhttp.CodeNotFound, ""},
		{id, "hi", gqlhttp.CodeNotFound, ""}, // pending: the merchant's JWT does not see it
	} {
		r := e.MustPost(t, replyMut(tc.id, tc.body), shop...)
		err := MustOneError(t, r, tc.code)
		if arg, _ := err.Extensions["argument"].(string); arg != tc.arg {
			t.Errorf("reply %.10q to %q: argument %q, want %q (%s)", tc.body, tc.id, arg, tc.arg, r.RawErrors)
		}
	}
	if r := e.MustPost(t, replyMut(id, "hi"), mia...); len(r.Errors) > 0 {
		t.Errorf("a moderator's reply to a pending comment: %s", r.RawErrors)
	}
}

// TestVerifiedPurchase: only the merchant role creates a comment with
// verifiedPurchase true (a user's JWT, a plain or a moderator's API key
// are FORBIDDEN, with no comment created); false is anyone's; the page
// shows it; updateComment has no such field.
func TestVerifiedPurchase(t *testing.T) {
	e := mustModerationEnv(t, store.Moderation{})
	mut := func(v bool) map[string]any {
		return q(fmt.Sprintf(`mutation { createComment(input: {productId: "p1", language: "en", rating: 5, author: "A", title: "T", body: "B", verifiedPurchase: %v}) { comment { id verifiedPurchase } } }`, v))
	}
	for _, hdr := range [][]string{alice, mia, {"X-API-Key", testAPIKey}, {"X-API-Key", testModeratorKey}} {
		MustOneError(t, e.MustPost(t, mut(true), hdr...), policy.CodeForbidden)
	}
	if n := len(publicPage(t, e)); n != 0 {
		t.Fatalf("refused creates left %d comments", n)
	}
	plain, _ := createdID(t, e.MustPost(t, mut(false), alice...))
	byKey, _ := createdID(t, e.MustPost(t, mut(true), "X-API-Key", testMerchantKey))
	byJWT, _ := createdID(t, e.MustPost(t, mut(true), shop...))
	page := publicPage(t, e)
	if page[plain].VerifiedPurchase || !page[byKey].VerifiedPurchase || !page[byJWT].VerifiedPurchase {
		t.Errorf("page: %+v", page)
	}
	r := e.MustPost(t, q(`mutation { updateComment(input: {id: "`+plain+`", verifiedPurchase: true}) { comment { id } } }`), alice...)
	if len(r.Errors) == 0 {
		t.Errorf("updateComment took verifiedPurchase: %s", r.Data)
	}
}

// TestMerchantFieldsWithOpenMutations: with mutations open (dev mode, no
// credential configured) the merchant's mutations and verifiedPurchase
// are UNAUTHENTICATED, not open to anyone.
func TestMerchantFieldsWithOpenMutations(t *testing.T) {
	e := MustAccessEnv(t, resolvers.Config{})
	id, _ := createdID(t, e.MustPost(t, q(createMut)))
	MustOneError(t, e.MustPost(t, replyMut(id, "hi")), policy.CodeUnauthenticated)
	MustOneError(t, e.MustPost(t, deleteReplyMut(id)), policy.CodeUnauthenticated)
	MustOneError(t, e.MustPost(t, q(`mutation { createComment(input: {productId: "p1", language: "en", rating: 5, author: "A", title: "T", body: "B", verifiedPurchase: true}) { comment { id } } }`)), policy.CodeUnauthenticated)
}
