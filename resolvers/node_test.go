package resolvers_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/internal/policy"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// globalID is the documented global id format (package nodeid), written
// out here from its definition: unpadded URL-safe base64 of "TYPE:ID".
func globalID(typ, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(typ + ":" + id))
}

// collidingID is a comment id that is also a product id in nodeData.
const collidingID = "p1"

// nodeData is the test data set plus a comment whose id is a product's id
// (an import keeps ids as given), on product big.
func nodeData() []*store.Comment {
	return append(genComments(), &store.Comment{
		ID: collidingID, ProductID: bigID, Language: "en", Rating: 2, Author: "a",
		Title: "same id as a product", Body: "b", CreatedAt: t0.Add(-time.Hour),
	})
}

// nodeFields selects everything a node test checks.
const nodeFields = `__typename nodeId
	... on Product { id }
	... on Comment { id rating language title product { id } }`

// nodeResult is one decoded node (nil for null).
type nodeResult struct {
	Typename string `json:"__typename"`
	NodeID   string `json:"nodeId"`
	ID       string `json:"id"`
	Rating   int    `json:"rating"`
	Language string `json:"language"`
	Title    string `json:"title"`
	Product  *struct {
		ID string `json:"id"`
	} `json:"product"`
}

// wantNode is what node(id:) must return for the object typ/id of data:
// nil when it is not there.
func wantNode(data []*store.Comment, typ, id string) *nodeResult {
	if typ == "Product" {
		return &nodeResult{Typename: typ, NodeID: globalID(typ, id), ID: id}
	}
	for _, c := range data {
		if c.ID == id {
			r := &nodeResult{Typename: typ, NodeID: globalID(typ, id), ID: id, Rating: c.Rating, Language: c.Language, Title: c.Title}
			r.Product = &struct {
				ID string `json:"id"`
			}{c.ProductID}
			return r
		}
	}
	return nil
}

func quoteAll(ids []string) string {
	b, _ := json.Marshal(ids)
	return string(b)
}

// TestNodesOrderNullsAndOneBatch: nodes keeps the order and length of its
// ids, answers null (no error) for unknown and malformed ids, keeps a
// product and a comment with the same id apart, and reads every comment in
// one BatchGet of exactly the distinct comment ids, nothing else.
func TestNodesOrderNullsAndOneBatch(t *testing.T) {
	e := MustEnvData(t, nodeData(), resolvers.Config{LoaderWait: testLoaderWait})
	type ask struct{ typ, id string } // typ "" = a malformed global id, id is the raw argument
	asks := []ask{
		{"Comment", "big-c007"},
		{"Product", "p3"},
		{"Comment", "no-such-comment"}, // unknown: null
		{"Comment", collidingID},       // the comment p1 …
		{"Product", collidingID},       // … and the product p1
		{"", "not base64!"},
		{"", globalID("Comment", "")},                                   // empty id
		{"", globalID("Comment", "a/b")},                                // an id no comment can have
		{"", globalID("Shop", "p3")},                                    // unknown type
		{"", globalID("Comment", "p3-c001") + "="},                      // padded: another spelling
		{"", strings.TrimSuffix(globalID("Product", "p3x"), "g") + "h"}, // non-zero padding bits
		{"", ""},
		{"Comment", "p3-c001"},
		{"Comment", "big-c007"}, // a duplicate is answered twice, read once
		{"Product", "no-comments-at-all"},
	}
	ids := make([]string, len(asks))
	var want []*nodeResult
	wantKeys := map[table.Key]bool{}
	for i, a := range asks {
		if a.typ == "" {
			ids[i] = a.id
			want = append(want, nil)
			continue
		}
		ids[i] = globalID(a.typ, a.id)
		want = append(want, wantNode(e.data, a.typ, a.id))
		if a.typ == "Comment" {
			wantKeys[store.CommentKey(a.id)] = true
		}
	}
	e.spy.Reset()
	var got struct{ Nodes []*nodeResult }
	e.MustQuery(t, fmt.Sprintf(`{ nodes(ids: %s) { %s } }`, quoteAll(ids), nodeFields), &got)
	if len(got.Nodes) != len(ids) {
		t.Fatalf("nodes returned %d entries for %d ids", len(got.Nodes), len(ids))
	}
	for i := range ids {
		g, _ := json.Marshal(got.Nodes[i])
		w, _ := json.Marshal(want[i])
		if string(g) != string(w) {
			t.Errorf("nodes[%d] (%v) = %s, want %s", i, asks[i], g, w)
		}
	}
	keys := e.spy.MustOneBatchGet(t)
	if len(keys) != len(wantKeys) {
		t.Errorf("BatchGet keys %v, want the %d distinct comment ids", keys, len(wantKeys))
	}
	for _, k := range keys {
		if !wantKeys[k] {
			t.Errorf("unexpected BatchGet key %v", k)
		}
	}
	if n := e.spy.TotalCalls(); n != 1 {
		t.Errorf("store calls = %d (%s), want the one BatchGet", n, e.spy.CallsString())
	}
}

// TestNodeMatchesProductAndComment: node(id:) answers what product(id:) and
// comment(id:) answer, through the nodeId they return; an unknown or
// malformed id is null without an error.
func TestNodeMatchesProductAndComment(t *testing.T) {
	e := MustEnvData(t, nodeData(), resolvers.Config{LoaderWait: testLoaderWait})
	var ids struct {
		Product struct{ NodeID string }
		Comment struct{ NodeID string }
	}
	e.MustQuery(t, `{ product(id: "big") { nodeId } comment(id: "big-c003") { nodeId } }`, &ids)
	if ids.Product.NodeID != globalID("Product", "big") || ids.Comment.NodeID != globalID("Comment", "big-c003") {
		t.Fatalf("nodeIds %+v, want the documented format", ids)
	}
	for _, tc := range []struct {
		arg  string
		want *nodeResult
	}{
		{ids.Product.NodeID, wantNode(e.data, "Product", "big")},
		{ids.Comment.NodeID, wantNode(e.data, "Comment", "big-c003")},
		{globalID("Comment", "gone"), nil},
		{"%%%", nil},
		{strings.Repeat("A", 10_000), nil},
	} {
		var got struct{ Node *nodeResult }
		r := e.MustQuery(t, fmt.Sprintf(`{ node(id: %q) { %s } }`, tc.arg, nodeFields), &got)
		g, _ := json.Marshal(got.Node)
		w, _ := json.Marshal(tc.want)
		if string(g) != string(w) || len(r.Errors) != 0 {
			t.Errorf("node(%.40q) = %s (errors %s), want %s", tc.arg, g, r.RawErrors, w)
		}
	}
}

// TestNodesLimits: 100 ids are one BatchGet of 100 keys; 101 are a
// BAD_USER_INPUT error before any read; the complexity counts ids × the
// selection, like any list.
func TestNodesLimits(t *testing.T) {
	e := MustEnvData(t, nodeData(), resolvers.Config{LoaderWait: testLoaderWait, Limits: policy.Limits{MaxComplexity: 301}})
	var ids []string
	for _, c := range e.data[:101] {
		ids = append(ids, globalID("Comment", c.ID))
	}

	e.spy.Reset()
	var got struct{ Nodes []*nodeResult }
	e.MustQuery(t, fmt.Sprintf(`{ nodes(ids: %s) { nodeId ... on Comment { id rating } } }`, quoteAll(ids[:100])), &got)
	if keys := e.spy.MustOneBatchGet(t); len(keys) != 100 {
		t.Errorf("100 ids: BatchGet of %d keys, want 100", len(keys))
	}
	for i, n := range got.Nodes {
		if n == nil || n.ID != e.data[i].ID || n.Rating != e.data[i].Rating {
			t.Fatalf("nodes[%d] = %+v, want comment %s", i, n, e.data[i].ID)
		}
	}

	e.spy.Reset()
	var empty struct{ Nodes []*nodeResult }
	e.MustQuery(t, `{ nodes(ids: []) { nodeId } }`, &empty)
	if empty.Nodes == nil || len(empty.Nodes) != 0 || e.spy.TotalCalls() != 0 {
		t.Errorf("no ids: %v with %d store calls, want [] and none", empty.Nodes, e.spy.TotalCalls())
	}

	r := e.MustDo(t, fmt.Sprintf(`{ nodes(ids: %s) { nodeId } }`, quoteAll(ids)))
	err := MustOneError(t, r, "BAD_USER_INPUT")
	if !strings.Contains(err.Message, "100") {
		t.Errorf("101 ids: message %q does not name the limit", err.Message)
	}
	MustNoData(t, r)
	if n := e.spy.TotalCalls(); n != 0 {
		t.Errorf("101 ids: %d store calls, want none", n)
	}

	// Complexity 1 + len(ids) × 3 (nodeId, id, rating): 100 ids cost 301,
	// the limit; asking for one more field costs 401.
	e.spy.Reset()
	r = e.c.MustDo(t, fmt.Sprintf(`{ nodes(ids: %s) { nodeId ... on Comment { id rating title } } }`, quoteAll(ids[:100])), nil)
	if r.Status != http.StatusUnprocessableEntity || r.Code() != "COMPLEXITY_LIMIT_EXCEEDED" || !strings.Contains(string(r.Body), "complexity 401,") {
		t.Errorf("100 ids × 4 fields: HTTP %d %s, want 422 COMPLEXITY_LIMIT_EXCEEDED with complexity 401", r.Status, r.Body)
	}
	if n := e.spy.TotalCalls(); n != 0 {
		t.Errorf("refused by complexity: %d store calls, want none", n)
	}
}

// TestNodesStoreFailure: a failed batched read is an UNAVAILABLE error,
// never a list of nulls that would look like deleted comments.
func TestNodesStoreFailure(t *testing.T) {
	e := MustEnvData(t, nodeData(), resolvers.Config{LoaderWait: testLoaderWait})
	e.spy.SetHooks(nil, func([]table.Key) error {
		return store.Errorf(store.EUNAVAILABLE, "the store is throttling; try again")
	}, nil)
	ids := []string{globalID("Product", "big"), globalID("Comment", "big-c001")}
	r := e.MustDo(t, fmt.Sprintf(`{ nodes(ids: %s) { nodeId } }`, quoteAll(ids)))
	MustOneError(t, r, "UNAVAILABLE")
	MustNoData(t, r)
}

// BenchmarkNodes: Query.nodes of 100 comments (one BatchGet) against the
// same 100 comments as a page of comments(first: 100) with and without
// nodeId, in process on a real bbolt store (loader window 1ms, the
// default).
func BenchmarkNodes(b *testing.B) {
	e := MustEnvData(b, nodeData(), resolvers.Config{})
	var ids []string
	for _, c := range e.data[:100] {
		ids = append(ids, globalID("Comment", c.ID))
	}
	queries := map[string]string{
		"nodes100":           fmt.Sprintf(`{ nodes(ids: %s) { nodeId ... on Comment { id rating title } } }`, quoteAll(ids)),
		"page100":            `{ product(id: "big") { comments(first: 100) { nodes { id rating title } } } }`,
		"page100WithNodeIds": `{ product(id: "big") { comments(first: 100) { nodes { nodeId id rating title } } } }`,
	}
	for _, name := range []string{"nodes100", "page100", "page100WithNodeIds"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				w := httptest.NewRecorder()
				e.h.ServeHTTP(w, postRequest(queries[name], nil))
				if w.Code != http.StatusOK {
					b.Fatalf("HTTP %d: %s", w.Code, w.Body)
				}
			}
		})
	}
}
