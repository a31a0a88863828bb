package trusted_test

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"

	"github.com/acme/comments-gateway/internal/gqltest"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
	"github.com/acme/comments-gateway/trusted"
)

// The manifests in testdata were written by the real tools from the
// documents in testdata/client/src (see testdata/client/gen.sh).
var manifests = []struct {
	name, file string
	// key computes a manifest key from a document, as the tool does.
	key func(doc string) string
}{
	{"GraphQL Codegen client preset", "testdata/persisted-documents.json", func(doc string) string { return "sha256:" + sha256Hex(doc) }},
	{"Relay compiler", "testdata/persisted_queries.json", md5Hex},
}

func sha256Hex(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
func md5Hex(s string) string    { h := md5.Sum([]byte(s)); return hex.EncodeToString(h[:]) }

// mustManifestDocs reads a manifest as plain JSON (independently of package
// trusted) and returns the key of the document whose text names each
// operation, checking that the tool's keys are what key computes.
func mustManifestDocs(t *testing.T, file string, key func(string) string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]string
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	byOp := map[string]string{}
	for k, doc := range raw {
		if key(doc) != k {
			t.Fatalf("%s: key %s is not the hash of its document", file, k)
		}
		for _, op := range []string{"ProductStatsQuery", "CreateCommentMutation", "TopProductsQuery"} {
			if strings.Contains(doc, " "+op+"(") {
				byOp[op] = k
			}
		}
	}
	if len(byOp) != 3 {
		t.Fatalf("%s: operations found: %v", file, byOp)
	}
	return byOp
}

// reply is one HTTP answer.
type reply struct {
	status int
	code   string
	data   map[string]any
}

// send sends the request parameters body by method (GET: in the query
// string) to the endpoint base.
func send(t *testing.T, base, method string, body map[string]any) reply {
	t.Helper()
	var opts []gqltest.Option
	for k, v := range body {
		opts = append(opts, gqltest.Param(k, v))
	}
	if method == http.MethodGet {
		opts = append(opts, gqltest.GET())
	}
	r := gqltest.New(base).MustDo(t, "", nil, opts...)
	out := reply{status: r.Status}
	if len(r.Data) > 0 {
		if err := json.Unmarshal(r.Data, &out.data); err != nil {
			t.Fatalf("HTTP %d %q: %v", r.Status, r.Body, err)
		}
	}
	if len(r.Errors) > 0 {
		out.code = r.Code()
		if out.code == "" {
			t.Errorf("an error without a code: %s", r.Body)
		}
	}
	return out
}

func mustServe(t *testing.T, m *trusted.Manifest) string {
	t.Helper()
	tbl := bolttest.Open(t)
	srv := httptest.NewServer(resolvers.NewHandler(resolvers.Config{
		Store: store.New(tbl), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Trusted: m,
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func jsonPath(v any, path ...string) any {
	for _, p := range path {
		m, _ := v.(map[string]any)
		v = m[p]
	}
	return v
}

// TestTrustedDocuments runs the operations of each real manifest by
// documentId (POST and GET), by "sha256:" documentId and by APQ hash, and
// with Only refuses everything else with HTTP 400 and a code.
func TestTrustedDocuments(t *testing.T) {
	for _, mf := range manifests {
		t.Run(mf.name, func(t *testing.T) {
			ids := mustManifestDocs(t, mf.file, mf.key)
			m, err := trusted.Load(mf.file)
			if err != nil {
				t.Fatal(err)
			}
			m.Only = true
			base := mustServe(t, m)
			raw, _ := os.ReadFile(mf.file)
			var docs map[string]string
			_ = json.Unmarshal(raw, &docs)
			statsDoc := docs[ids["ProductStatsQuery"]]
			input := map[string]any{"productId": "p1", "language": "en", "rating": 4, "author": "Ann", "title": "T", "body": "B"}

			// documentId over POST: a mutation, then a query seeing it.
			r := send(t, base, http.MethodPost, map[string]any{"documentId": ids["CreateCommentMutation"], "variables": map[string]any{"input": input}})
			if r.status != 200 || r.code != "" || jsonPath(r.data, "createComment", "comment", "author") != "Ann" {
				t.Fatalf("createComment by documentId: %+v", r)
			}
			input["rating"] = 2
			r = send(t, base, http.MethodPost, map[string]any{"documentId": "sha256:" + sha256Hex(docs[ids["CreateCommentMutation"]]), "variables": map[string]any{"input": input}})
			if r.status != 200 || r.code != "" {
				t.Fatalf("createComment by sha256: documentId: %+v", r)
			}
			// Two comments, ratings 4 and 2: total 2, average 3.
			wantStats := func(name string, r reply) {
				t.Helper()
				if r.status != 200 || r.code != "" || jsonPath(r.data, "product", "stats", "total") != 2.0 || jsonPath(r.data, "product", "stats", "averageRating") != 3.0 {
					t.Errorf("%s: %+v", name, r)
				}
			}
			vars := map[string]any{"id": "p1"}
			wantStats("GET documentId", send(t, base, http.MethodGet, map[string]any{"documentId": ids["ProductStatsQuery"], "variables": vars}))
			wantStats("POST documentId", send(t, base, http.MethodPost, map[string]any{"documentId": ids["ProductStatsQuery"], "variables": vars}))
			apq := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": sha256Hex(statsDoc)}}
			wantStats("POST APQ hash", send(t, base, http.MethodPost, map[string]any{"extensions": apq, "variables": vars}))
			wantStats("GET APQ hash", send(t, base, http.MethodGet, map[string]any{"extensions": apq, "variables": vars}))
			wantStats("POST APQ hash with its query", send(t, base, http.MethodPost, map[string]any{"query": statsDoc, "extensions": apq, "variables": vars}))
			wantStats("the manifest's text itself", send(t, base, http.MethodPost, map[string]any{"query": statsDoc, "variables": vars}))
			wantStats("the manifest's text under Query", send(t, base, http.MethodPost, map[string]any{"Query": statsDoc, "variables": vars}))
			wantStats("documentId as DocumentID", send(t, base, http.MethodPost, map[string]any{"DocumentID": ids["ProductStatsQuery"], "variables": vars}))
			if r := send(t, base, http.MethodGet, map[string]any{"documentId": ids["TopProductsQuery"], "variables": map[string]any{"first": 3}}); r.status != 200 || r.code != "" {
				t.Errorf("a document with a fragment: %+v", r)
			}

			for _, tc := range []struct {
				name, method string
				body         map[string]any
				status       int
				code         string // "": any
			}{
				{"free-form query", "POST", map[string]any{"query": "{ product(id: \"p1\") { id } }"}, 400, trusted.CodeRequired},
				{"free-form GET", "GET", map[string]any{"query": "{ __typename }"}, 400, trusted.CodeRequired},
				{"the manifest's text, edited", "POST", map[string]any{"query": statsDoc + " ", "variables": vars}, 400, trusted.CodeRequired},
				{"no query at all", "POST", map[string]any{"variables": vars}, 400, trusted.CodeRequired},
				{"unknown documentId", "POST", map[string]any{"documentId": "0123abcd"}, 400, trusted.CodeNotFound},
				{"unknown APQ hash", "POST", map[string]any{"extensions": map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": sha256Hex("{ __typename }")}}}, 400, trusted.CodeNotFound},
				{"APQ registration", "POST", map[string]any{"query": "{ __typename }", "extensions": map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": sha256Hex("{ __typename }")}}}, 400, trusted.CodeNotFound},
				{"documentId with another query", "POST", map[string]any{"documentId": ids["ProductStatsQuery"], "query": "{ __typename }"}, 400, trusted.CodeMismatch},
				{"mutation over GET", "GET", map[string]any{"documentId": ids["CreateCommentMutation"], "variables": map[string]any{"input": input}}, 405, "METHOD_NOT_ALLOWED"},
				// Member names match regardless of case (package jsonmember), for
				// this check as for the GraphQL transport: one read of the body.
				{"a trusted query and another under Query", "POST", map[string]any{"query": statsDoc, "Query": "{ __typename }", "variables": vars}, 400, "BAD_REQUEST"},
				{"another query under QUERY", "POST", map[string]any{"QUERY": "{ __typename }"}, 400, trusted.CodeRequired},
				{"documentId with another query under Query", "POST", map[string]any{"DocumentID": ids["ProductStatsQuery"], "Query": "{ __typename }"}, 400, trusted.CodeMismatch},
			} {
				r := send(t, base, tc.method, tc.body)
				if r.status != tc.status || r.code != tc.code && tc.code != "" {
					t.Errorf("%s: HTTP %d %s, want %d %s", tc.name, r.status, r.code, tc.status, tc.code)
				}
			}
		})
	}
}

// TestTrustedDocumentsBesideAPQ: without Only, the manifest's documents run
// by id and every other operation runs as usual; a hash the manifest lacks
// goes to the APQ cache (register, then use).
func TestTrustedDocumentsBesideAPQ(t *testing.T) {
	m, err := trusted.Load(manifests[0].file)
	if err != nil {
		t.Fatal(err)
	}
	base := mustServe(t, m)
	ids := mustManifestDocs(t, manifests[0].file, manifests[0].key)
	if r := send(t, base, "POST", map[string]any{"documentId": ids["ProductStatsQuery"], "variables": map[string]any{"id": "p9"}}); r.code != "" || jsonPath(r.data, "product", "id") != "p9" {
		t.Errorf("documentId: %+v", r)
	}
	if r := send(t, base, "POST", map[string]any{"query": "{ product(id: \"p2\") { id } }"}); r.code != "" || jsonPath(r.data, "product", "id") != "p2" {
		t.Errorf("a free-form query: %+v", r)
	}
	q := "{ product(id: \"p3\") { id } }"
	apq := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": sha256Hex(q)}}
	if r := send(t, base, "POST", map[string]any{"extensions": apq}); r.code != "PERSISTED_QUERY_NOT_FOUND" || r.status != 200 {
		t.Errorf("an unregistered APQ hash: %+v, want APQ's own 200 PERSISTED_QUERY_NOT_FOUND", r)
	}
	send(t, base, "POST", map[string]any{"query": q, "extensions": apq})
	if r := send(t, base, "GET", map[string]any{"extensions": apq}); r.code != "" || jsonPath(r.data, "product", "id") != "p3" {
		t.Errorf("a registered APQ hash: %+v", r)
	}
	if r := send(t, base, "POST", map[string]any{"documentId": "nope"}); r.status != 400 || r.code != trusted.CodeNotFound {
		t.Errorf("an unknown documentId: %+v", r)
	}
}

// TestParseManifest: a manifest is a JSON object of non-empty ids and
// documents that parse.
func TestParseManifest(t *testing.T) {
	for _, bad := range []string{`[]`, `{"a": 1}`, `{"": "{ x }"}`, `{"a": " "}`, `{"a": "{ x"}`, `not json`} {
		if _, err := trusted.Parse([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	m, err := trusted.Parse([]byte(`{"k1": "{ a }", "k2": "query B { b }"}`))
	if err != nil || m.Len() != 2 {
		t.Fatalf("%v, %d", err, m.Len())
	}
	for id, want := range map[string]string{"k1": "{ a }", "sha256:" + sha256Hex("query B { b }"): "query B { b }", sha256Hex("{ a }"): "{ a }", "SHA256:x": ""} {
		if got, _ := m.Lookup(id); got != want {
			t.Errorf("Lookup(%q) = %q, want %q", id, got, want)
		}
	}
}

// TestExtension: the gqlgen extension (for transports that bypass the HTTP
// middleware, such as a websocket) applies the same rule to RawParams.
func TestExtension(t *testing.T) {
	m, err := trusted.Parse([]byte(`{"k1": "query A { a }"}`))
	if err != nil {
		t.Fatal(err)
	}
	m.Only = true
	e := trusted.Extension{Manifest: m}
	hash := func(h string) map[string]any {
		return map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": h}, "other": 1}
	}
	for _, tc := range []struct {
		name      string
		p         graphql.RawParams
		wantQuery string
		wantCode  string
	}{
		{"by key", graphql.RawParams{Extensions: hash("k1")}, "query A { a }", ""},
		{"by SHA-256", graphql.RawParams{Extensions: hash(sha256Hex("query A { a }"))}, "query A { a }", ""},
		{"the text", graphql.RawParams{Query: "query A { a }"}, "query A { a }", ""},
		{"other text", graphql.RawParams{Query: "{ a }"}, "", trusted.CodeRequired},
		{"unknown hash", graphql.RawParams{Extensions: hash("k2")}, "", trusted.CodeNotFound},
	} {
		p := tc.p
		gerr := e.MutateOperationParameters(context.Background(), &p)
		switch {
		case tc.wantCode != "" && (gerr == nil || gerr.Extensions["code"] != tc.wantCode):
			t.Errorf("%s: %v, want %s", tc.name, gerr, tc.wantCode)
		case tc.wantCode == "" && (gerr != nil || p.Query != tc.wantQuery || p.Extensions["persistedQuery"] != nil):
			t.Errorf("%s: %v, query %q, extensions %v", tc.name, gerr, p.Query, p.Extensions)
		case tc.wantCode == "" && tc.p.Extensions != nil && (p.Extensions["other"] != 1 || tc.p.Extensions["persistedQuery"] == nil):
			t.Errorf("%s: the other extensions lost, or the caller's map changed: %v", tc.name, p.Extensions)
		}
	}
}
