package resolvers_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/acme/comments-gateway/internal/gqltest"
	"github.com/acme/comments-gateway/internal/policy"
	"github.com/acme/comments-gateway/store"
)

// voteMut is voteComment on id with helpful (a GraphQL literal: true,
// false or null), selecting the counts and the caller's vote.
func voteMut(id, helpful string) map[string]any {
	return q(fmt.Sprintf(`mutation { voteComment(input: {commentId: %q, helpful: %s}) { comment { id helpfulCount unhelpfulCount viewerVote } } }`, id, helpful))
}

// votedComment is a comment's vote fields as the API shows them.
type votedComment struct {
	ID             string
	HelpfulCount   int64
	UnhelpfulCount int64
	ViewerVote     *bool
}

func (c votedComment) String() string {
	v := "null"
	if c.ViewerVote != nil {
		v = fmt.Sprint(*c.ViewerVote)
	}
	return fmt.Sprintf("%d/%d viewer %s", c.HelpfulCount, c.UnhelpfulCount, v)
}

// mustVote decodes voteComment's comment.
func mustVote(tb testing.TB, r *gqltest.Response) votedComment {
	tb.Helper()
	var p struct{ Comment votedComment }
	if len(r.Errors) > 0 || json.Unmarshal(field(r, "voteComment"), &p) != nil {
		tb.Fatalf("voteComment: %s %s", r.Data, r.ErrorSummary())
	}
	return p.Comment
}

// checkCost fails tb when r read more items than its complexity.
func checkCost(tb testing.TB, what string, r *gqltest.Response) (read float64) {
	tb.Helper()
	cost, _ := r.Extensions["cost"].(map[string]any)
	read, _ = cost["itemsRead"].(float64)
	if complexity, _ := cost["complexity"].(float64); read > complexity {
		tb.Errorf("%s read %v items, complexity %v", what, read, complexity)
	}
	return read
}

// TestVoteComment: each caller (a JWT subject, an API key) has one vote,
// changed and withdrawn; the payload shows the counts after it and the
// caller's vote; refusals are coded; no operation reads more items than
// its complexity.
func TestVoteComment(t *testing.T) {
	e := mustModerationEnv(t, store.Moderation{Mode: store.ModerationOff})
	id, _ := createdID(t, e.MustPost(t, q(createMut), alice...))
	key := []string{"X-API-Key", testAPIKey}
	for i, st := range []struct {
		who     []string
		helpful string
		want    string
	}{
		{alice, "true", "1/0 viewer true"},
		{alice, "true", "1/0 viewer true"},
		{bob, "false", "1/1 viewer false"},
		{key, "true", "2/1 viewer true"},
		{alice, "false", "1/2 viewer false"},
		{alice, "null", "1/1 viewer null"},
	} {
		r := e.MustPost(t, voteMut(id, st.helpful), st.who...)
		if got := mustVote(t, r).String(); got != st.want {
			t.Errorf("step %d: %s, want %s", i, got, st.want)
		}
		checkCost(t, "voteComment", r)
	}
	for _, tc := range []struct {
		name, id string
		hdr      []string
		code     string
	}{
		{"anonymous", id, nil, policy.CodeUnauthenticated},
		{"bad id", "not an id!", bob, "BAD_USER_INPUT"},
		{"missing", "missing", bob, "NOT_FOUND"},
	} {
		if r := e.MustPost(t, voteMut(tc.id, "true"), tc.hdr...); r.Code() != tc.code {
			t.Errorf("%s: %s, want %s", tc.name, r.ErrorSummary(), tc.code)
		}
	}
}

// TestViewerVote: viewerVote is the caller's own vote on each comment of a
// page, read in one batch; anonymous callers get null and read nothing.
// (The counts on a page come from the indexes' projection, branch
// replies; here they are read by id.)
func TestViewerVote(t *testing.T) {
	e := mustModerationEnv(t, store.Moderation{Mode: store.ModerationOff})
	var ids []string
	for range 3 {
		id, _ := createdID(t, e.MustPost(t, q(createMut), alice...))
		ids = append(ids, id)
	}
	mustVote(t, e.MustPost(t, voteMut(ids[0], "true"), bob...))
	mustVote(t, e.MustPost(t, voteMut(ids[2], "false"), bob...))
	mustVote(t, e.MustPost(t, voteMut(ids[2], "true"), alice...))
	page := q(`{ product(id: "p1") { comments(first: 10) { nodes { id viewerVote } } } }`)
	read := func(hdr []string) (map[string]string, float64) {
		r := e.MustPost(t, page, hdr...)
		var d struct {
			Product struct {
				Comments struct{ Nodes []votedComment }
			}
		}
		if len(r.Errors) > 0 || r.Decode(&d) != nil {
			t.Fatalf("page: %s %s", r.Data, r.ErrorSummary())
		}
		got := map[string]string{}
		for _, c := range d.Product.Comments.Nodes {
			got[c.ID] = c.String()[len("0/0 "):]
		}
		return got, checkCost(t, "page", r)
	}
	bobs, bobRead := read(bob)
	anon, anonRead := read(nil)
	for id, want := range map[string][2]string{
		ids[0]: {"viewer true", "viewer null"},
		ids[1]: {"viewer null", "viewer null"},
		ids[2]: {"viewer false", "viewer null"},
	} {
		if bobs[id] != want[0] || anon[id] != want[1] {
			t.Errorf("%s: bob sees %s, anonymous %s; want %s, %s", id, bobs[id], anon[id], want[0], want[1])
		}
	}
	if bobRead-anonRead != 2 {
		t.Errorf("bob's page read %v items, the anonymous one %v: want his 2 votes more", bobRead, anonRead)
	}
	r := e.MustPost(t, q(fmt.Sprintf(`{ comment(id: %q) { id helpfulCount unhelpfulCount viewerVote } }`, ids[2])), alice...)
	var d struct{ Comment votedComment }
	if r.Decode(&d) != nil || d.Comment.String() != "1/1 viewer true" {
		t.Errorf("alice reads %s %s, want 1/1 viewer true", r.Data, r.ErrorSummary())
	}
}
