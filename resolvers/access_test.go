package resolvers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/internal/gqltest"
	"github.com/acme/comments-gateway/internal/policy"
	"github.com/acme/comments-gateway/internal/testutil"
	"github.com/acme/comments-gateway/obs"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
	"github.com/acme/comments-gateway/store/table"
)

// fakeJWT accepts tokens "a.SUBJECT.x", "a.SUBJECT.moderator" and
// "a.SUBJECT.merchant" (the real JWKS verification is tested in package
// auth and by the server).
type fakeJWT struct{}

func (fakeJWT) Verify(_ context.Context, tok string) (*auth.Principal, error) {
	parts := strings.Split(tok, ".")
	if parts[0] != "a" || parts[1] == "" {
		return nil, errors.New("bad signature")
	}
	return &auth.Principal{Kind: auth.KindJWT, Subject: parts[1], Roles: auth.Roles{Moderator: parts[2] == "moderator", Merchant: parts[2] == "merchant"}}, nil
}

const testAPIKey = "s3cret-key"

// accessEnv is a handler over an empty bolt store.
type accessEnv struct {
	store *store.Store
	srv   *httptest.Server
	c     *gqltest.Client // srv's
	logs  *bytes.Buffer
}

func MustAccessEnv(tb testing.TB, cfg resolvers.Config) *accessEnv {
	tb.Helper()
	tbl := bolttest.Open(tb)
	e := &accessEnv{store: store.New(tbl), logs: &bytes.Buffer{}}
	cfg.Store = e.store
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
	}
	e.srv = httptest.NewServer(obs.Middleware(slog.New(slog.NewJSONHandler(io.Discard, nil)), resolvers.NewHandler(cfg)))
	tb.Cleanup(e.srv.Close)
	e.c = gqltest.New(e.srv.URL)
	return e
}

// MustPost posts a GraphQL request (its query, variables, operationName
// and extensions) with the given header pairs; it fails tb when the answer
// is no GraphQL response, or body holds anything else.
func (e *accessEnv) MustPost(tb testing.TB, body map[string]any, hdr ...string) *gqltest.Response {
	tb.Helper()
	opts := []gqltest.Option{gqltest.Headers(hdr...)}
	var query string
	var vars map[string]any
	for k, v := range body {
		var ok bool
		switch k {
		case "query":
			query, ok = v.(string)
		case "variables":
			vars, ok = v.(map[string]any)
		case "operationName":
			var op string
			op, ok = v.(string)
			opts = append(opts, gqltest.Operation(op))
		case "extensions":
			var ext map[string]any
			ext, ok = v.(map[string]any)
			opts = append(opts, gqltest.Extensions(ext))
		}
		if !ok {
			tb.Fatalf("MustPost: %s %#v is not a GraphQL request's", k, v)
		}
	}
	return e.c.MustDo(tb, query, vars, opts...)
}

func q(query string) map[string]any { return map[string]any{"query": query} }

// field is the top-level field name of r's data ("" without one).
func field(r *gqltest.Response, name string) json.RawMessage {
	var data map[string]json.RawMessage
	_ = json.Unmarshal(r.Data, &data)
	return data[name]
}

const createMut = `mutation { createComment(input: {productId: "p1", language: "en", rating: 4, author: "Someone", title: "T", body: "B"}) { comment { id author } } }`

func createdID(tb testing.TB, r *gqltest.Response) (id, author string) {
	tb.Helper()
	var d struct {
		Comment struct{ ID, Author string }
	}
	if len(r.Errors) > 0 || json.Unmarshal(field(r, "createComment"), &d) != nil {
		tb.Fatalf("createComment: %+v", r)
	}
	return d.Comment.ID, d.Comment.Author
}

func TestMutationsNeedACredential(t *testing.T) {
	ks, err := auth.ParseKeyHashes(auth.HashKey(testAPIKey))
	if err != nil {
		t.Fatal(err)
	}
	e := MustAccessEnv(t, resolvers.Config{Auth: &auth.Authenticator{Keys: ks}})

	for _, tc := range []struct {
		name string
		hdr  []string
		want string
	}{
		{"none", nil, policy.CodeUnauthenticated},
		{"wrong key", []string{"X-API-Key", "nope"}, policy.CodeUnauthenticated},
		{"wrong bearer", []string{"Authorization", "Bearer nope"}, policy.CodeUnauthenticated},
		{"basic", []string{"Authorization", "Basic " + testAPIKey}, policy.CodeUnauthenticated},
		{"the hash is not the key", []string{"X-API-Key", auth.HashKey(testAPIKey)}, policy.CodeUnauthenticated},
		{"X-API-Key", []string{"X-API-Key", testAPIKey}, ""},
		{"bearer", []string{"Authorization", "Bearer " + testAPIKey}, ""},
	} {
		r := e.MustPost(t, q(createMut), tc.hdr...)
		if r.Code() != tc.want || r.Status != http.StatusOK {
			t.Errorf("%s: HTTP %d code %q (%+v), want 200 %q", tc.name, r.Status, r.Code(), r.Errors, tc.want)
		}
		if tc.want != "" && string(field(r, "createComment")) != "" && string(field(r, "createComment")) != "null" {
			t.Errorf("%s: refused, yet data %s", tc.name, field(r, "createComment"))
		}
	}
	// Queries never need one, even with a bad credential.
	r := e.MustPost(t, q(`{ product(id: "p1") { stats { total } } }`), "X-API-Key", "nope")
	if len(r.Errors) > 0 || !strings.Contains(string(field(r, "product")), `"total":2`) {
		t.Errorf("query: %+v %s", r.Errors, field(r, "product"))
	}
	// With an API key, the author is the input's.
	id, author := createdID(t, e.MustPost(t, q(createMut), "X-API-Key", testAPIKey))
	if author != "Someone" {
		t.Errorf("API key: author %q", author)
	}
	for _, m := range []string{
		`mutation { updateComment(input: {id: "` + id + `", rating: 2}) { comment { id } } }`,
		`mutation { deleteComment(input: {id: "` + id + `"}) { deletedCommentId } }`,
	} {
		if r := e.MustPost(t, q(m)); r.Code() != policy.CodeUnauthenticated {
			t.Errorf("%s without a key: %+v", m, r.Errors)
		}
		if r := e.MustPost(t, q(m), "X-API-Key", testAPIKey); len(r.Errors) > 0 {
			t.Errorf("%s with a key: %+v", m, r.Errors)
		}
	}
}

func TestOpenMutationsWithoutAuth(t *testing.T) {
	e := MustAccessEnv(t, resolvers.Config{})
	if r := e.MustPost(t, q(createMut)); len(r.Errors) > 0 {
		t.Errorf("no authenticator: mutations are open, got %+v", r.Errors)
	}
}

func TestJWTOwnership(t *testing.T) {
	ks, _ := auth.ParseKeyHashes(auth.HashKey(testAPIKey))
	e := MustAccessEnv(t, resolvers.Config{Auth: &auth.Authenticator{Keys: ks, JWT: fakeJWT{}}})
	alice := []string{"Authorization", "Bearer a.alice.x"}
	bob := []string{"Authorization", "Bearer a.bob.x"}
	mod := []string{"Authorization", "Bearer a.mia.moderator"}

	if r := e.MustPost(t, q(createMut), "Authorization", "Bearer x.alice.x"); r.Code() != policy.CodeUnauthenticated {
		t.Errorf("bad token: %+v", r.Errors)
	}
	// The token's subject is the author (input.author is ignored) and the owner.
	id, author := createdID(t, e.MustPost(t, q(createMut), alice...))
	if author != "alice" {
		t.Errorf("author %q, want the token's subject", author)
	}
	cs, err := e.store.GetComments(context.Background(), []string{id})
	if err != nil || cs[0] == nil || cs[0].AuthorID != "alice" {
		t.Fatalf("stored owner: %+v %v", cs[0], err)
	}
	upd := func(id string, rating int) string {
		return `mutation { updateComment(input: {id: "` + id + `", rating: ` + string(rune('0'+rating)) + `}) { comment { id rating } } }`
	}
	del := func(id string) string {
		return `mutation { deleteComment(input: {id: "` + id + `"}) { deletedCommentId } }`
	}

	if r := e.MustPost(t, q(upd(id, 1)), bob...); r.Code() != policy.CodeForbidden {
		t.Errorf("bob updates alice's: %+v", r.Errors)
	}
	if r := e.MustPost(t, q(del(id)), bob...); r.Code() != policy.CodeForbidden {
		t.Errorf("bob deletes alice's: %+v", r.Errors)
	}
	if r := e.MustPost(t, q(upd(id, 2)), alice...); len(r.Errors) > 0 {
		t.Errorf("alice updates hers: %+v", r.Errors)
	}
	cs, _ = e.store.GetComments(context.Background(), []string{id})
	if cs[0].Rating != 2 || cs[0].AuthorID != "alice" {
		t.Errorf("after update: %+v", cs[0])
	}
	// A missing comment is NOT_FOUND, not FORBIDDEN.
	if r := e.MustPost(t, q(del("01JAAAAAAAAAAAAAAAAAAAAAAA")), bob...); r.Code() != "NOT_FOUND" {
		t.Errorf("missing: %+v", r.Errors)
	}
	// A moderator may change anyone's.
	if r := e.MustPost(t, q(upd(id, 3)), mod...); len(r.Errors) > 0 {
		t.Errorf("moderator updates: %+v", r.Errors)
	}
	if r := e.MustPost(t, q(del(id)), mod...); len(r.Errors) > 0 {
		t.Errorf("moderator deletes: %+v", r.Errors)
	}
	// A comment created with an API key has no owner: only keys and
	// moderators may change it.
	id2, _ := createdID(t, e.MustPost(t, q(createMut), "X-API-Key", testAPIKey))
	if r := e.MustPost(t, q(upd(id2, 5)), alice...); r.Code() != policy.CodeForbidden {
		t.Errorf("alice updates an unowned comment: %+v", r.Errors)
	}
	if r := e.MustPost(t, q(del(id2)), "X-API-Key", testAPIKey); len(r.Errors) > 0 {
		t.Errorf("API key deletes: %+v", r.Errors)
	}
}

func TestIntrospectionSwitch(t *testing.T) {
	on := MustAccessEnv(t, resolvers.Config{})
	off := MustAccessEnv(t, resolvers.Config{DisableIntrospection: true})
	intro := q(`{ __schema { queryType { name } } }`)
	if r := on.MustPost(t, intro); len(r.Errors) > 0 {
		t.Errorf("introspection on: %+v", r.Errors)
	}
	for _, query := range []string{
		`{ __schema { queryType { name } } }`,
		`{ __type(name: "Query") { name } }`,
		`query { ...F } fragment F on Query { ... on Query { __schema { types { name } } } }`,
	} {
		if r := off.MustPost(t, q(query)); r.Status != http.StatusUnprocessableEntity || r.Code() != "GRAPHQL_VALIDATION_FAILED" {
			t.Errorf("introspection off: %s: HTTP %d %+v", query, r.Status, r.Errors)
		}
	}
	if r := off.MustPost(t, q(`{ __typename }`)); len(r.Errors) > 0 {
		t.Errorf("__typename with introspection off: %+v", r.Errors)
	}
	typo := q(`{ prodct(id: "p1") { id } }`)
	if r := on.MustPost(t, typo); len(r.Errors) == 0 || !strings.Contains(r.Errors[0].Message, "Did you mean") {
		t.Errorf("suggestions on: %+v", r.Errors)
	}
	if r := off.MustPost(t, typo); len(r.Errors) == 0 || strings.Contains(r.Errors[0].Message, "Did you mean") || strings.Contains(r.Errors[0].Message, "product") {
		t.Errorf("suggestions off: %+v", r.Errors)
	}
}

func TestAutomaticPersistedQueries(t *testing.T) {
	const query = `{ product(id: "p1") { stats { total } } }`
	hash := auth.HashKey(query) // the SHA-256 hex of the query text
	ext := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hash}}

	e := MustAccessEnv(t, resolvers.Config{})
	r := e.MustPost(t, map[string]any{"extensions": ext})
	if r.Code() != "PERSISTED_QUERY_NOT_FOUND" {
		t.Fatalf("unknown hash: %+v", r.Errors)
	}
	if r := e.MustPost(t, map[string]any{"query": query, "extensions": ext}); len(r.Errors) > 0 {
		t.Fatalf("register: %+v", r.Errors)
	}
	if r := e.MustPost(t, map[string]any{"extensions": ext}); len(r.Errors) > 0 || field(r, "product") == nil {
		t.Fatalf("by hash: %+v", r)
	}
	bad := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": strings.Repeat("0", 64)}}
	if r := e.MustPost(t, map[string]any{"query": query, "extensions": bad}); len(r.Errors) == 0 {
		t.Errorf("a hash that does not match the query was accepted")
	}
	// Off: the hash alone is not understood.
	offE := MustAccessEnv(t, resolvers.Config{APQCacheSize: -1})
	if r := offE.MustPost(t, map[string]any{"extensions": ext}); r.Code() == "" || r.Code() == "PERSISTED_QUERY_NOT_FOUND" {
		t.Errorf("APQ off: %+v", r.Errors)
	}
}

// failingTable fails every read with an error that has no code.
type failingTable struct{ table.Table }

func (failingTable) BatchGet(context.Context, []table.Key) ([]table.Item, error) {
	return nil, errors.New("disk on fire")
}

func TestInternalErrorsCarryTheRequestID(t *testing.T) {
	tbl := bolttest.Open(t)
	var logs testutil.SyncBuffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	h := obs.Middleware(log, resolvers.NewHandler(resolvers.Config{Store: store.New(failingTable{tbl}), Logger: log, LoaderWait: time.Millisecond}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	e := &accessEnv{srv: srv, c: gqltest.New(srv.URL)}
	r := e.MustPost(t, q(`{ comment(id: "01JAAAAAAAAAAAAAAAAAAAAAAA") { id } }`), obs.Header, "req-123")
	if r.Code() != "INTERNAL" || r.Errors[0].Extensions["requestId"] != "req-123" || strings.Contains(r.Errors[0].Message, "fire") {
		t.Fatalf("errors %+v, want INTERNAL with requestId req-123 and no detail", r.Errors)
	}
	if r.Header.Get(obs.Header) != "req-123" {
		t.Errorf("X-Request-Id echoed %q", r.Header.Get(obs.Header))
	}
	var sawCause, sawLine bool
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec["requestId"] != "req-123" {
			t.Errorf("log line without the request id: %s", line)
		}
		if strings.Contains(line, "disk on fire") {
			sawCause = true
		}
		if rec["msg"] == "request" {
			sawLine = rec["operation"] == "query anonymous" && rec["status"] == float64(200) && rec["itemsRead"] != nil && rec["durationMs"] != nil
		}
	}
	if !sawCause || !sawLine {
		t.Errorf("logs lack the cause (%v) or a complete request line (%v):\n%s", sawCause, sawLine, logs.String())
	}
}
