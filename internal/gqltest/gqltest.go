package gqltest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// DefaultTimeout bounds each request of a Client without its own HTTP
// client.
const DefaultTimeout = 60 * time.Second

// maxBody is the most of an answer a Client reads.
const maxBody = 64 << 20

// Client sends requests to one GraphQL endpoint.
type Client struct {
	// URL is the endpoint, such as srv.URL+"/graphql"; Send appends its
	// path suffix to it.
	URL string
	// HTTP sends the requests.
	HTTP *http.Client
}

// New returns a client of the endpoint url that bounds each request by
// DefaultTimeout and never uses a proxy (the endpoint is 127.0.0.1).
func New(url string) *Client {
	return &Client{URL: url, HTTP: &http.Client{
		Timeout:   DefaultTimeout,
		Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 32, IdleConnTimeout: 30 * time.Second},
	}}
}

// Do sends query with vars (nil: none), shaped by opts, and decodes the
// answer whatever its HTTP status. It fails only when no answer came or the
// answer is not a GraphQL response.
func (c *Client) Do(ctx context.Context, query string, vars map[string]any, opts ...Option) (*Response, error) {
	req := newRequest(query, vars, opts)
	suffix, body, err := req.encode()
	if err != nil {
		return nil, err
	}
	r, err := c.send(ctx, req.method, suffix, body, req.header)
	if err != nil {
		return r, err
	}
	return r, r.decode()
}

// Send sends body (nil: none) by method to the endpoint's URL plus suffix
// ("?query=…", "/x"), with the headers of opts, and returns the answer
// whatever it is; its GraphQL fields are filled when the body is a GraphQL
// response. A body is sent as application/json unless opts say otherwise.
func (c *Client) Send(ctx context.Context, method, suffix string, body []byte, opts ...Option) (*Response, error) {
	req := newRequest("", nil, opts)
	if body != nil && req.header.Get("Content-Type") == "" {
		req.header.Set("Content-Type", "application/json")
	}
	r, err := c.send(ctx, method, suffix, body, req.header)
	if err == nil {
		_ = r.decode() // not a GraphQL response: the test reads Body
	}
	return r, err
}

// send does one HTTP exchange and reads the whole answer.
func (c *Client) send(ctx context.Context, method, suffix string, body []byte, header http.Header) (*Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	hr, err := http.NewRequestWithContext(ctx, method, c.URL+suffix, rd)
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		hr.Header[k] = v
	}
	resp, err := c.HTTP.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, c.URL+suffix, err)
	}
	defer resp.Body.Close()
	r := &Response{Status: resp.StatusCode, Header: resp.Header}
	if r.Body, err = io.ReadAll(io.LimitReader(resp.Body, maxBody)); err != nil {
		return r, fmt.Errorf("%s %s: reading the body: %w", method, c.URL+suffix, err)
	}
	return r, nil
}

// MustDo is Do that fails tb when no GraphQL response came.
func (c *Client) MustDo(tb testing.TB, query string, vars map[string]any, opts ...Option) *Response {
	tb.Helper()
	r, err := c.Do(context.Background(), query, vars, opts...)
	if err != nil {
		tb.Fatalf("%v\nquery: %s", err, oneLine(query))
	}
	return r
}

// MustQuery is Do that must succeed (HTTP 200, no errors); it decodes data
// into out (when not nil).
func (c *Client) MustQuery(tb testing.TB, query string, vars map[string]any, out any, opts ...Option) *Response {
	tb.Helper()
	r := c.MustDo(tb, query, vars, opts...)
	if r.Status != http.StatusOK || len(r.Errors) > 0 {
		tb.Fatalf("HTTP %d, errors: %s\nquery: %s", r.Status, r.RawErrors, oneLine(query))
	}
	if out != nil {
		if err := r.Decode(out); err != nil {
			tb.Fatal(err)
		}
	}
	return r
}

// MustSend is Send that fails tb when no answer came.
func (c *Client) MustSend(tb testing.TB, method, suffix string, body []byte, opts ...Option) *Response {
	tb.Helper()
	r, err := c.Send(context.Background(), method, suffix, body, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// oneLine is s with its runs of white space made one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Error is one entry of a response's errors.
type Error struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path"`
	Extensions map[string]any `json:"extensions"`
}

// Code is the error's extensions.code ("" when it has none).
func (e Error) Code() string {
	c, _ := e.Extensions["code"].(string)
	return c
}

// PathString is the error's path joined with "/".
func (e Error) PathString() string {
	parts := make([]string, len(e.Path))
	for i, p := range e.Path {
		parts[i] = fmt.Sprint(p)
	}
	return strings.Join(parts, "/")
}

// Response is one answer: its HTTP status, headers and body, and the body
// decoded as a GraphQL response (when it is one).
type Response struct {
	Status int         `json:"-"`
	Header http.Header `json:"-"`
	Body   []byte      `json:"-"`

	Data       json.RawMessage `json:"data"`
	Errors     []Error         `json:"errors"`
	RawErrors  json.RawMessage `json:"-"` // errors as sent ("" without)
	Extensions map[string]any  `json:"extensions"`
}

// Code is the first error's extensions.code ("" without errors).
func (r *Response) Code() string {
	if len(r.Errors) == 0 {
		return ""
	}
	return r.Errors[0].Code()
}

// ErrorSummary is the errors on one line: code, message and path of each.
func (r *Response) ErrorSummary() string {
	var parts []string
	for _, e := range r.Errors {
		parts = append(parts, fmt.Sprintf("%s: %s (path %v)", e.Code(), e.Message, e.Path))
	}
	return strings.Join(parts, "; ")
}

// Decode decodes data into out.
func (r *Response) Decode(out any) error {
	if err := json.Unmarshal(r.Data, out); err != nil {
		return fmt.Errorf("decoding data: %v: %.500s", err, r.Data)
	}
	return nil
}

// decode fills r's GraphQL fields from its body.
func (r *Response) decode() error {
	var raw struct {
		Errors json.RawMessage `json:"errors"`
	}
	if err := json.Unmarshal(r.Body, r); err != nil {
		return fmt.Errorf("HTTP %d: not a GraphQL response (%v): %.500s", r.Status, err, r.Body)
	}
	if err := json.Unmarshal(r.Body, &raw); err == nil && string(raw.Errors) != "null" {
		r.RawErrors = raw.Errors
	}
	return nil
}
