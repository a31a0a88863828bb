package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// filter selects the comments of a page: a language and ratings, or none.
type filter struct {
	language string
	ratings  []int
}

// dialect is how one system spells the page query and where the connection
// sits in its reply.
type dialect struct {
	query string
	vars  func(product string, f *filter, after string) map[string]any
	conn  func(data json.RawMessage) (*connection, error)
}

// The same selection on both systems: totalCount, pageInfo, cursors and six
// comment fields, 20 a page, newest first (ties by id, descending).
var gatewayDialect = dialect{
	query: `query Page($p: ID!, $lang: String, $r: [Int!], $after: String) { product(id: $p) {
	comments(language: $lang, ratings: $r, first: 20, after: $after) { totalCount pageInfo { hasNextPage endCursor }
		edges { cursor node { id rating language author title body createdAt } } } } }`,
	vars: func(p string, f *filter, after string) map[string]any {
		v := map[string]any{"p": p, "after": nilIfEmpty(after)}
		if f != nil {
			v["lang"], v["r"] = f.language, f.ratings
		}
		return v
	},
	conn: func(data json.RawMessage) (*connection, error) {
		var d struct {
			Product *struct{ Comments *connection }
		}
		if err := json.Unmarshal(data, &d); err != nil || d.Product == nil || d.Product.Comments == nil {
			return nil, fmt.Errorf("no product.comments in %.200s", data)
		}
		return d.Product.Comments, nil
	},
}

// postgraphileDialects are the page query of each PostGraphile major
// version, with postgraphile-plugin-connection-filter: version 5 names the
// row's id column rowId (its id is the node id) and its ordering enum
// CommentOrderBy, so its query aliases rowId as id and the replies decode
// alike.
var postgraphileDialects = map[int]dialect{
	4: postgraphileDialect(`query Page($p: String!, $filter: CommentFilter, $after: Cursor) {
	allComments(condition: {productId: $p}, filter: $filter, orderBy: [CREATED_AT_DESC, ID_DESC], first: 20, after: $after) {
		totalCount pageInfo { hasNextPage endCursor }
		edges { cursor node { id rating language author title body createdAt } } } }`),
	5: postgraphileDialect(`query Page($p: String!, $filter: CommentFilter, $after: Cursor) {
	allComments(condition: {productId: $p}, filter: $filter, orderBy: [CREATED_AT_DESC, ROW_ID_DESC], first: 20, after: $after) {
		totalCount pageInfo { hasNextPage endCursor }
		edges { cursor node { id: rowId rating language author title body createdAt } } } }`),
}

// postgraphileDialect is PostGraphile's dialect with its page query: the
// filter as the connection filter spells it, the connection at allComments.
func postgraphileDialect(query string) dialect {
	return dialect{
		query: query,
		vars: func(p string, f *filter, after string) map[string]any {
			v := map[string]any{"p": p, "after": nilIfEmpty(after)}
			if f != nil {
				v["filter"] = map[string]any{
					"language": map[string]any{"equalTo": f.language},
					"rating":   map[string]any{"in": f.ratings},
				}
			}
			return v
		},
		conn: func(data json.RawMessage) (*connection, error) {
			var d struct{ AllComments *connection }
			if err := json.Unmarshal(data, &d); err != nil || d.AllComments == nil {
				return nil, fmt.Errorf("no allComments in %.200s", data)
			}
			return d.AllComments, nil
		},
	}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// connection is the part of a page both systems answer alike.
type connection struct {
	TotalCount int
	PageInfo   struct {
		HasNextPage bool
		EndCursor   string
	}
	Edges []struct {
		Cursor string
		Node   struct{ ID string }
	}
}

func (c *connection) ids() []string {
	ids := make([]string, len(c.Edges))
	for i, e := range c.Edges {
		ids[i] = e.Node.ID
	}
	return ids
}

// system is one of the two servers under load.
type system struct {
	name    string
	dialect dialect
	client  *client
	pids    []int
	noTotal bool // leave totalCount out of the selection
}

// page requests one page of the list f selects, after the cursor (""
// for page 1), twice, and returns the exchange the load replays for it
// (the request body and the second reply) and the page decoded.
func (s *system) page(ctx context.Context, product string, f *filter, after string) (*exchange, *connection, error) {
	q := s.dialect.query
	if s.noTotal {
		q = strings.Replace(q, "totalCount ", "", 1)
	}
	body, err := json.Marshal(map[string]any{"query": q, "variables": s.dialect.vars(product, f, after)})
	if err != nil {
		return nil, nil, err
	}
	// The reply recorded is the second to the same request: the steady
	// state the load sees. A first request may read what later ones are
	// answered as last read (the gateway's stats), and its extensions
	// then count reads that later replies do not.
	var status int
	var reply []byte
	for range 2 {
		if status, reply, err = s.client.send(ctx, body); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	data, err := graphqlData(status, reply)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", s.name, err)
	}
	c, err := s.dialect.conn(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", s.name, err)
	}
	return &exchange{body: body, reply: reply, want: summary(c), conn: s.dialect.conn}, c, nil
}

// pickProduct is, of the gateway's 100 leading products, the one with the
// fewest comments matching f that still has need of them (so that the
// deep page and the walk exist and totalCount counts no more than it must),
// or the one with the most when none has enough.
func (s *system) pickProduct(ctx context.Context, f *filter, need int) (string, error) {
	data, err := s.client.post(ctx, `query Pick($lang: String, $r: [Int!]) { topProducts(first: 100) {
		product { id comments(language: $lang, ratings: $r, first: 0) { totalCount } } } }`,
		map[string]any{"lang": f.language, "r": f.ratings})
	if err != nil {
		return "", err
	}
	var top struct {
		TopProducts []struct {
			Product struct {
				ID       string
				Comments struct{ TotalCount int }
			}
		}
	}
	if err := json.Unmarshal(data, &top); err != nil || len(top.TopProducts) == 0 {
		return "", errors.New("the gateway's leaderboard is empty: load data first, or pass -product")
	}
	best, most := -1, 0
	for i, t := range top.TopProducts {
		n := t.Product.Comments.TotalCount
		if n >= need && (best < 0 || n < top.TopProducts[best].Product.Comments.TotalCount) {
			best = i
		}
		if n > top.TopProducts[most].Product.Comments.TotalCount {
			most = i
		}
	}
	if best < 0 {
		best = most
	}
	return top.TopProducts[best].Product.ID, nil
}

// client posts GraphQL requests to one endpoint over kept-alive connections.
// Its requests are bounded in time by their context (send's timeout, the
// load's deadline), not by http.Client.Timeout, which would cost a copy of
// the request and a timer on every request.
type client struct {
	url  string
	http *http.Client
}

// newClient keeps up to conc connections open to url, one per load client,
// and opens no more (a client waits for its own connection's reply).
func newClient(url string, conc int) *client {
	tr := &http.Transport{MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc, Proxy: nil,
		DisableCompression: true} // replies are compared as sent, as wrk receives them
	return &client{url: url, http: &http.Client{Transport: tr}}
}

// post sends one operation and returns its data, or an error for a transport
// failure, a status other than 200 or any GraphQL error.
func (c *client) post(ctx context.Context, query string, vars map[string]any) (json.RawMessage, error) {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return nil, err
	}
	status, reply, err := c.send(ctx, body)
	if err != nil {
		return nil, err
	}
	return graphqlData(status, reply)
}

// requestTimeout bounds every request of the walk, and each load client's
// requests beyond the end of the run.
const requestTimeout = 60 * time.Second

// send posts one encoded request and returns the reply's status and bytes.
func (c *client) send(ctx context.Context, body []byte) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	k, err := c.caller(ctx)
	if err != nil {
		return 0, nil, err
	}
	status, reply, err := k.post(body)
	return status, bytes.Clone(reply), err
}
