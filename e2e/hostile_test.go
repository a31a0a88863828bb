package e2e

// The hostile-input suite: malformed and abusive requests over HTTP against
// the built binary. Every one must get a 4xx, or a GraphQL error whose every
// entry carries extensions.code; none may get a 5xx or take the server down,
// and afterwards the server still answers a normal query and /healthz.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/internal/gqltest"
)

// hostileCase is one request of the barrage.
type hostileCase struct {
	name   string
	method string // default POST
	path   string // default /graphql
	body   []byte
	header map[string]string // default Content-Type: application/json for POST with a body
	// raw sends body with no Content-Length (chunked).
	chunked bool
	// code, when set, is the extensions.code the first error must carry.
	code string
	// status, when set, is the HTTP status the answer must have.
	status int
	// lenient, when set, is a known leniency of the server (or of gqlgen):
	// a success answer is logged as a finding with this explanation rather
	// than failing the test. Anything else (a 5xx, an uncoded error) still
	// fails.
	lenient string
}

// gql is a JSON GraphQL request body.
func gql(query string, vars map[string]any) []byte {
	b, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		panic(err)
	}
	return b
}

func gqlOp(query, op string) []byte {
	b, _ := json.Marshal(map[string]any{"query": query, "operationName": op})
	return b
}

const (
	hQComments = `query C($pid: ID!, $lang: String, $ratings: [Int!], $first: Int, $after: String, $last: Int, $before: String) {
  product(id: $pid) { comments(language: $lang, ratings: $ratings, first: $first, after: $after, last: $last, before: $before) { totalCount edges { cursor node { id } } } } }`
	hQStats    = `query S($pid: ID!, $lang: String) { product(id: $pid) { stats(language: $lang) { total } } }`
	hQTop      = `query T($first: Int, $lang: String) { topProducts(first: $first, language: $lang) { rank } }`
	hQComment  = `query G($id: ID!) { comment(id: $id) { id } }`
	hMCreate   = `mutation M($in: CreateCommentInput!) { createComment(input: $in) { comment { id } } }`
	hMUpdate   = `mutation U($in: UpdateCommentInput!) { updateComment(input: $in) { comment { id } } }`
	hMDelete   = `mutation D($in: DeleteCommentInput!) { deleteComment(input: $in) { deletedCommentId } }`
	badInput   = "BAD_USER_INPUT"
	validation = "GRAPHQL_VALIDATION_FAILED"
)

func validCreate() map[string]any {
	return map[string]any{"productId": "hostile-p", "language": "en", "rating": 4, "author": "A", "title": "T", "body": "B"}
}

func with(m map[string]any, k string, v any) map[string]any {
	out := map[string]any{}
	for k2, v2 := range m {
		out[k2] = v2
	}
	if v == nil {
		delete(out, k)
	} else {
		out[k] = v
	}
	return out
}

func nest(open, close string, n int) string {
	return strings.Repeat(open, n) + strings.Repeat(close, n)
}

// deepSelection is a valid-looking selection nested `levels` deep through
// product → comments → edges → node → product → ...
func deepSelection(levels int) string {
	parts := []string{`product`, `comments(first: 1)`, `edges`, `node`}
	var b strings.Builder
	b.WriteString("{ ")
	for i := 0; i < levels-1; i++ {
		if i == 0 {
			b.WriteString(`product(id: "hostile-p")`)
		} else {
			b.WriteString(parts[i%4])
		}
		b.WriteString(" { ")
	}
	b.WriteString("__typename")
	b.WriteString(strings.Repeat(" }", levels))
	return b.String()
}

func aliases(n int, field string) string {
	var b strings.Builder
	b.WriteString("{ ")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "a%d: %s ", i, field)
	}
	b.WriteString("}")
	return b.String()
}

func hostileCases(existingID, goodCursor string) []hostileCase {
	var cs []hostileCase
	add := func(c hostileCase) { cs = append(cs, c) }
	post := func(name string, body []byte, code string) {
		add(hostileCase{name: name, body: body, code: code})
	}
	// --- malformed JSON and bodies
	add(hostileCase{name: "malformed JSON: trailing }", body: []byte(`{"query":"{ __typename }"}}`), status: http.StatusBadRequest, code: "BAD_REQUEST"})
	add(hostileCase{name: "malformed JSON: two objects", body: []byte(`{"query":"{ __typename }"} {"query":"{ __typename }"}`), status: http.StatusBadRequest, code: "BAD_REQUEST"})
	add(hostileCase{name: "malformed JSON: trailing garbage", body: []byte(`{"query":"{ __typename }"}garbage`), status: http.StatusBadRequest, code: "BAD_REQUEST"})
	for i, b := range []string{`{`, `{"query":`, `{"query":"{ __typename }"`, `nonsense`,
		`{"query": 1}`, `{"query": null}`, `{"query": {}}`, `{"query": []}`, `{"query": true}`, `{}`, `null`, `0`, `""`, `"{ __typename }"`,
		`{"query":"{ __typename }","variables":"x"}`, `{"query":"{ __typename }","variables":[1]}`, `{"query":"{ __typename }","variables":7}`,
		`{"query":"{ __typename }","operationName":5}`, `{"query":"{ __typename }","extensions":"x"}`, `{"query":"{ __typename }","extensions":[]}`,
		"\x00\x01\x02", `{"query":"\u0000"}`,
	} {
		post(fmt.Sprintf("malformed JSON %d %.30q", i, b), []byte(b), "")
	}
	add(hostileCase{name: "empty body", body: []byte{}})
	add(hostileCase{name: "no body", body: nil})
	add(hostileCase{name: "JSON nested 30 levels in variables", body: []byte(`{"query":"query($pid: ID!) { product(id: $pid) { id } }","variables":{"pid":` + nest("[", "]", 30) + `}}`)})
	add(hostileCase{name: "JSON nested 10000 levels", body: []byte(`{"query":"{ __typename }","variables":{"x":` + nest("[", "]", 10000) + `}}`)})
	add(hostileCase{name: "JSON nested 10000 object levels", body: []byte(`{"query":"{ __typename }","extensions":` + strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000) + `}`)})
	// --- batched arrays
	add(hostileCase{name: "batched JSON array", body: []byte(`[{"query":"{ __typename }"},{"query":"{ __typename }"}]`)})
	add(hostileCase{name: "batched JSON array of one", body: []byte(`[{"query":"{ __typename }"}]`)})
	add(hostileCase{name: "empty JSON array", body: []byte(`[]`)})
	// --- content types
	ok := []byte(`{"query":"{ __typename }"}`)
	add(hostileCase{name: "content type application/json; charset=latin1", body: ok, header: map[string]string{"Content-Type": "application/json; charset=latin1"},
		status: http.StatusUnsupportedMediaType, code: "UNSUPPORTED_MEDIA_TYPE"})
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml",
		"application/graphql", "application/octet-stream", "", "*/*", "application/json-x"} {
		h := map[string]string{"Content-Type": ct}
		if ct == "" {
			h = map[string]string{"Content-Type": ""}
		}
		add(hostileCase{name: "content type " + ct, body: ok, header: h, status: http.StatusUnsupportedMediaType, code: "UNSUPPORTED_MEDIA_TYPE"})
	}
	add(hostileCase{name: "form body", body: []byte("query=%7B__typename%7D"), header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"},
		status: http.StatusUnsupportedMediaType, code: "UNSUPPORTED_MEDIA_TYPE"})
	// --- sizes
	big := append([]byte(`{"query":"{ __typename }","variables":{"x":"`), bytes.Repeat([]byte("a"), 2<<20)...)
	big = append(big, `"}}`...)
	add(hostileCase{name: "2 MiB body", body: big, status: http.StatusRequestEntityTooLarge, code: "REQUEST_TOO_LARGE"})
	add(hostileCase{name: "2 MiB body, chunked", body: big, chunked: true, status: http.StatusRequestEntityTooLarge, code: "REQUEST_TOO_LARGE"})
	bigQ := gql("{ __typename "+strings.Repeat("__typename ", 200_000)+"}", nil)
	add(hostileCase{name: "2 MiB query text", body: bigQ})
	add(hostileCase{name: "11000 tokens", body: gql("{ "+strings.Repeat("__typename ", 11000)+"}", nil), code: "GRAPHQL_PARSE_FAILED"})
	// --- shape
	add(hostileCase{name: "30 levels deep", body: gql(deepSelection(30), nil), code: "DEPTH_LIMIT_EXCEEDED"})
	add(hostileCase{name: "11 levels deep", body: gql(deepSelection(11), nil), code: "DEPTH_LIMIT_EXCEEDED"})
	add(hostileCase{name: "30 levels deep via fragments", body: gql(`{ ...F0 } `+func() string {
		var b strings.Builder
		parts := []string{`product`, `comments(first: 1)`, `edges`, `node`}
		for i := 0; i < 30; i++ {
			on, field := []string{"Comment", "Product", "CommentConnection", "CommentEdge"}[i%4], parts[i%4]
			if i == 0 {
				on, field = "Query", `product(id: "hostile-p")`
			}
			fmt.Fprintf(&b, "fragment F%d on %s { %s { ...F%d } } ", i, on, field, i+1)
		}
		fmt.Fprintf(&b, "fragment F30 on %s { __typename }", []string{"Comment", "Product", "CommentConnection", "CommentEdge"}[30%4])
		return b.String()
	}(), nil), code: "DEPTH_LIMIT_EXCEEDED"})
	add(hostileCase{name: "4000 braces", body: gql(nest("{ a ", "} ", 4000), nil)})
	add(hostileCase{name: "unbalanced 5000 braces", body: gql(strings.Repeat("{ a ", 5000), nil), code: "GRAPHQL_PARSE_FAILED"})
	add(hostileCase{name: "400 aliases", body: gql(aliases(400, `product(id: "hostile-p") { id }`), nil), code: "ALIAS_LIMIT_EXCEEDED"})
	add(hostileCase{name: "400 aliases of comments(first: 100)", body: gql(aliases(400, `product(id: "hostile-p") { comments(first: 100) { edges { node { id body } } } }`), nil)})
	add(hostileCase{name: "90 aliases of comments(first: 100)", body: gql(aliases(90, `product(id: "hostile-p") { comments(first: 100) { edges { cursor node { id body title author rating createdAt } } } }`), nil), code: "COMPLEXITY_LIMIT_EXCEEDED"})
	add(hostileCase{name: "2000 aliases of __typename", body: gql(aliases(2000, `__typename`), nil), code: "ALIAS_LIMIT_EXCEEDED"})
	add(hostileCase{name: "fragment cycle", body: gql(`{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }`, nil), code: validation})
	add(hostileCase{name: "fragment self cycle", body: gql(`{ ...A } fragment A on Query { __typename ...A }`, nil), code: validation})
	add(hostileCase{name: "fragment cycle through fields", body: gql(`{ product(id: "p") { ...P } } fragment P on Product { comments { nodes { product { ...P } } } }`, nil), code: validation})
	add(hostileCase{name: "unknown fragment", body: gql(`{ ...Nope }`, nil), code: validation})
	add(hostileCase{name: "directive flood", body: gql(`{ __typename `+strings.Repeat("@skip(if: false) ", 2000)+`}`, nil)})
	add(hostileCase{name: "unknown field", body: gql(`{ nope }`, nil), code: validation})
	add(hostileCase{name: "unknown argument", body: gql(`{ product(id: "p", nope: 1) { id } }`, nil), code: validation})
	add(hostileCase{name: "introspection loop", body: gql(`{ __schema { types { fields { type { fields { type { fields { type { fields { type { name } } } } } } } } } } }`, nil)})
	// --- invalid UTF-8
	add(hostileCase{name: "invalid UTF-8 in query text", body: []byte("{\"query\":\"{ product(id: \\\"\xff\xfe\\\") { id } }\"}"), code: badInput})
	add(hostileCase{name: "invalid UTF-8 as a name", body: []byte("{\"query\":\"{ \xff\xfe }\"}")})
	add(hostileCase{name: "invalid UTF-8 raw body", body: []byte("\xff\xfe\xfd")})
	add(hostileCase{name: "invalid UTF-8 in id variable", body: []byte("{\"query\":\"query($id: ID!) { product(id: $id) { id } }\",\"variables\":{\"id\":\"p\xff\"}}"), code: badInput})
	add(hostileCase{name: "invalid UTF-8 in language variable", body: []byte("{\"query\":" + mustJSON(hQStats) + ",\"variables\":{\"pid\":\"p\",\"lang\":\"e\xffn\"}}"), code: badInput})
	add(hostileCase{name: "invalid UTF-8 in cursor variable", body: []byte("{\"query\":" + mustJSON(hQComments) + ",\"variables\":{\"pid\":\"p\",\"after\":\"\xc3\x28\"}}"), code: badInput})
	add(hostileCase{name: "invalid UTF-8 in operationName", body: []byte("{\"query\":\"query A { __typename }\",\"operationName\":\"A\xff\"}"), code: ""})
	add(hostileCase{name: "lone surrogate escape in id", body: []byte(`{"query":"query($id: ID!) { product(id: $id) { id } }","variables":{"id":"\ud800"}}`), code: badInput})
	// --- arguments of the schema
	cv := func(v map[string]any) map[string]any { // comments variables
		out := map[string]any{"pid": "hostile-p"}
		for k, x := range v {
			out[k] = x
		}
		return out
	}
	for _, r := range []int{0, 6, -1, 100} {
		post(fmt.Sprintf("ratings [%d]", r), gql(hQComments, cv(map[string]any{"ratings": []int{r}})), badInput)
		post(fmt.Sprintf("rating %d in create", r), gql(hMCreate, map[string]any{"in": with(validCreate(), "rating", r)}), badInput)
		post(fmt.Sprintf("rating %d in update", r), gql(hMUpdate, map[string]any{"in": map[string]any{"id": existingID, "rating": r}}), badInput)
	}
	post("ratings [1, 6]", gql(hQComments, cv(map[string]any{"ratings": []int{1, 6}})), badInput)
	post("ratings [null]", gql(hQComments, cv(map[string]any{"ratings": []any{nil}})), "")
	post("ratings literal 0", gql(`{ product(id: "p") { comments(ratings: [0]) { totalCount } } }`, nil), badInput)
	for _, n := range []int{-1, 101, -2147483648, 2147483647} {
		post(fmt.Sprintf("first %d", n), gql(hQComments, cv(map[string]any{"first": n})), badInput)
		post(fmt.Sprintf("last %d", n), gql(hQComments, cv(map[string]any{"last": n})), badInput)
		post(fmt.Sprintf("topProducts first %d", n), gql(hQTop, map[string]any{"first": n}), badInput)
	}
	post("first and last", gql(hQComments, cv(map[string]any{"first": 1, "last": 1})), badInput)
	post("first 0 and last 0", gql(hQComments, cv(map[string]any{"first": 0, "last": 0})), badInput)
	post("first literal -1", gql(`{ product(id: "p") { comments(first: -1) { totalCount } } }`, nil), badInput)
	for _, c := range []string{"", "x", "AAAA", "!!!!", "AQ", strings.Repeat("A", 201), "AjIwMjQ", "AQ==", goodCursor + "=", "Ag" + goodCursor[2:], goodCursor[:20], "../../etc/passwd", "\x00"} {
		post(fmt.Sprintf("after %.20q", c), gql(hQComments, cv(map[string]any{"after": c})), badInput)
		post(fmt.Sprintf("before %.20q", c), gql(hQComments, cv(map[string]any{"last": 2, "before": c})), badInput)
	}
	for _, l := range []string{"", "en/5", "x", "english-is-not-a-tag-at-all", "und", strings.Repeat("a", 36), "en_US\x00", "-", "12", "en--US", "🙂"} {
		post(fmt.Sprintf("comments language %q", l), gql(hQComments, cv(map[string]any{"lang": l})), badInput)
		post(fmt.Sprintf("stats language %q", l), gql(hQStats, map[string]any{"pid": "p", "lang": l}), badInput)
		post(fmt.Sprintf("topProducts language %q", l), gql(hQTop, map[string]any{"lang": l}), badInput)
		post(fmt.Sprintf("create language %q", l), gql(hMCreate, map[string]any{"in": with(validCreate(), "language", l)}), badInput)
		post(fmt.Sprintf("update language %q", l), gql(hMUpdate, map[string]any{"in": map[string]any{"id": existingID, "language": l}}), badInput)
	}
	for _, id := range []string{"", "a b", "a/b", "a#b", "ü", strings.Repeat("p", 65), "p\n", "PRODUCT#x", "a.b", "%00"} {
		post(fmt.Sprintf("product id %.20q", id), gql(`query($id: ID!) { product(id: $id) { id stats { total } } }`, map[string]any{"id": id}), badInput)
		post(fmt.Sprintf("create productId %.20q", id), gql(hMCreate, map[string]any{"in": with(validCreate(), "productId", id)}), badInput)
	}
	for _, id := range []string{"", "a b", strings.Repeat("c", 65), "COMMENT#x"} {
		post(fmt.Sprintf("comment id %.20q", id), gql(hQComment, map[string]any{"id": id}), badInput)
		post(fmt.Sprintf("update id %.20q", id), gql(hMUpdate, map[string]any{"in": map[string]any{"id": id, "title": "x"}}), badInput)
		post(fmt.Sprintf("delete id %.20q", id), gql(hMDelete, map[string]any{"in": map[string]any{"id": id}}), badInput)
	}
	post("update missing comment", gql(hMUpdate, map[string]any{"in": map[string]any{"id": "no-such-comment", "title": "x"}}), "NOT_FOUND")
	post("delete missing comment", gql(hMDelete, map[string]any{"in": map[string]any{"id": "no-such-comment"}}), "NOT_FOUND")
	for _, f := range []struct {
		field string
		max   int
	}{{"author", 100}, {"title", 200}, {"body", 10_000}} {
		for _, v := range []string{"", "   ", "\t\n", strings.Repeat("x", f.max+1), strings.Repeat("é", f.max+1)} {
			post(fmt.Sprintf("create %s %d chars %.6q", f.field, len([]rune(v)), v), gql(hMCreate, map[string]any{"in": with(validCreate(), f.field, v)}), badInput)
			if f.field != "author" {
				post(fmt.Sprintf("update %s %d chars %.6q", f.field, len([]rune(v)), v), gql(hMUpdate, map[string]any{"in": map[string]any{"id": existingID, f.field: v}}), badInput)
			}
		}
	}
	// --- variables of wrong types, huge integers
	// Strict input coercion: a JSON string is not an Int (internal/gqlhttp/variables.go).
	post("create rating as the string \"5\"", gql(hMCreate, map[string]any{"in": with(validCreate(), "rating", "5")}), validation)
	post("first as the string \"10\"", gql(hQComments, cv(map[string]any{"first": "10"})), validation)
	post("ratings as the string \"1\"", gql(hQComments, cv(map[string]any{"ratings": "1"})), validation)
	for i, v := range []any{4.5, true, []int{4}, map[string]any{}, nil, "five"} {
		post(fmt.Sprintf("create rating of wrong type %d (%v)", i, v), gql(hMCreate, map[string]any{"in": with(validCreate(), "rating", v)}), "")
	}
	for i, v := range []any{1.5, false, []int{1}, map[string]any{"a": 1}, "ten"} {
		post(fmt.Sprintf("first of wrong type %d", i), gql(hQComments, cv(map[string]any{"first": v})), "")
	}
	post("ratings list of strings", gql(hQComments, cv(map[string]any{"ratings": []string{"a"}})), "")
	post("pid of wrong type", gql(hQComments, map[string]any{"pid": map[string]any{"x": 1}}), "")
	post("pid missing", gql(hQComments, map[string]any{}), "")
	post("input missing fields", gql(hMCreate, map[string]any{"in": map[string]any{"productId": "p"}}), "")
	post("input unknown field", gql(hMCreate, map[string]any{"in": with(validCreate(), "extra", 1)}), "")
	post("input not an object", gql(hMCreate, map[string]any{"in": "x"}), "")
	post("update with unknown field", gql(hMUpdate, map[string]any{"in": map[string]any{"id": existingID, "author": "x"}}), "")
	for _, n := range []string{"2147483648", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
		"99999999999999999999999999999999999999", "1e400", "-1e400", "1e10", "100.0000000001", "1" + strings.Repeat("0", 5000)} {
		post("first variable "+n[:min(len(n), 30)], []byte(`{"query":`+mustJSON(hQComments)+`,"variables":{"pid":"p","first":`+n+`}}`), "")
		post("ratings variable "+n[:min(len(n), 30)], []byte(`{"query":`+mustJSON(hQComments)+`,"variables":{"pid":"p","ratings":[`+n+`]}}`), "")
		post("rating literal "+n[:min(len(n), 30)], gql(`mutation { createComment(input: {productId: "p", language: "en", rating: `+n+`, author: "a", title: "t", body: "b"}) { comment { id } } }`, nil), "")
		post("first literal "+n[:min(len(n), 30)], gql(`{ topProducts(first: `+n+`) { rank } }`, nil), "")
	}
	// --- operations
	post("unknown operationName", gqlOp(`query A { __typename }`, "B"), "")
	post("operationName for an anonymous query", gqlOp(`{ __typename }`, "A"), "")
	post("two operations without operationName", gql(`query A { __typename } query B { __typename }`, nil), "")
	post("two anonymous operations", gql(`{ __typename } { __typename }`, nil), validation)
	post("duplicate operation names", gqlOp(`query A { __typename } query A { __typename }`, "A"), validation)
	post("subscription", gql(`subscription { __typename }`, nil), "")
	post("only a fragment", gql(`fragment F on Query { __typename }`, nil), "")
	post("empty query", gql(``, nil), "")
	post("whitespace query", gql("   \n\t ", nil), "")
	post("comment-only query", gql("# nothing", nil), "")
	// --- GET
	getq := func(name string, v url.Values, code string) {
		add(hostileCase{name: name, method: http.MethodGet, path: "/graphql?" + v.Encode(), code: code})
	}
	getMutation := func(name string, v url.Values) {
		add(hostileCase{name: name, method: http.MethodGet, path: "/graphql?" + v.Encode(), status: http.StatusMethodNotAllowed, code: "METHOD_NOT_ALLOWED"})
	}
	getMutation("GET mutation", url.Values{"query": {`mutation { deleteComment(input: {id: "` + existingID + `"}) { deletedCommentId } }`}})
	getMutation("GET mutation create", url.Values{"query": {`mutation { createComment(input: {productId: "p", language: "en", rating: 5, author: "a", title: "t", body: "b"}) { comment { id } } }`}})
	getMutation("GET mutation chosen by operationName", url.Values{"query": {`query Q { __typename } mutation M { deleteComment(input: {id: "` + existingID + `"}) { deletedCommentId } }`}, "operationName": {"M"}})
	getq("GET without query", url.Values{}, "")
	getq("GET bad variables JSON", url.Values{"query": {hQComments}, "variables": {"{"}}, "")
	getq("GET variables array", url.Values{"query": {hQComments}, "variables": {"[]"}}, "")
	getq("GET bad extensions", url.Values{"query": {"{ __typename }"}, "extensions": {"{"}}, "")
	getq("GET invalid UTF-8", url.Values{"query": {"{ product(id: \"\xff\") { id } }"}}, badInput)
	getq("GET rating 0", url.Values{"query": {`{ product(id: "p") { comments(ratings: [0]) { totalCount } } }`}}, badInput)
	getq("GET 400 aliases", url.Values{"query": {aliases(400, "__typename")}}, "ALIAS_LIMIT_EXCEEDED")
	add(hostileCase{name: "GET with a body mutation", method: http.MethodGet, path: "/graphql", body: gql(`mutation { deleteComment(input: {id: "x"}) { deletedCommentId } }`, nil)})
	// --- other methods and paths
	for _, m := range []string{http.MethodPut, http.MethodDelete, http.MethodPatch, "PROPFIND"} {
		add(hostileCase{name: m + " /graphql", method: m, body: ok, status: http.StatusMethodNotAllowed, code: "METHOD_NOT_ALLOWED"})
	}
	add(hostileCase{name: "POST /healthz", path: "/healthz", body: ok})
	add(hostileCase{name: "GET /nope", method: http.MethodGet, path: "/nope"})
	add(hostileCase{name: "GET /graphql/x", method: http.MethodGet, path: "/graphql/x", status: http.StatusNotFound, code: "NOT_FOUND"})
	add(hostileCase{name: "POST / (GraphiQL)", path: "/", body: ok})
	return cs
}

// hostileResult checks one response: a 4xx, or a GraphQL error whose every
// entry has extensions.code (and the first one code when set).
func hostileResult(c hostileCase, status int, body []byte) error {
	if status >= 500 {
		return fmt.Errorf("HTTP %d (a 5xx is never allowed): %.300s", status, body)
	}
	if c.status != 0 && status != c.status {
		return fmt.Errorf("want HTTP %d, got %d: %.300s", c.status, status, body)
	}
	var r struct {
		Errors []gqltest.Error `json:"errors"`
	}
	jsonErr := json.Unmarshal(body, &r)
	if c.code != "" {
		switch {
		case jsonErr != nil || len(r.Errors) == 0:
			return fmt.Errorf("want a %s error, got HTTP %d: %.300s", c.code, status, body)
		case r.Errors[0].Code() != c.code:
			return fmt.Errorf("want extensions.code %s, got HTTP %d: %.300s", c.code, status, body)
		}
	}
	if status >= 400 {
		return nil
	}
	if c.lenient != "" && status == http.StatusOK && jsonErr == nil && len(r.Errors) == 0 {
		return errLenient
	}
	if jsonErr != nil || len(r.Errors) == 0 {
		return fmt.Errorf("want a 4xx or a GraphQL error, got HTTP %d: %.300s", status, body)
	}
	for _, e := range r.Errors {
		if e.Code() == "" {
			return fmt.Errorf("HTTP %d with an error without extensions.code: %.300s", status, body)
		}
	}
	return nil
}

var errLenient = errors.New("accepted (a known leniency)")

func sendHostile(ctx context.Context, client *http.Client, base string, c hostileCase) (int, []byte, error) {
	method := c.method
	if method == "" {
		method = http.MethodPost
	}
	path := c.path
	if path == "" {
		path = "/graphql"
	}
	var rd io.Reader
	if c.body != nil {
		rd = bytes.NewReader(c.body)
		if c.chunked {
			rd = io.MultiReader(rd) // hides the length: sent chunked
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if c.header != nil {
		for k, v := range c.header {
			req.Header.Set(k, v)
		}
	} else if c.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	return resp.StatusCode, b, err
}

// TestHostileRequestsAreRefusedWithACode: every malformed or abusive
// request gets a 4xx or coded GraphQL errors, never a 5xx, and the server
// answers normally afterwards.
func TestHostileRequestsAreRefusedWithACode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the binary")
	}
	s := MustStartServer(t, "-store", "bolt:hostile.db", "-max-aliases", "100", "-max-complexity", "10000")
	client := &http.Client{Timeout: e2eRequestTimeout, Transport: &http.Transport{Proxy: nil}}
	defer client.CloseIdleConnections()

	// One real comment, so that updates and deletes of a valid id and a
	// real cursor exist.
	var created struct {
		CreateComment struct {
			Comment struct{ ID string } `json:"comment"`
		} `json:"createComment"`
	}
	MustQuery(t, s, hMCreate, map[string]any{"in": with(validCreate(), "rating", 5)}, &created)
	id := created.CreateComment.Comment.ID
	var page struct {
		Product struct {
			Comments struct {
				Edges []struct{ Cursor string } `json:"edges"`
			} `json:"comments"`
		} `json:"product"`
	}
	MustQuery(t, s, hQComments, map[string]any{"pid": "hostile-p"}, &page)
	if len(page.Product.Comments.Edges) != 1 {
		t.Fatalf("want 1 comment, got %+v", page)
	}
	cursor := page.Product.Comments.Edges[0].Cursor

	cases := hostileCases(id, cursor)
	t.Logf("%d hostile requests", len(cases))
	status4xx, statusOther := 0, 0
	var findings []string
	for _, c := range cases {
		ctx, cancel := context.WithTimeout(context.Background(), e2eRequestTimeout)
		status, body, err := sendHostile(ctx, client, s.URL, c)
		cancel()
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if err := hostileResult(c, status, body); errors.Is(err, errLenient) {
			findings = append(findings, fmt.Sprintf("%s: HTTP %d %.120s — %s", c.name, status, bytes.TrimSpace(body), c.lenient))
		} else if err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if status >= 400 && status < 500 {
			status4xx++
		} else {
			statusOther++
		}
		if testing.Verbose() {
			t.Logf("%-50.50s HTTP %d %.160s", c.name, status, bytes.TrimSpace(body))
		}
	}
	t.Logf("%d answered 4xx, %d with a coded GraphQL error or success (%d known leniencies)", status4xx, statusOther, len(findings))
	for _, f := range findings {
		t.Logf("known leniency: %s", f)
	}

	// Nothing the barrage did changed the one comment (GET mutations above
	// tried to delete it).
	var got struct {
		Comment *struct{ ID string } `json:"comment"`
	}
	MustQuery(t, s, hQComment, map[string]any{"id": id}, &got)
	if got.Comment == nil || got.Comment.ID != id {
		t.Errorf("comment %s is gone after the barrage (a GET mutation ran?)", id)
	}
	// The server still answers.
	var after struct {
		Product struct {
			Stats    struct{ Total int } `json:"stats"`
			Comments struct {
				TotalCount int `json:"totalCount"`
			} `json:"comments"`
		} `json:"product"`
	}
	MustQuery(t, s, `{ product(id: "hostile-p") { stats { total } comments(first: 5) { totalCount } } }`, nil, &after)
	// (a lenient create may have added a comment)
	if after.Product.Stats.Total < 1 || after.Product.Comments.TotalCount != after.Product.Stats.Total {
		t.Errorf("after the barrage: stats %+v", after)
	}
	ctx, cancel := context.WithTimeout(context.Background(), e2eRequestTimeout)
	defer cancel()
	status, body, err := sendHostile(ctx, client, s.URL, hostileCase{method: http.MethodGet, path: "/healthz"})
	if err != nil || status != http.StatusOK {
		t.Errorf("/healthz after the barrage: HTTP %d %q %v", status, body, err)
	}
}
