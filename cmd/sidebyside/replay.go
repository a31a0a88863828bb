package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
)

// exchange is one page request as the load replays it on one system: the
// request body, encoded once, and what the verified walk got for it (the
// reply's bytes and the page it decoded to).
type exchange struct {
	body  []byte
	reply []byte
	want  pageSummary
	conn  func(data json.RawMessage) (*connection, error) // the system's dialect
}

// pageSummary is what a reply must say for its page to count as right: the
// walk compared exactly this between the two systems.
type pageSummary struct {
	ids         []string
	totalCount  int
	hasNextPage bool
}

func summary(c *connection) pageSummary {
	return pageSummary{ids: c.ids(), totalCount: c.TotalCount, hasNextPage: c.PageInfo.HasNextPage}
}

func (p pageSummary) equal(q pageSummary) bool {
	return slices.Equal(p.ids, q.ids) && p.totalCount == q.totalCount && p.hasNextPage == q.hasNextPage
}

func (p pageSummary) String() string {
	return fmt.Sprintf("%d ids %v, totalCount %d, hasNextPage %t", len(p.ids), p.ids, p.totalCount, p.hasNextPage)
}

// check judges one reply to the exchange's request. A 200 reply whose bytes
// equal the walk's is right without decoding (the fast path). Any other
// reply is decoded as the walk decoded it (slow is true): right when it has
// no GraphQL error and the same ids, totalCount and hasNextPage as the
// walk's page, whatever else differs (spacing, key order, extensions).
func (x *exchange) check(status int, reply []byte) (slow bool, err error) {
	if status == http.StatusOK && bytes.Equal(reply, x.reply) {
		return false, nil
	}
	data, err := graphqlData(status, reply)
	if err != nil {
		return true, err
	}
	c, err := x.conn(data)
	if err != nil {
		return true, err
	}
	if got := summary(c); !got.equal(x.want) {
		return true, fmt.Errorf("got %v, want %v", got, x.want)
	}
	return true, nil
}

// graphqlData is the data of a GraphQL reply, or an error for a status
// other than 200, a body that is not a GraphQL response, or any GraphQL
// error.
func graphqlData(status int, reply []byte) (json.RawMessage, error) {
	var r struct {
		Data   json.RawMessage
		Errors []struct{ Message string }
	}
	if err := json.Unmarshal(reply, &r); err != nil {
		return nil, fmt.Errorf("HTTP %d: %.200s", status, reply)
	}
	if status != http.StatusOK || len(r.Errors) > 0 {
		return nil, fmt.Errorf("HTTP %d: %.300s", status, reply)
	}
	return r.Data, nil
}

// caller is one load client's line to a system: one request value and one
// read buffer reused for every request it sends, over the client's kept-alive
// connections. Not safe for concurrent use.
type caller struct {
	http *http.Client
	req  *http.Request
	body bytes.Reader
	rc   io.ReadCloser // body, as req.Body
	buf  bytes.Buffer
}

func (c *client) caller(ctx context.Context) (*caller, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	k := &caller{http: c.http, req: req}
	k.rc = io.NopCloser(&k.body)
	return k, nil
}

// post sends body and returns the reply's status and bytes; the bytes are
// valid until the next post.
func (k *caller) post(body []byte) (int, []byte, error) {
	k.body.Reset(body)
	k.req.Body, k.req.ContentLength = k.rc, int64(len(body))
	resp, err := k.http.Do(k.req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	k.buf.Reset()
	if _, err := k.buf.ReadFrom(resp.Body); err != nil {
		return 0, nil, err
	}
	return resp.StatusCode, k.buf.Bytes(), nil
}
