package resolvers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/internal/gqltest"
	"github.com/acme/comments-gateway/internal/policy"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
)

// testModeratorKey is the moderator API key of mustModerationEnv.
const testModeratorKey = "s3cret-moderator-key"

// testMerchantKey is the merchant API key of mustModerationEnv.
const testMerchantKey = "s3cret-merchant-key"

// mustModerationEnv is an access env (JWTs as fakeJWT reads them, the
// plain API key testAPIKey, the moderator API key testModeratorKey and
// the merchant API key testMerchantKey) over an empty bolt store moderated
// by m.
func mustModerationEnv(tb testing.TB, m store.Moderation) *accessEnv {
	tb.Helper()
	ks, err := auth.ParseKeyHashes(auth.HashKey(testAPIKey))
	if err != nil {
		tb.Fatal(err)
	}
	mks, err := auth.ParseKeyHashes(auth.HashKey(testModeratorKey))
	if err != nil {
		tb.Fatal(err)
	}
	ks.AddModerators(mks)
	merch, err := auth.ParseKeyHashes(auth.HashKey(testMerchantKey))
	if err != nil {
		tb.Fatal(err)
	}
	ks.AddMerchants(merch)
	e := &accessEnv{store: store.New(bolttest.Open(tb), store.WithModeration(m))}
	cfg := resolvers.Config{Store: e.store, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)),
		Auth: &auth.Authenticator{Keys: ks, JWT: fakeJWT{}}}
	e.srv = httptest.NewServer(resolvers.NewHandler(cfg))
	tb.Cleanup(e.srv.Close)
	e.c = gqltest.New(e.srv.URL)
	return e
}

var (
	alice = []string{"Authorization", "Bearer a.alice.x"}
	bob   = []string{"Authorization", "Bearer a.bob.x"}
	mia   = []string{"Authorization", "Bearer a.mia.moderator"}
)

// modComment is a comment's moderation fields as the API shows them.
type modComment struct {
	ID               string
	Status           string
	ModeratedAt      *string
	ModerationReason *string
}

// mustComment decodes the comment at data.<name>.comment (or data.<name>
// when path is false); nil for null.
func mustComment(tb testing.TB, r *gqltest.Response, name string, payload bool) *modComment {
	tb.Helper()
	if len(r.Errors) > 0 {
		tb.Fatalf("%s: %+v", name, r.Errors)
	}
	raw := field(r, name)
	if payload {
		var p struct{ Comment *modComment }
		if err := json.Unmarshal(raw, &p); err != nil {
			tb.Fatalf("%s: %s: %v", name, raw, err)
		}
		return p.Comment
	}
	var c *modComment
	if err := json.Unmarshal(raw, &c); err != nil {
		tb.Fatalf("%s: %s: %v", name, raw, err)
	}
	return c
}

const modFields = `id status moderatedAt moderationReason`

func modMut(name, id, extra string) map[string]any {
	return q(fmt.Sprintf(`mutation { %s(input: {id: %q%s}) { comment { %s } } }`, name, id, extra, modFields))
}

// publicTotal is product p1's public totalCount and page size.
func publicTotal(tb testing.TB, e *accessEnv) (total, edges int) {
	tb.Helper()
	r := e.MustPost(tb, q(`{ product(id: "p1") { comments(first: 10) { totalCount edges { node { id } } } } }`))
	var d struct {
		Comments struct {
			TotalCount int
			Edges      []struct{ Node struct{ ID string } }
		}
	}
	if len(r.Errors) > 0 || json.Unmarshal(field(r, "product"), &d) != nil {
		tb.Fatalf("public page: %+v", r)
	}
	return d.Comments.TotalCount, len(d.Comments.Edges)
}

// TestModerationWorkflow walks a comment through pre moderation over
// GraphQL: pending and seen only by its author and moderators, approved
// into the public page and stats, reported (once per user), hidden with a
// reason, restored; a moderator's action on a comment that moved on is
// CONFLICT.
func TestModerationWorkflow(t *testing.T) {
	e := mustModerationEnv(t, store.Moderation{Mode: store.ModerationPre})
	id, _ := createdID(t, e.MustPost(t, q(createMut), alice...))
	c := mustComment(t, e.MustPost(t, q(`{ comment(id: "`+id+`") { `+modFields+` } }`), alice...), "comment", false)
	if c == nil || c.Status != "PENDING" || c.ModeratedAt != nil {
		t.Fatalf("the author's view of a new comment: %+v, want PENDING, never moderated", c)
	}
	for name, hdr := range map[string][]string{"anonymous": nil, "bob": bob} {
		if c := mustComment(t, e.MustPost(t, q(`{ comment(id: "`+id+`") { id } }`), hdr...), "comment", false); c != nil {
			t.Errorf("%s sees a pending comment: %+v", name, c)
		}
	}
	if total, n := publicTotal(t, e); total != 0 || n != 0 {
		t.Errorf("public page with one pending comment: totalCount %d, %d edges; want 0, 0", total, n)
	}
	r := e.MustPost(t, q(`{ viewer { comments(first: 5) { nodes { id status } pageInfo { hasNextPage } } } }`), alice...)
	if !strings.Contains(string(field(r, "viewer")), `{"id":"`+id+`","status":"PENDING"}`) {
		t.Errorf("alice's own comments: %s %+v", field(r, "viewer"), r.Errors)
	}
	if r := e.MustPost(t, q(`{ viewer { comments { nodes { id } } } }`)); string(field(r, "viewer")) != "null" {
		t.Errorf("viewer without a JWT: %s, want null", field(r, "viewer"))
	}
	r = e.MustPost(t, q(`{ moderationQueue(status: PENDING, first: 10) { edges { cursor node { id status } } pageInfo { hasNextPage endCursor } } }`), mia...)
	if !strings.Contains(string(field(r, "moderationQueue")), `"node":{"id":"`+id+`","status":"PENDING"}`) {
		t.Errorf("pending queue: %s %+v", field(r, "moderationQueue"), r.Errors)
	}

	c = mustComment(t, e.MustPost(t, modMut("approveComment", id, ""), mia...), "approveComment", true)
	if c.Status != "PUBLISHED" || c.ModeratedAt == nil {
		t.Fatalf("approved: %+v", c)
	}
	if total, n := publicTotal(t, e); total != 1 || n != 1 {
		t.Errorf("public page after approval: totalCount %d, %d edges; want 1, 1", total, n)
	}
	if r := e.MustPost(t, modMut("approveComment", id, ""), mia...); r.Code() != resolvers.CodeConflict {
		t.Errorf("approving a published comment again: %+v, want CONFLICT", r.Errors)
	}
	for i := range 2 {
		r := e.MustPost(t, q(`mutation { reportComment(input: {id: "`+id+`", reason: "spam"}) { comment { id status } } }`), bob...)
		if len(r.Errors) > 0 {
			t.Fatalf("bob's report %d: %+v", i+1, r.Errors)
		}
	}
	if cs, _ := e.store.GetComments(context.Background(), []string{id}); cs[0].Reports != 1 {
		t.Errorf("two reports by bob count %d, want 1", cs[0].Reports)
	}
	r = e.MustPost(t, q(`{ moderationQueue(status: REPORTED) { nodes { id } } }`), mia...)
	if got := string(field(r, "moderationQueue")); got != `{"nodes":[{"id":"`+id+`"}]}` {
		t.Errorf("reported queue: %s %+v", got, r.Errors)
	}
	c = mustComment(t, e.MustPost(t, modMut("hideComment", id, `, reason: "abuse"`), mia...), "hideComment", true)
	if c.Status != "HIDDEN" || c.ModerationReason == nil || *c.ModerationReason != "abuse" {
		t.Fatalf("hidden: %+v", c)
	}
	if total, n := publicTotal(t, e); total != 0 || n != 0 {
		t.Errorf("public page after hiding: totalCount %d, %d edges; want 0, 0", total, n)
	}
	if c := mustComment(t, e.MustPost(t, q(`{ comment(id: "`+id+`") { id } }`)), "comment", false); c != nil {
		t.Errorf("anonymous sees a hidden comment: %+v", c)
	}
	c = mustComment(t, e.MustPost(t, modMut("restoreComment", id, ""), "X-API-Key", testModeratorKey), "restoreComment", true)
	if c.Status != "PUBLISHED" {
		t.Fatalf("restored: %+v", c)
	}
	if r := e.MustPost(t, modMut("rejectComment", id, ""), mia...); r.Code() != resolvers.CodeConflict {
		t.Errorf("rejecting a published comment: %+v, want CONFLICT", r.Errors)
	}
}

// TestModerationForbidden: every moderator operation refuses a request
// that is not a moderator's with FORBIDDEN, a plain API key's included,
// and changes nothing.
func TestModerationForbidden(t *testing.T) {
	e := mustModerationEnv(t, store.Moderation{Mode: store.ModerationPre})
	id, _ := createdID(t, e.MustPost(t, q(createMut), alice...))
	ops := []map[string]any{
		modMut("approveComment", id, ""), modMut("rejectComment", id, ""),
		modMut("hideComment", id, ""), modMut("restoreComment", id, ""),
		q(`{ moderationQueue(status: PENDING) { nodes { id } } }`),
	}
	for _, op := range ops {
		for name, hdr := range map[string][]string{"anonymous": nil, "author": alice, "bob": bob,
			"plain API key": {"X-API-Key", testAPIKey}, "plain API key as bearer": {"Authorization", "Bearer " + testAPIKey}} {
			r := e.MustPost(t, op, hdr...)
			want := policy.CodeForbidden
			if hdr == nil && strings.HasPrefix(op["query"].(string), "mutation") {
				want = policy.CodeUnauthenticated // no credential at all
			}
			if r.Code() != want {
				t.Errorf("%s: %s: %+v, want %s", name, op["query"], r.Errors, want)
			}
		}
	}
	if cs, _ := e.store.GetComments(context.Background(), []string{id}); cs[0].Status != store.StatusPending {
		t.Errorf("after refused operations: %s, want PENDING", cs[0].Status.Name())
	}
	if r := e.MustPost(t, q(`mutation { reportComment(input: {id: "`+id+`"}) { comment { id } } }`)); r.Code() != policy.CodeUnauthenticated {
		t.Errorf("anonymous report: %+v, want UNAUTHENTICATED", r.Errors)
	}
}

// TestModeratorAPIKey: a moderator API key (-moderator-api-keys), sent as
// X-API-Key or as a bearer, may do each moderator operation; a plain API
// key may not (TestModerationForbidden) but still changes any comment.
func TestModeratorAPIKey(t *testing.T) {
	e := mustModerationEnv(t, store.Moderation{Mode: store.ModerationPre})
	for _, hdr := range [][]string{{"X-API-Key", testModeratorKey}, {"Authorization", "Bearer " + testModeratorKey}} {
		id, _ := createdID(t, e.MustPost(t, q(createMut), alice...))
		r := e.MustPost(t, q(`{ moderationQueue(status: PENDING) { nodes { id } } }`), hdr...)
		if !strings.Contains(string(field(r, "moderationQueue")), `{"id":"`+id+`"}`) {
			t.Errorf("%s: pending queue: %s %+v", hdr[0], field(r, "moderationQueue"), r.Errors)
		}
		// PENDING → PUBLISHED → HIDDEN → PUBLISHED → HIDDEN → REJECTED.
		for _, step := range []struct{ op, want string }{
			{"approveComment", "PUBLISHED"}, {"hideComment", "HIDDEN"}, {"restoreComment", "PUBLISHED"},
			{"hideComment", "HIDDEN"}, {"rejectComment", "REJECTED"},
		} {
			if c := mustComment(t, e.MustPost(t, modMut(step.op, id, ""), hdr...), step.op, true); c.Status != step.want {
				t.Errorf("%s: %s: %s, want %s", hdr[0], step.op, c.Status, step.want)
			}
		}
	}
	// A plain key still changes anyone's comment (a trusted service).
	id, _ := createdID(t, e.MustPost(t, q(createMut), alice...))
	r := e.MustPost(t, q(`mutation { deleteComment(input: {id: "`+id+`"}) { deletedCommentId } }`), "X-API-Key", testAPIKey)
	if len(r.Errors) > 0 {
		t.Errorf("a plain API key deleting alice's comment: %+v", r.Errors)
	}
}

// TestModerationOffUnchanged: with moderation off a new comment is
// PUBLISHED at once and the moderators' operations are BAD_USER_INPUT.
func TestModerationOffUnchanged(t *testing.T) {
	e := mustModerationEnv(t, store.Moderation{Mode: store.ModerationOff})
	id, _ := createdID(t, e.MustPost(t, q(createMut), alice...))
	if c := mustComment(t, e.MustPost(t, q(`{ comment(id: "`+id+`") { `+modFields+` } }`)), "comment", false); c == nil || c.Status != "PUBLISHED" {
		t.Errorf("with moderation off: %+v, want PUBLISHED to anyone", c)
	}
	if r := e.MustPost(t, modMut("hideComment", id, ""), mia...); r.Code() != gqlhttp.CodeBadUserInput {
		t.Errorf("hide with moderation off: %+v, want BAD_USER_INPUT", r.Errors)
	}
}

// cursorRE matches a cursor in a response.
var cursorRE = regexp.MustCompile(`"cursor":"[^"]*"`)

// TestPendingCommentsCostNothing: the browsing queries read the same items
// and report the same extensions.cost with 1,000 pending comments on the
// product as without, and rebuild-stats counts only the published ones.
func TestPendingCommentsCostNothing(t *testing.T) {
	e := mustModerationEnv(t, store.Moderation{Mode: store.ModerationPre})
	ctx := context.Background()
	var published []*store.Comment
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 30 {
		published = append(published, &store.Comment{ID: fmt.Sprintf("pub%03d", i), ProductID: "p1", Language: []string{"en", "de"}[i%2],
			Rating: 1 + i%5, Author: "a", Title: "t", Body: "b", CreatedAt: at.Add(time.Duration(i) * time.Minute)})
	}
	if err := e.store.PutComments(ctx, published); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.RebuildStats(ctx, 1); err != nil {
		t.Fatal(err)
	}
	browse := []string{
		`{ product(id: "p1") { comments(first: 10) { totalCount edges { cursor node { id } } } stats { total } languages { language total } } }`,
		`{ product(id: "p1") { comments(first: 5, language: "en", ratings: [1, 3, 5]) { totalCount nodes { id } } } }`,
		`{ topProducts(first: 5) { rank fiveStarCount } }`,
	}
	measure := func() []string {
		var out []string
		for _, query := range browse {
			r := e.MustPost(t, q(query), "X-API-Key", testAPIKey) // a credential: no response cache
			if len(r.Errors) > 0 {
				t.Fatalf("%s: %+v", query, r.Errors)
			}
			cost, _ := json.Marshal(r.Extensions["cost"])
			// A cursor carries the stats version, which the rebuild below bumps.
			out = append(out, cursorRE.ReplaceAllString(string(r.Data), "")+" cost "+string(cost))
		}
		return out
	}
	before := measure()
	var pending []*store.Comment
	for i := range 1000 {
		pending = append(pending, &store.Comment{ID: fmt.Sprintf("pend%04d", i), ProductID: "p1", Language: []string{"en", "de"}[i%2],
			Rating: 1 + i%5, Author: "a", Title: "t", Body: "b", CreatedAt: at.Add(time.Duration(i) * time.Second), Status: store.StatusPending})
	}
	if err := e.store.PutComments(ctx, pending); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.RebuildStats(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if after := measure(); !reflect.DeepEqual(after, before) {
		t.Errorf("with 1,000 pending comments the browsing queries differ:\n got %v\nwant %v", after, before)
	}
	p, err := e.store.ModerationQueue(ctx, store.QueuePending, 100, "")
	if err != nil || len(p.Comments) != 100 || !p.HasNext {
		t.Errorf("the pending queue: %d comments, more %v, %v; want 100 and more", len(p.Comments), p.HasNext, err)
	}
}
