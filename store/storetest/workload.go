package storetest

import (
	"cmp"
	"context"
	"slices"
	"testing"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// WorkloadRatings are the rating filters of the browsing workload: all
// ratings, one, and merges of two, three and four.
var WorkloadRatings = [][]int{nil, {5}, {1, 2}, {1, 3, 5}, {1, 2, 3, 4}, {4, 5}}

// Browsing is a table loaded for the browsing workload: its store, its
// products and each product's most common language.
type Browsing struct {
	S        *store.Store
	Products []string
	TopLang  map[string]string
}

// LoadBrowsing loads cs into tbl, rebuilds the stats and returns the
// workload's view of it; opts configure the store the workload reads with.
func LoadBrowsing(tb testing.TB, tbl table.Table, cs []*store.Comment, opts ...store.Option) *Browsing {
	tb.Helper()
	MustLoad(tb, tbl, cs)
	b := &Browsing{S: store.New(tbl, opts...), TopLang: map[string]string{}}
	for _, c := range cs {
		if _, ok := b.TopLang[c.ProductID]; !ok {
			b.TopLang[c.ProductID] = ""
			b.Products = append(b.Products, c.ProductID)
		}
	}
	for _, pid := range b.Products {
		langs, err := b.S.Languages(context.Background(), pid, store.MaxLanguages)
		if err != nil {
			tb.Fatal(err)
		}
		b.TopLang[pid] = slices.MaxFunc(langs, func(a, b *store.Stats) int { return cmp.Compare(a.Total, b.Total) }).Language
	}
	return b
}

// Tally is what a run of the workload read and returned.
type Tally struct {
	Read, Returned int64   // items read (stats items included) and returned
	Rounds, Pages  int64   // the merges' query rounds, and the pages
	Calls          int64   // store calls
	RCU            float64 // read capacity DynamoDB reported (0 elsewhere)
}

// Add adds o to t.
func (t *Tally) Add(o Tally) {
	t.Read, t.Returned, t.Rounds, t.Pages = t.Read+o.Read, t.Returned+o.Returned, t.Rounds+o.Rounds, t.Pages+o.Pages
	t.Calls, t.RCU = t.Calls+o.Calls, t.RCU+o.RCU
}

// Amplification is items read per item returned.
func (t Tally) Amplification() float64 { return float64(t.Read) / float64(t.Returned) }

// RoundsPerPage is the mean query rounds of a page.
func (t Tally) RoundsPerPage() float64 { return float64(t.Rounds) / float64(t.Pages) }

// Browse runs one slice of the browsing workload: every product × one
// language choice (all languages, or each product's most common one:
// byLang) × the rating filter rs × the first `pages` pages of 20, reading
// the stats alongside each page when the client asks for totalCount
// (withTotal) or the plan needs them, as the gateway does.
func (b *Browsing) Browse(tb testing.TB, byLang bool, rs []int, pages int, withTotal bool) Tally {
	tb.Helper()
	return b.BrowseOrder(tb, store.OrderNewest, byLang, rs, pages, withTotal)
}

// BrowseOrder is Browse listing in order o.
func (b *Browsing) BrowseOrder(tb testing.TB, o store.Order, byLang bool, rs []int, pages int, withTotal bool) Tally {
	tb.Helper()
	ctx, usage := store.WithUsage(context.Background())
	var t Tally
	size := 20
	for _, pid := range b.Products {
		lang := ""
		if byLang {
			lang = b.TopLang[pid]
		}
		var after *string
		for range pages {
			conn, err := List(ctx, b.S, pid, store.Filter{Language: lang, Ratings: rs}, store.PageArgs{Order: o, First: &size, After: after}, withTotal)
			if err != nil {
				tb.Fatal(err)
			}
			t.Returned += int64(len(conn.Edges))
			t.Rounds += int64(conn.Trace.Rounds)
			t.Pages++
			if !conn.HasNextPage {
				break
			}
			after = &conn.Edges[len(conn.Edges)-1].Cursor
		}
	}
	t.Read, t.Calls, t.RCU = usage.ItemsRead(), usage.Requests(), usage.ReadCapacity()
	return t
}
