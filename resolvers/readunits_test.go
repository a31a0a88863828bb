package resolvers_test

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/demo"
	"github.com/acme/comments-gateway/internal/gqltest"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/storetest"
	"github.com/acme/comments-gateway/store/table"
)

// TestReadUnitsOnDynamoDB measures extensions.cost.readCapacityUnits, as
// DynamoDB Local reports it, of the requests docs/capacity.md's
// per-request table costs (the test's log has the figures), each on a new
// Store (no hints: a first visit) and again (with the hint the first left),
// and holds them to issue 26's bounds: a page with totalCount at most 3
// read units, a product page at most 6, on a first visit too.
// The product's comments were written one by one, so all 8 counter shards
// of its stats exist. Of the signed-in viewers (viewerVote, docs/design.md
// §13.3), bob has voted on 3 comments of the first page (a shopper), alice
// on the product's 60 newest (a voter whose votes on the product outnumber
// a page's comments).
func TestReadUnitsOnDynamoDB(t *testing.T) {
	tbl := mustDynamoTable(t)
	pid, lang := storetest.MustLoadReadUnitsData(t, tbl, readUnitsComments())
	const node = `nodes { id language rating author title body createdAt }`
	mustVoteOnNewest(t, tbl, pid, bob, 3)
	mustVoteOnNewest(t, tbl, pid, alice, 60)
	const voted = `query($p: ID!) { product(id: $p) { comments(first: 20) { nodes { id viewerVote } } } }`
	for _, c := range []struct {
		name, query string
		max         [2]float64 // first visit, again
		viewer      []string   // the Authorization header; nil: anonymous
	}{
		{"comments(first: 20), no totalCount", `query($p: ID!) { product(id: $p) { comments(first: 20) { ` + node + ` } } }`, [2]float64{3, 3}, nil},
		{"… with totalCount, all languages", `query($p: ID!) { product(id: $p) { comments(first: 20) { totalCount ` + node + ` } } }`, [2]float64{3, 3}, nil},
		{"… with totalCount, one language", `query($p: ID!, $l: String) { product(id: $p) { comments(language: $l, first: 20) { totalCount ` + node + ` } } }`, [2]float64{3, 3}, nil},
		// A first visit reads an equal share of the page from each of
		// the 3 ratings rather than wait for the stats (the one-round
		// sizing's planBlind); again, the Store's hint sizes each read at
		// its share.
		{"product page: stats, languages, merged page", `query($p: ID!) { product(id: $p) {
			stats { total averageRating ratings { rating count } } languages { language total }
			comments(ratings: [1, 3, 5], first: 20) { totalCount ` + node + ` } } }`, [2]float64{6, 6}, nil},
		{"page with viewerVote, anonymous", voted, [2]float64{2, 2}, nil},
		{"… signed in, 3 votes on the page", voted, [2]float64{3, 3}, bob},
		// The Query reads alice's votes downward from the page's newest
		// comment: on a NEWEST page, the page's own.
		{"… signed in, 60 votes on the product", voted, [2]float64{3, 3}, alice},
		// A page of one rating spans a wider range of ids, holding more of
		// alice's votes than it has comments: the Query stops at its limit
		// and the page's comments below are read by key.
		{"… one rating, anonymous", strings.Replace(voted, "first: 20", "ratings: [5], first: 20", 1), [2]float64{2, 2}, nil},
		{"… one rating, 60 votes on the product", strings.Replace(voted, "first: 20", "ratings: [5], first: 20", 1), [2]float64{24, 24}, alice},
	} {
		srv := readUnitsServer(t, tbl)
		var hdr []gqltest.Option
		if c.viewer != nil {
			hdr = append(hdr, gqltest.Headers(c.viewer...))
		}
		for visit, max := range c.max {
			r := gqltest.New(srv.URL).MustDo(t, c.query, map[string]any{"p": pid, "l": lang}, hdr...)
			if len(r.Errors) > 0 {
				t.Fatalf("%s: %s", c.name, r.RawErrors)
			}
			cost, _ := r.Extensions["cost"].(map[string]any)
			rcu, _ := cost["readCapacityUnits"].(float64)
			read, _ := cost["itemsRead"].(float64)
			calls, _ := cost["requests"].(float64)
			cx, _ := cost["complexity"].(float64)
			name := c.name + []string{" (first visit)", " (again)"}[visit]
			t.Logf("%s: %.1f read units, %v items read, %v calls, complexity %v", name, rcu, read, calls, cx)
			if rcu <= 0 || rcu > max {
				t.Errorf("%s: %.1f read units, want more than 0 and at most %.1f", name, rcu, max)
			}
			if read > cx {
				t.Errorf("%s: %v items read, more than its complexity %v", name, read, cx)
			}
		}
		srv.Close()
	}
}

// readUnitsServer serves tbl as DynamoDB is served (the one-round sizing),
// with the test JWTs accepted.
func readUnitsServer(t *testing.T, tbl table.Table) *httptest.Server {
	return httptest.NewServer(resolvers.NewHandler(resolvers.Config{
		Store:  store.New(tbl, store.WithSizing(store.Sizings["one-round"])), // DynamoDB's default sizing
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Auth:   &auth.Authenticator{JWT: fakeJWT{}},
	}))
}

// mustVoteOnNewest votes helpful, as the viewer of Authorization header
// viewer, on the n newest comments of product pid.
func mustVoteOnNewest(t *testing.T, tbl table.Table, pid string, viewer []string, n int) {
	srv := readUnitsServer(t, tbl)
	defer srv.Close()
	c := gqltest.New(srv.URL)
	var page struct {
		Product struct {
			Comments struct{ Nodes []struct{ ID string } }
		}
	}
	c.MustQuery(t, `query($p: ID!, $n: Int) { product(id: $p) { comments(first: $n) { nodes { id } } } }`, map[string]any{"p": pid, "n": n}, &page)
	for _, cm := range page.Product.Comments.Nodes {
		if r := c.MustDo(t, voteMut(cm.ID, "true")["query"].(string), nil, gqltest.Headers(viewer...)); len(r.Errors) > 0 {
			t.Fatalf("vote: %s", r.RawErrors)
		}
	}
}

// readUnitsComments are the demo comments of the read-unit measure: 400 on
// 2 products.
func readUnitsComments() []*store.Comment {
	cfg := demo.DefaultConfig()
	cfg.Products, cfg.Comments = 2, 400
	return demo.Generate(demo.NewRand(7), cfg)
}
