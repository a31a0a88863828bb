package resolvers_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/internal/gqltest"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/storetest"
)

// TestOrderBy walks comments(orderBy:) forward and backward through the
// GraphQL API and compares it with the recount in that order.
func TestOrderBy(t *testing.T) {
	e := MustEnvWait(t, 0)
	orders := storetest.Orders
	if !storetest.HasHelpfulIndexes() {
		orders = orders[:len(orders)-1]
	}
	for _, o := range orders {
		for _, filter := range []struct {
			args, lang string
			ratings    []int
		}{{"", "", nil}, {`ratings: [1, 5], `, "", []int{1, 5}}, {`language: "de", `, "de", nil}} {
			want := idsOf(storetest.RecountOrder(e.data, bigID, filter.lang, filter.ratings, o))
			var fwd, back []string
			after, before := "", ""
			for range 20 {
				p := MustPage(t, e, fmt.Sprintf(`orderBy: %s, %sfirst: 7%s`, o, filter.args, after))
				fwd = append(fwd, p.EdgeIDs()...)
				if p.TotalCount != len(want) {
					t.Errorf("%s %s: totalCount %d, want %d", o, filter.args, p.TotalCount, len(want))
				}
				if !p.PageInfo.HasNextPage {
					break
				}
				after = fmt.Sprintf(`, after: %q`, *p.PageInfo.EndCursor)
			}
			for range 20 {
				p := MustPage(t, e, fmt.Sprintf(`orderBy: %s, %slast: 6%s`, o, filter.args, before))
				back = append(p.EdgeIDs(), back...)
				if !p.PageInfo.HasPreviousPage {
					break
				}
				before = fmt.Sprintf(`, before: %q`, *p.PageInfo.StartCursor)
			}
			if !slices.Equal(fwd, want) || !slices.Equal(back, want) {
				t.Errorf("%s %s:\nforward  %v\nbackward %v\nwant     %v", o, filter.args, fwd, back, want)
			}
		}
	}
}

// TestCursorOfAnotherOrderIsBadUserInput: a cursor passed with an order
// other than its own is BAD_USER_INPUT naming the cursor's order, refused
// before any store call.
func TestCursorOfAnotherOrderIsBadUserInput(t *testing.T) {
	e := MustEnvWait(t, 0)
	newest := MustPage(t, e, `first: 2`).Edges[1].Cursor
	highest := MustPage(t, e, `orderBy: HIGHEST_RATING, first: 2`).Edges[1].Cursor
	for _, c := range []struct{ args, belongs string }{
		{fmt.Sprintf(`orderBy: OLDEST, after: %q`, newest), "NEWEST"},
		{fmt.Sprintf(`orderBy: LOWEST_RATING, last: 3, before: %q`, highest), "HIGHEST_RATING"},
		{fmt.Sprintf(`after: %q`, highest), "HIGHEST_RATING"},
	} {
		e.spy.Reset()
		r := e.MustDo(t, `{ product(id: "big") { comments(`+c.args+`) { nodes { id } } } }`)
		err := MustOneError(t, r, "BAD_USER_INPUT")
		if !strings.Contains(err.Message, "this cursor belongs to orderBy: "+c.belongs) {
			t.Errorf("%s: message %q does not name orderBy: %s", c.args, err.Message, c.belongs)
		}
		if n := e.spy.TotalCalls(); n != 0 {
			t.Errorf("%s: a refused request made store calls: %s", c.args, e.spy.CallsString())
		}
	}
}

// TestExplainNamesTheOrder: EXPLAIN names each field's order; a
// HIGHEST_RATING page is a sequence of rating partitions, one query per
// rating it reads from, the empty 2-star rating of "big" skipped by the
// stats.
func TestExplainNamesTheOrder(t *testing.T) {
	e := MustEnvData(t, genComments(), resolvers.Config{OpenExplain: true})
	all := storetest.RecountOrder(e.data, bigID, "", nil, store.OrderHighestRating)
	n := map[int]int{}
	for _, c := range all {
		n[c.Rating]++
	}
	q := fmt.Sprintf(`{ product(id: "big") {
	  a: comments(orderBy: HIGHEST_RATING, first: %d) { totalCount nodes { id } }
	  b: comments(orderBy: OLDEST, first: 3) { nodes { id } }
	  c: comments(orderBy: LOWEST_RATING, ratings: [1, 2, 3], first: %d) { totalCount nodes { id } }
	} }`, n[5]+2, n[1]+1)
	r := e.MustQuery(t, q, nil, gqltest.Header("X-Explain", "1"))
	raw, _ := json.Marshal(r.Extensions["plan"])
	var plan []struct {
		Order      string `json:"order"`
		Strategy   string `json:"strategy"`
		Skipped    []int  `json:"skippedRatings"`
		Partitions []struct {
			Rating int `json:"rating"`
			Calls  int `json:"calls"`
		} `json:"partitions"`
	}
	if err := json.Unmarshal(raw, &plan); err != nil || len(plan) != 3 {
		t.Fatalf("extensions.plan %s: %v", raw, err)
	}
	for _, p := range plan {
		switch p.Order {
		case "HIGHEST_RATING":
			// The page takes all the 5s and crosses into the 4s: two
			// partitions, a query each.
			if p.Strategy != "sequence" || len(p.Partitions) != 2 || p.Partitions[0].Rating != 5 || p.Partitions[1].Rating != 4 ||
				p.Partitions[0].Calls != 1 || p.Partitions[1].Calls != 1 {
				t.Errorf("HIGHEST_RATING plan: %s", raw)
			}
		case "LOWEST_RATING":
			// From the 1s to the 3s: the 2s, none, skipped by the stats.
			if p.Strategy != "sequence" || len(p.Partitions) != 2 || p.Partitions[0].Rating != 1 || p.Partitions[1].Rating != 3 ||
				!slices.Equal(p.Skipped, []int{2}) {
				t.Errorf("LOWEST_RATING plan: %s", raw)
			}
		case "OLDEST":
			if p.Strategy != "single" {
				t.Errorf("OLDEST plan: %s", raw)
			}
		default:
			t.Errorf("plan entry of order %q: %s", p.Order, raw)
		}
	}
}
