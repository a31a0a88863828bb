package resolvers_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/internal/gqltest"
	"github.com/acme/comments-gateway/internal/policy"
	"github.com/acme/comments-gateway/internal/testutil"
	"github.com/acme/comments-gateway/obs"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// edgeReply is one raw HTTP answer of the GraphQL handler.
type edgeReply struct {
	status int
	header http.Header
	body   []byte
	errors []gqltest.Error
}

func (r edgeReply) code() string {
	if len(r.errors) == 0 {
		return ""
	}
	return r.errors[0].Code()
}

// mustSend sends one request to srv and decodes the errors of its reply
// (every reply of the handler is JSON).
func mustSend(tb testing.TB, srv *httptest.Server, method, target, contentType string, body io.Reader) edgeReply {
	tb.Helper()
	req, err := http.NewRequest(method, srv.URL+target, body)
	if err != nil {
		tb.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	r := edgeReply{status: resp.StatusCode, header: resp.Header}
	r.body, _ = io.ReadAll(resp.Body)
	var out struct {
		Errors []gqltest.Error `json:"errors"`
	}
	if err := json.Unmarshal(r.body, &out); err != nil {
		tb.Fatalf("HTTP %d, not JSON: %.300s", r.status, r.body)
	}
	r.errors = out.Errors
	return r
}

// noLeak fails when a reply echoes what no reply may: Go type names, the
// decoder's own words, socket addresses.
func noLeak(tb testing.TB, r edgeReply) {
	tb.Helper()
	for _, s := range []string{"Go value", "Go struct", "json: ", "map[string]", "127.0.0.1", "tcp "} {
		if bytes.Contains(r.body, []byte(s)) {
			tb.Errorf("the reply contains %q: %s", s, r.body)
		}
	}
}

// TestEdgeRefusals: what is not a GraphQL-over-HTTP request gets the
// status and code that say what to fix, never an uncoded error.
func TestEdgeRefusals(t *testing.T) {
	e := MustAccessEnv(t, resolvers.Config{})
	ok := `{"query":"{ __typename }"}`
	getMutation := "?" + url.Values{"query": {`mutation { deleteComment(input: {id: "x"}) { deletedCommentId } }`}}.Encode()
	tests := []struct {
		name, method, target, ct, body string
		status                         int
		code                           string
		allow                          string
	}{
		{"PUT", http.MethodPut, "", "application/json", ok, 405, gqlhttp.CodeMethodNotAllowed, "GET, POST, OPTIONS"},
		{"DELETE", http.MethodDelete, "", "", "", 405, gqlhttp.CodeMethodNotAllowed, "GET, POST, OPTIONS"},
		{"GET with a mutation", http.MethodGet, getMutation, "", "", 405, gqlhttp.CodeMethodNotAllowed, "POST"},
		{"text/plain", http.MethodPost, "", "text/plain", ok, 415, gqlhttp.CodeUnsupportedMediaType, ""},
		{"no Content-Type", http.MethodPost, "", "", ok, 415, gqlhttp.CodeUnsupportedMediaType, ""},
		{"form", http.MethodPost, "", "application/x-www-form-urlencoded", "query=x", 415, gqlhttp.CodeUnsupportedMediaType, ""},
		{"charset latin1", http.MethodPost, "", "application/json; charset=latin1", ok, 415, gqlhttp.CodeUnsupportedMediaType, ""},
		{"invalid JSON", http.MethodPost, "", "application/json", `{"query": "{ __typename }", "variables": {"secret": nope}}`, 400, gqlhttp.CodeBadRequest, ""},
		{"a JSON array", http.MethodPost, "", "application/json", `[` + ok + `]`, 400, gqlhttp.CodeBadRequest, ""},
		{"null", http.MethodPost, "", "application/json", `null`, 400, gqlhttp.CodeBadRequest, ""},
		{"data after the object", http.MethodPost, "", "application/json", ok + `garbage`, 400, gqlhttp.CodeBadRequest, ""},
		{"query a number", http.MethodPost, "", "application/json", `{"query": 1}`, 400, gqlhttp.CodeBadRequest, ""},
		{"variables a string", http.MethodPost, "", "application/json", `{"query": "{ __typename }", "variables": "x"}`, 400, gqlhttp.CodeBadRequest, ""},
		{"operationName an object", http.MethodPost, "", "application/json", `{"query": "{ __typename }", "operationName": {}}`, 400, gqlhttp.CodeBadRequest, ""},
		{"invalid UTF-8 body", http.MethodPost, "", "application/json", "{\"query\": \"{ comment(id: \\\"\xff\\\") { id } }\"}", 400, gqlhttp.CodeBadUserInput, ""},
		{"invalid UTF-8 query string", http.MethodGet, "?query=%7B%20comment(id%3A%20%22%FF%22)%20%7B%20id%20%7D%20%7D", "", "", 400, gqlhttp.CodeBadUserInput, ""},
		{"GET variables not JSON", http.MethodGet, "?query=%7B__typename%7D&variables=%7B", "", "", 400, gqlhttp.CodeBadRequest, ""},
		{"GET variables an array", http.MethodGet, "?query=%7B__typename%7D&variables=%5B%5D", "", "", 400, gqlhttp.CodeBadRequest, ""},
		{"GET malformed query string", http.MethodGet, "?query=%zz", "", "", 400, gqlhttp.CodeBadRequest, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := mustSend(t, e.srv, tc.method, tc.target, tc.ct, strings.NewReader(tc.body))
			if r.status != tc.status || r.code() != tc.code || len(r.errors) != 1 {
				t.Errorf("HTTP %d %s, want HTTP %d with one %s error", r.status, r.body, tc.status, tc.code)
			}
			if got := r.header.Get("Allow"); got != tc.allow {
				t.Errorf("Allow: %q, want %q", got, tc.allow)
			}
			if bytes.Contains(r.body, []byte("secret")) || bytes.Contains(r.body, []byte(`"data"`)) {
				t.Errorf("the reply echoes the body or has a data entry: %s", r.body)
			}
			noLeak(t, r)
		})
	}
	// Still served: GET queries and POST with a UTF-8 charset.
	if r := mustSend(t, e.srv, http.MethodGet, "?query=%7B__typename%7D", "", nil); r.status != 200 || len(r.errors) != 0 {
		t.Errorf("GET query: HTTP %d %s", r.status, r.body)
	}
	if r := mustSend(t, e.srv, http.MethodPost, "", "application/json; charset=UTF-8", strings.NewReader(ok)); r.status != 200 || len(r.errors) != 0 {
		t.Errorf("POST charset=UTF-8: HTTP %d %s", r.status, r.body)
	}
}

// TestRequestErrorsHaveNoData: a request refused before execution (parse,
// validation) has errors and no "data" entry, with 422 for application/json
// and 400 for application/graphql-response+json.
func TestRequestErrorsHaveNoData(t *testing.T) {
	e := MustAccessEnv(t, resolvers.Config{})
	for accept, status := range map[string]int{"application/json": 422, "application/graphql-response+json": 400} {
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL, strings.NewReader(`{"query":"{ nope }"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)
		resp, err := e.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil || resp.StatusCode != status || m["errors"] == nil {
			t.Errorf("Accept %s: HTTP %d %s, want %d with errors", accept, resp.StatusCode, body, status)
		}
		if _, has := m["data"]; has {
			t.Errorf("Accept %s: a refused request has a data entry: %s", accept, body)
		}
		if ct := resp.Header.Get("Content-Type"); ct != accept {
			t.Errorf("Accept %s: Content-Type %s", accept, ct)
		}
	}
}

// TestErrorListsCapped: a reply lists at most MaxErrors errors and one more
// that counts the rest, for validation errors and field errors alike.
func TestErrorListsCapped(t *testing.T) {
	e := MustAccessEnv(t, resolvers.Config{})
	var unknown, bad strings.Builder
	for i := range 50 {
		fmt.Fprintf(&unknown, "f%d ", i)
		fmt.Fprintf(&bad, `c%d: comment(id: "not an id %d") { id } `, i, i)
	}
	for _, tc := range []struct {
		name, query string
		status      int
		code        string
	}{
		{"50 unknown fields", "{ " + unknown.String() + "}", 422, "GRAPHQL_VALIDATION_FAILED"},
		{"50 bad ids", "{ " + bad.String() + "}", 200, "BAD_USER_INPUT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, _ := json.Marshal(map[string]string{"query": tc.query})
			r := mustSend(t, e.srv, http.MethodPost, "", "application/json", bytes.NewReader(body))
			if r.status != tc.status || len(r.errors) != gqlhttp.MaxErrors+1 {
				t.Fatalf("HTTP %d with %d errors, want HTTP %d with %d: %.300s", r.status, len(r.errors), tc.status, gqlhttp.MaxErrors+1, r.body)
			}
			for _, e := range r.errors[:gqlhttp.MaxErrors] {
				if e.Code() != tc.code {
					t.Errorf("error %+v, want code %s", e, tc.code)
				}
			}
			last := r.errors[gqlhttp.MaxErrors]
			if last.Code() != gqlhttp.CodeTooManyErrors || last.Extensions["omitted"] != float64(50-gqlhttp.MaxErrors) ||
				!strings.Contains(last.Message, "30 more errors") {
				t.Errorf("last error %+v, want TOO_MANY_ERRORS omitting 30", last)
			}
		})
	}
}

// TestBodyTooLarge: an over-limit body gets 413 whether it has a
// Content-Length or is chunked, also when it is many times the limit (the
// server drains it, so the client reads the answer rather than a reset).
func TestBodyTooLarge(t *testing.T) {
	e := MustAccessEnv(t, resolvers.Config{Limits: policy.Limits{MaxBodyBytes: 1000}})
	prefix := `{"query":"{ __typename }","variables":{"x":"`
	for _, size := range []int{1001 - len(prefix), 8 << 20} {
		for _, chunked := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d bytes chunked=%v", size, chunked), func(t *testing.T) {
				body := io.MultiReader(strings.NewReader(prefix), io.LimitReader(zeros{}, int64(size)))
				req, _ := http.NewRequest(http.MethodPost, e.srv.URL, body)
				req.Header.Set("Content-Type", "application/json")
				if !chunked {
					req.ContentLength = int64(len(prefix) + size)
				}
				resp, err := e.srv.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != 413 || !bytes.Contains(b, []byte(`"REQUEST_TOO_LARGE"`)) {
					t.Errorf("HTTP %d %s, want 413 REQUEST_TOO_LARGE", resp.StatusCode, b)
				}
			})
		}
	}
	// At the limit, the request runs.
	at := prefix + strings.Repeat("a", 1000-len(prefix)-3) + `"}}`
	if r := mustSend(t, e.srv, http.MethodPost, "", "application/json", strings.NewReader(at)); r.status != 200 || len(r.errors) != 0 {
		t.Errorf("a body of exactly the limit: HTTP %d %s", r.status, r.body)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	return len(p), nil
}

// TestStalledBody: a body that stops after the headers gets 408 when the
// server's read timeout passes, with a coded error that names no address.
func TestStalledBody(t *testing.T) {
	e := MustAccessEnv(t, resolvers.Config{})
	srv := httptest.NewUnstartedServer(e.srv.Config.Handler)
	srv.Config.ReadTimeout = 300 * time.Millisecond
	srv.Start()
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second)) // a hang, not a slow machine
	fmt.Fprint(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{\"query\":")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	r := edgeReply{status: resp.StatusCode, body: body}
	if resp.StatusCode != http.StatusRequestTimeout || !bytes.Contains(body, []byte(`"REQUEST_TIMEOUT"`)) {
		t.Errorf("HTTP %d %s, want 408 REQUEST_TIMEOUT", resp.StatusCode, body)
	}
	noLeak(t, r)
}

// TestNoSuggestionsWithIntrospectionOff: with introspection off no
// validation error suggests a schema name; with it on they do (so the
// requests below do reach the suggesting rules).
func TestNoSuggestionsWithIntrospectionOff(t *testing.T) {
	on := MustAccessEnv(t, resolvers.Config{})
	off := MustAccessEnv(t, resolvers.Config{DisableIntrospection: true})
	for _, tc := range []struct{ name, query, hidden string }{
		{"argument", `{ product(id: "p") { comments(frist: 1) { totalCount } } }`, `"first"`},
		{"input field", `mutation { updateComment(input: {id: "x", titel: "t"}) { comment { id } } }`, `"title"`},
		{"fragment type", `{ ...F } fragment F on Quer { __typename }`, `"Query"`},
		{"field", `{ product(id: "p") { comemnts { totalCount } } }`, `"comments"`},
		{"field of a union", `{ _entities(representations: []) { id } }`, `"Product"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := on.MustPost(t, q(tc.query)); len(r.Errors) == 0 || !strings.Contains(r.Errors[0].Message, "Did you mean") {
				t.Errorf("introspection on: %+v, want a suggestion", r.Errors)
			}
			r := off.MustPost(t, q(tc.query))
			if len(r.Errors) == 0 || r.Code() != "GRAPHQL_VALIDATION_FAILED" {
				t.Fatalf("introspection off: %+v, want a validation error", r)
			}
			for _, e := range r.Errors {
				if strings.Contains(e.Message, "Did you mean") || strings.Contains(e.Message, tc.hidden) {
					t.Errorf("introspection off: %q suggests a schema name", e.Message)
				}
			}
		})
	}
}

// TestGraphQLJSMessages: the operation-selection and variable mistakes are
// named as graphql-js names them, with a validation code.
func TestGraphQLJSMessages(t *testing.T) {
	e := MustAccessEnv(t, resolvers.Config{})
	for _, tc := range []struct {
		name string
		body map[string]any
		want []string
	}{
		{"several operations, no name", map[string]any{"query": `query A { __typename } query B { __typename }`},
			[]string{"Must provide operation name if query contains multiple operations."}},
		{"unknown operation name", map[string]any{"query": `query A { __typename }`, "operationName": "B"},
			[]string{`Unknown operation named "B".`}},
		{"required variable missing", map[string]any{"query": `query($id: ID!) { comment(id: $id) { id } }`},
			[]string{`Variable "$id" of required type "ID!" was not provided.`}},
		{"required variable null", map[string]any{"query": `query($id: ID!) { comment(id: $id) { id } }`, "variables": map[string]any{"id": nil}},
			[]string{`Variable "$id" of non-null type "ID!" must not be null.`}},
		{"the string 10 for an Int", map[string]any{"query": `query($f: Int) { topProducts(first: $f) { rank } }`, "variables": map[string]any{"f": "10"}},
			[]string{`Variable "$f" got invalid value "10"; Int cannot represent non-integer value: "10"`}},
		{"two bad variables", map[string]any{"query": `query($f: Int, $l: String) { topProducts(first: $f, language: $l) { rank } }`, "variables": map[string]any{"f": true, "l": 5}},
			[]string{`Variable "$f" got invalid value true; Int cannot represent non-integer value: true`, `Variable "$l" got invalid value 5; String cannot represent a non string value: 5`}},
		{"a string in an input object", map[string]any{"query": `mutation($in: CreateCommentInput!) { createComment(input: $in) { comment { id } } }`,
			"variables": map[string]any{"in": map[string]any{"productId": "p", "language": "en", "rating": "5", "author": "a", "title": "t", "body": "b"}}},
			[]string{`Variable "$in" got invalid value "5" at "in.rating"; Int cannot represent non-integer value: "5"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.MustPost(t, tc.body)
			if r.Status != 422 || len(r.Errors) != len(tc.want) {
				t.Fatalf("HTTP %d %+v, want 422 with %d errors", r.Status, r.Errors, len(tc.want))
			}
			for i, want := range tc.want {
				if r.Errors[i].Message != want || r.Errors[i].Code() != "GRAPHQL_VALIDATION_FAILED" {
					t.Errorf("error %d: %q (%s), want %q", i, r.Errors[i].Message, r.Errors[i].Code(), want)
				}
			}
		})
	}
	// A number for an Int and an integer for an ID are still accepted.
	r := e.MustPost(t, map[string]any{"query": `query($f: Int, $id: ID!) { topProducts(first: $f) { rank } comment(id: $id) { id } }`,
		"variables": map[string]any{"f": 3, "id": 12}})
	if r.Status != 200 || len(r.Errors) != 0 {
		t.Errorf("valid variables: HTTP %d %+v", r.Status, r.Errors)
	}
}

// TestIntegralNumbersAreInts: as in graphql-js, where JSON numbers are
// numbers, 5.0 and 1e2 are the Ints 5 and 100, at the top of the
// variables, in lists and in input objects; a non-integral or out of
// range number gets graphql-js's message, never "cannot use value 0".
func TestIntegralNumbersAreInts(t *testing.T) {
	e := MustAccessEnv(t, resolvers.Config{})
	const q = `query($f: Int, $r: [Int!]) { topProducts(first: $f) { rank } product(id: "p") { comments(ratings: $r) { totalCount } } }`
	const create = `mutation($in: CreateCommentInput!) { createComment(input: $in) { comment { rating } } }`
	in := func(rating string) map[string]any {
		return map[string]any{"productId": "p", "language": "en", "rating": json.Number(rating), "author": "a", "title": "t", "body": "b"}
	}
	for _, n := range []string{"5.0", "1e2", "100E0", "-0.0", "2.50e1"} {
		r := e.MustPost(t, map[string]any{"query": q,
			"variables": map[string]any{"f": json.Number(n), "r": []any{json.Number("1.0"), json.Number("5e0")}}})
		if r.Status != 200 || len(r.Errors) != 0 {
			t.Errorf("Int %s: HTTP %d %+v, want it accepted", n, r.Status, r.Errors)
		}
	}
	if r := e.MustPost(t, map[string]any{"query": create, "variables": map[string]any{"in": in("4.0")}}); r.Status != 200 || len(r.Errors) != 0 || !strings.Contains(string(r.Body), `"rating":4`) {
		t.Errorf("rating 4.0 in an input object: HTTP %d %s", r.Status, r.Body)
	}
	for n, want := range map[string]string{
		"5.5":   `Variable "$f" got invalid value 5.5; Int cannot represent non-integer value: 5.5`,
		"1e-1":  `Variable "$f" got invalid value 1e-1; Int cannot represent non-integer value: 1e-1`,
		"1e10":  `Variable "$f" got invalid value 10000000000; Int cannot represent non 32-bit signed integer value: 10000000000`,
		"1e400": `Variable "$f" got invalid value 1e400; Int cannot represent non 32-bit signed integer value: 1e400`,
	} {
		r := e.MustPost(t, map[string]any{"query": `query($f: Int) { topProducts(first: $f) { rank } }`, "variables": map[string]any{"f": json.Number(n)}})
		if r.Status != 422 || len(r.Errors) != 1 || r.Errors[0].Message != want {
			t.Errorf("Int %s: HTTP %d %+v, want 422 %q", n, r.Status, r.Errors, want)
		}
	}
}

// TestClientGoneIsNotAnError: a client that goes away mid-request is logged
// at INFO, never at ERROR.
func TestClientGoneIsNotAnError(t *testing.T) {
	tbl := MustOpenLoaded(t, genComments())
	var logs testutil.SyncBuffer
	log := slog.New(obs.NewHandler(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	reached := make(chan struct{})
	h := resolvers.NewHandler(resolvers.Config{Store: store.New(reachedTable{slowTable{tbl}, reached, &sync.Once{}}), Logger: log})
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/", strings.NewReader(`{"query":"{ product(id: \"big\") { comments(first: 2) { nodes { id } } } }"}`))
	req.Header.Set("Content-Type", "application/json")
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(httptest.NewRecorder(), req)
	}()
	<-reached // the request waits on the store
	cancel()
	<-done
	if !strings.Contains(logs.String(), "context canceled") {
		t.Fatalf("no log of the cancelled request: %s", logs.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if strings.Contains(line, `"level":"ERROR"`) {
			t.Errorf("logged at ERROR: %s", line)
		}
	}
}

// reachedTable closes reached when the first query reaches the store.
type reachedTable struct {
	slowTable
	reached chan struct{}
	once    *sync.Once
}

func (r reachedTable) Query(ctx context.Context, q table.Query) (table.QueryResult, error) {
	r.once.Do(func() { close(r.reached) })
	return r.slowTable.Query(ctx, q)
}

// TestUpgrades: a WebSocket upgrade that no transport takes gets a coded
// refusal; any other Upgrade header is ignored (served as plain HTTP).
func TestUpgrades(t *testing.T) {
	e := MustAccessEnv(t, resolvers.Config{})
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL, nil)
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Connection", "Upgrade")
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !bytes.Contains(body, []byte(`"code":"BAD_REQUEST"`)) || bytes.Contains(body, []byte(`"data"`)) {
		t.Errorf("WebSocket upgrade: HTTP %d %s, want 400 with a BAD_REQUEST error", resp.StatusCode, body)
	}
	req, _ = http.NewRequest(http.MethodPost, e.srv.URL, strings.NewReader(`{"query":"{ __typename }"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Upgrade", "h2c")
	resp, err = e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"__typename":"Query"`)) {
		t.Errorf("Upgrade: h2c: HTTP %d %s, want the query answered", resp.StatusCode, body)
	}
}

// TestNoGoTypeNames: a federation representation of the wrong JSON type is
// refused with what was expected, not the Go type that was got.
func TestNoGoTypeNames(t *testing.T) {
	e := MustAccessEnv(t, resolvers.Config{})
	for _, body := range []map[string]any{
		q(`{ _entities(representations: ["x"]) { ... on Product { id } } }`),
		{"query": `query($r: [_Any!]!) { _entities(representations: $r) { ... on Product { id } } }`, "variables": map[string]any{"r": []any{5}}},
	} {
		r := e.MustPost(t, body)
		if len(r.Errors) != 1 || r.Errors[0].Message != "expected a JSON object" || r.Code() != "BAD_USER_INPUT" {
			t.Errorf("%v: %+v, want one BAD_USER_INPUT error \"expected a JSON object\"", body["query"], r.Errors)
		}
	}
}

// TestBodyTooLargeSentWhole: a client that sends the whole over-limit body
// before it reads (as many simple clients do) gets the 413, because the
// server reads the rest of the body instead of closing on it.
func TestBodyTooLargeSentWhole(t *testing.T) {
	e := MustAccessEnv(t, resolvers.Config{Limits: policy.Limits{MaxBodyBytes: 1000}})
	for _, chunked := range []bool{false, true} {
		conn, err := net.Dial("tcp", e.srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(60 * time.Second)) // a hang, not a slow machine
		const size = 16 << 20
		chunk := bytes.Repeat([]byte(" "), 32<<10)
		w := bufio.NewWriter(conn)
		if chunked {
			fmt.Fprint(w, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
			for range size / len(chunk) {
				fmt.Fprintf(w, "%x\r\n%s\r\n", len(chunk), chunk)
			}
			fmt.Fprint(w, "0\r\n\r\n")
		} else {
			fmt.Fprintf(w, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", size)
			for range size / len(chunk) {
				w.Write(chunk)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatalf("chunked=%v: sending the body: %v", chunked, err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("chunked=%v: %v", chunked, err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 413 || !bytes.Contains(body, []byte(`"REQUEST_TOO_LARGE"`)) || !resp.Close {
			t.Errorf("chunked=%v: HTTP %d %v %s, want 413 REQUEST_TOO_LARGE with Connection: close", chunked, resp.StatusCode, resp.Header, body)
		}
		conn.Close()
	}
}

// TestLongNamesAreClippedInRepliesAndLogs: a name of 200 KB the client
// wrote reaches neither the reply (an unknown field's error message) nor
// the request's log line (the operation's name) whole.
func TestLongNamesAreClippedInRepliesAndLogs(t *testing.T) {
	var logs testutil.SyncBuffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	h := obs.Middleware(log, resolvers.NewHandler(resolvers.Config{Store: store.New(MustOpenLoaded(t, nil)), Logger: log}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	long := "n" + strings.Repeat("a", 200_000)
	body := func(q string) io.Reader {
		b, _ := json.Marshal(map[string]string{"query": q})
		return bytes.NewReader(b)
	}
	r := mustSend(t, srv, http.MethodPost, "", "application/json", body("{ "+long+" }"))
	if r.code() != "GRAPHQL_VALIDATION_FAILED" || len(r.body) > 2<<10 || !strings.HasSuffix(r.errors[0].Message, "aa…") {
		t.Errorf("unknown 200 KB field: HTTP %d, %d bytes: %.300s", r.status, len(r.body), r.body)
	}
	r = mustSend(t, srv, http.MethodPost, "", "application/json", body("query "+long+" { __typename }"))
	if r.status != http.StatusOK || len(r.errors) != 0 {
		t.Fatalf("a 200 KB operation name: HTTP %d: %.300s", r.status, r.body)
	}
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if len(line) > 2<<10 {
			t.Errorf("a log line of %d bytes: %.300s", len(line), line)
		}
	}
	if !strings.Contains(logs.String(), `"operation":"query naa`) {
		t.Errorf("no clipped operation name in the logs:\n%.2000s", logs.String())
	}
}
