package e2e

// The HTTP edge of the hostile suite: requests that are not well-formed
// GraphQL over HTTP, sent to the plain binary in production mode
// (introspection off). Each must get its status and extensions.code within
// the budgets of runBudget, and the reply must not echo the body, a Go type
// name, a socket address or a schema name the client did not write.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestBudgetHTTPEdgeRefusalsAreCheap is the HTTP-edge rows of the hostile
// table (issue 12).
func TestBudgetHTTPEdgeRefusalsAreCheap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the binary")
	}
	// A 1 s read timeout, so that the stalled body is refused quickly.
	s := MustStartBudgetServer(t, "-store", "bolt:budget-http.db", "-read-timeout", "1s")
	unknownFields := func(n int) string {
		var b strings.Builder
		b.WriteString("{ ")
		for i := range n {
			fmt.Fprintf(&b, "f%d ", i)
		}
		b.WriteString("}")
		return b.String()
	}
	invalidJSON := append([]byte(`{"query":"{ __typename }","variables":{"x":"`), bytes.Repeat([]byte("secret-"), (1<<20-100)/7)...)
	const mutation = `mutation M($in: CreateCommentInput!) { createComment(input: $in) { comment { id } } }`
	getMutation := "/graphql?" + url.Values{"query": {`mutation { deleteComment(input: {id: "x"}) { deletedCommentId } }`}}.Encode()
	hc := func(name string, body []byte, status int, code string) hostileCase {
		return hostileCase{name: name, body: body, status: status, code: code}
	}
	cases := []httpCase{
		// 9,000 fields are over the selection cap: refused before
		// validation, one error.
		{hostileCase: hc("9000 unknown fields", gql(unknownFields(9000), nil), 422, "SELECTION_LIMIT_EXCEEDED")},
		// 900 fit under the cap and fail validation: 20 errors and a count.
		{hostileCase: hc("900 unknown fields", gql(unknownFields(900), nil), 422, validation),
			check: (replyHas(`"TOO_MANY_ERRORS"`, `880 more errors`))},
		{hostileCase: hc("1 MiB of invalid JSON", invalidJSON, 400, "BAD_REQUEST"), check: (replyLacks("secret-", "Go value", "map[string]"))},
		{hostileCase: hc("query of the wrong JSON type", []byte(`{"query":{"a":1}}`), 400, "BAD_REQUEST"), check: (replyLacks("Go value", "Go struct", "string"+" into"))},
		{hostileCase: hc("variables of the wrong JSON type", []byte(`{"query":"{ __typename }","variables":"x"}`), 400, "BAD_REQUEST"), check: (replyLacks("Go value", "map[string]"))},
		{hostileCase: hc("a body that stalls after its headers", nil, 408, "REQUEST_TIMEOUT"), send: sendStalled},
		{hostileCase: hc("2 MB mutation body", mutationBody(mutation, 2<<20), 413, "REQUEST_TOO_LARGE")},
		{hostileCase: hostileCase{name: "2 MB mutation body, chunked", body: mutationBody(mutation, 2<<20), chunked: true, status: 413, code: "REQUEST_TOO_LARGE"}},
		{hostileCase: hc("64 MB body", nil, 413, "REQUEST_TOO_LARGE"), send: sendLarge(64<<20, false)},
		{hostileCase: hc("64 MB body, chunked", nil, 413, "REQUEST_TOO_LARGE"), send: sendLarge(64<<20, true)},
		{hostileCase: hc("64 MB body sent whole before reading", nil, 413, "REQUEST_TOO_LARGE"), send: sendWhole(64<<20, false)},
		{hostileCase: hc("64 MB body sent whole before reading, chunked", nil, 413, "REQUEST_TOO_LARGE"), send: sendWhole(64<<20, true)},
		{hostileCase: hc("misspelled argument", gql(`{ product(id: "p") { comments(frist: 1) { totalCount } } }`, nil), 422, validation),
			check: (replyLacks("Did you mean", `"first`, "first:"))},
		{hostileCase: hc("misspelled input field", gql(`mutation { updateComment(input: {id: "x", titel: "t"}) { comment { id } } }`, nil), 422, validation),
			check: (replyLacks("Did you mean", "title"))},
		{hostileCase: hc("misspelled fragment type", gql(`{ ...F } fragment F on Quer { __typename }`, nil), 422, validation),
			check: (replyLacks("Did you mean", `"Query"`))},
		{hostileCase: hc("misspelled field", gql(`{ product(id: "p") { comemnts { totalCount } } }`, nil), 422, validation),
			check: (replyLacks("Did you mean", "comments"))},
		{hostileCase: hostileCase{name: "Content-Type text/plain", body: gql(`{ __typename }`, nil), header: map[string]string{"Content-Type": "text/plain"}, status: 415, code: "UNSUPPORTED_MEDIA_TYPE"},
			check: (replyHas("application/json"))},
		{hostileCase: hostileCase{name: "GET with a mutation", method: http.MethodGet, path: getMutation, status: 405, code: "METHOD_NOT_ALLOWED"},
			check: header("Allow", "POST")},
		{hostileCase: hostileCase{name: "PUT", method: http.MethodPut, body: gql(`{ __typename }`, nil), status: 405, code: "METHOD_NOT_ALLOWED"},
			check: header("Allow", "GET, POST, OPTIONS")},
		{hostileCase: hostileCase{name: "a path under /graphql", method: http.MethodGet, path: "/graphql/x", status: 404, code: "NOT_FOUND"}},
		{hostileCase: hc("invalid UTF-8 in the body", []byte("{\"query\":\"{ product(id: \\\"\xff\\\") { id } }\"}"), 400, badInput)},
		{hostileCase: hostileCase{name: "invalid UTF-8 in the query string", method: http.MethodGet, path: "/graphql?query=%7B%20product(id%3A%20%22%FF%22)%20%7B%20id%20%7D%20%7D", status: 400, code: badInput}},
		{hostileCase: hc("a lone surrogate escape", []byte(`{"query":"query($id: ID!) { comment(id: $id) { id } }","variables":{"id":"\ud800"}}`), 400, badInput)},
		{hostileCase: hostileCase{name: "a WebSocket upgrade", method: http.MethodGet, header: map[string]string{"Upgrade": "websocket", "Connection": "Upgrade"}, status: 400, code: "BAD_REQUEST"}},
		{hostileCase: hc("a representation of the wrong JSON type", gql(`{ _entities(representations: ["x"]) { ... on Product { id } } }`, nil), 200, badInput),
			check: replyLacks("is not a map", "string is")},
		{hostileCase: hc("the string \"10\" for an Int", gql(`query($f: Int) { topProducts(first: $f) { rank } }`, map[string]any{"f": "10"}), 422, validation),
			check: (replyHas(`Int cannot represent non-integer value: \"10\"`))},
		{hostileCase: hc("a required variable missing", gql(`query($id: ID!) { comment(id: $id) { id } }`, nil), 422, validation),
			check: (replyHas(`Variable \"$id\" of required type \"ID!\" was not provided.`))},
		{hostileCase: hc("two operations without operationName", gql(`query A { __typename } query B { __typename }`, nil), 422, validation),
			check: (replyHas("Must provide operation name if query contains multiple operations."))},
	}
	budget := make([]budgetCase, len(cases))
	for i, c := range cases {
		budget[i] = budgetCase{hostileCase: c.hostileCase, send: c.send}
		if c.check != nil {
			budget[i].send = checked(c.hostileCase, c.check)
		}
	}
	runBudget(t, s, budget)
}

// httpCase is a budgetCase with an extra check of the reply.
type httpCase struct {
	hostileCase
	check func(h http.Header, body []byte) error
	send  sendFunc
}

// mutationBody is a createComment request whose comment body makes the
// request size bytes long.
func mutationBody(mutation string, size int) []byte {
	in := validCreate()
	in["body"] = ""
	b := gql(mutation, map[string]any{"in": in})
	in["body"] = strings.Repeat("x", size-len(b))
	return gql(mutation, map[string]any{"in": in})
}

type sendFunc = func(ctx context.Context, client *http.Client, base string) (int, []byte, error)

// checked sends c as sendHostile does and fails the send when check finds
// something wrong with the reply (the status and code are runBudget's).
func checked(c hostileCase, check func(h http.Header, body []byte) error) sendFunc {
	return func(ctx context.Context, client *http.Client, base string) (int, []byte, error) {
		status, h, body, err := sendHostileHeader(ctx, client, base, c)
		if err == nil {
			if cerr := check(h, body); cerr != nil {
				err = fmt.Errorf("the reply %.300s: %w", body, cerr)
			}
		}
		return status, body, err
	}
}

func replyHas(subs ...string) func(http.Header, []byte) error {
	return func(_ http.Header, body []byte) error {
		for _, s := range subs {
			if !bytes.Contains(body, []byte(s)) {
				return fmt.Errorf("lacks %q", s)
			}
		}
		return nil
	}
}

func replyLacks(subs ...string) func(http.Header, []byte) error {
	return func(_ http.Header, body []byte) error {
		for _, s := range subs {
			if bytes.Contains(body, []byte(s)) {
				return fmt.Errorf("has %q", s)
			}
		}
		return nil
	}
}

func header(name, want string) func(http.Header, []byte) error {
	return func(h http.Header, _ []byte) error {
		if got := h.Get(name); got != want {
			return fmt.Errorf("header %s is %q, want %q", name, got, want)
		}
		return nil
	}
}

// sendHostileHeader is sendHostile that also returns the reply's header.
func sendHostileHeader(ctx context.Context, client *http.Client, base string, c hostileCase) (int, http.Header, []byte, error) {
	var hdr http.Header
	rt := client.Transport
	spy := *client
	spy.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(r)
		if resp != nil {
			hdr = resp.Header
		}
		return resp, err
	})
	status, body, err := sendHostile(ctx, &spy, base, c)
	return status, hdr, body, err
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// dialServer opens a raw connection to the server at base, bounded by
// ctx's deadline, and returns it with the host for a Host header.
func dialServer(ctx context.Context, base string) (net.Conn, string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, "", err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return nil, "", err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	return conn, u.Host, nil
}

// sendStalled sends a POST's headers and the first bytes of its body, then
// nothing: the server's read timeout must end it with a 408 that names no
// socket address.
func sendStalled(ctx context.Context, client *http.Client, base string) (int, []byte, error) {
	return sendStalledWith("")(ctx, client, base)
}

// sendStalledWith is sendStalled with extra header lines ("Name: value\r\n").
func sendStalledWith(header string) sendFunc {
	return func(ctx context.Context, _ *http.Client, base string) (int, []byte, error) {
		return stalled(ctx, base, header)
	}
}

func stalled(ctx context.Context, base, header string) (int, []byte, error) {
	conn, host, err := dialServer(ctx, base)
	if err != nil {
		return 0, nil, err
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /graphql HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n%sContent-Length: 100\r\n\r\n{\"query\":", host, header)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && (bytes.Contains(body, []byte("127.0.0.1")) || bytes.Contains(body, []byte("tcp"))) {
		err = fmt.Errorf("the reply names the connection: %s", body)
	}
	return resp.StatusCode, body, err
}

// sendLarge streams a body of size bytes (with a Content-Length, or
// chunked) without holding it in memory; the client must read a 413, not
// a connection reset.
func sendLarge(size int64, chunked bool) sendFunc {
	return func(ctx context.Context, client *http.Client, base string) (int, []byte, error) {
		body := io.MultiReader(strings.NewReader(`{"query":"{ __typename }","variables":{"x":"`), io.LimitReader(spaces{}, size))
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/graphql", body)
		if err != nil {
			return 0, nil, err
		}
		if !chunked {
			req.ContentLength = size + int64(len(`{"query":"{ __typename }","variables":{"x":"`))
		}
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, fmt.Errorf("after %s: %w", time.Since(start).Round(time.Millisecond), err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}
}

// sendWhole writes a POST with a body of size bytes (with a
// Content-Length, or in 32 KiB chunks) over a raw connection, all of it,
// and only then reads the answer, as simple clients do: the server must
// drain the body rather than reset the connection.
func sendWhole(size int, chunked bool) sendFunc {
	return func(ctx context.Context, _ *http.Client, base string) (int, []byte, error) {
		conn, host, err := dialServer(ctx, base)
		if err != nil {
			return 0, nil, err
		}
		defer conn.Close()
		w := bufio.NewWriterSize(conn, 64<<10)
		chunk := bytes.Repeat([]byte(" "), 32<<10)
		if chunked {
			fmt.Fprintf(w, "POST /graphql HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n", host)
			for range size / len(chunk) {
				fmt.Fprintf(w, "%x\r\n%s\r\n", len(chunk), chunk)
			}
			fmt.Fprint(w, "0\r\n\r\n")
		} else {
			fmt.Fprintf(w, "POST /graphql HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", host, size)
			for range size / len(chunk) {
				_, _ = w.Write(chunk)
			}
		}
		if err := w.Flush(); err != nil {
			return 0, nil, fmt.Errorf("sending the body: %w", err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp.StatusCode, body, err
	}
}

// spaces is an endless reader of spaces.
type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}
