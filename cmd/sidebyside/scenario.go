package main

import (
	"context"
	"fmt"
	"io"
	"slices"
)

// scenario is one kind of request, with each system's cursors and the ids
// every page must return.
type scenario struct {
	name   string
	filter *filter
	// after[system name][i] is the cursor of the i-th page the scenario
	// requests (round-robin), "" for page 1; want[i] its ids.
	after map[string][]string
	want  [][]string
}

// prepare walks the filtered list on both systems in lockstep, checking the
// ids of every page, and builds the four scenarios from the walk.
func prepare(ctx context.Context, out io.Writer, o options, gw, pg *system) ([]*scenario, error) {
	f := &filter{language: o.language, ratings: o.ratings}
	pages := max(o.walk, o.depth/20+1)
	walkGW, walkPG, want, total, err := walk(ctx, o.product, f, pages, gw, pg)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "product %s: %d comments in %s with ratings %v; walked %d pages on both systems, same ids on every page\n",
		o.product, total, o.language, o.ratings, len(want))
	unGW, unPG, unWant, unTotal, err := walk(ctx, o.product, nil, 1, gw, pg)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "product %s: %d comments in all; same ids on page 1 of the unfiltered list\n", o.product, unTotal)
	deep := min(o.depth/20, len(want)-1)
	nWalk := min(o.walk, len(want))
	one := func(name string, f *filter, gwAfter, pgAfter []string, w [][]string) *scenario {
		return &scenario{name: name, filter: f, want: w,
			after: map[string][]string{gw.name: gwAfter, pg.name: pgAfter}}
	}
	return []*scenario{
		one(fmt.Sprintf("filtered page 1 (%s, ratings %v)", o.language, o.ratings), f, walkGW[:1], walkPG[:1], want[:1]),
		one("unfiltered page 1", nil, unGW, unPG, unWant),
		one(fmt.Sprintf("filtered, cursor %d deep", deep*20), f, walkGW[deep:deep+1], walkPG[deep:deep+1], want[deep:deep+1]),
		one(fmt.Sprintf("walk of %d cursors (filtered)", nWalk), f, walkGW[:nWalk], walkPG[:nWalk], want[:nWalk]),
	}, nil
}

// walk reads up to n pages of one list on both systems, following each
// system's own cursors, and fails at the first page (or totalCount) on which
// they differ. It returns each system's cursor of every page ("" for page
// 1), the ids of every page and the totalCount.
func walk(ctx context.Context, product string, f *filter, n int, gw, pg *system) (afterGW, afterPG []string, want [][]string, total int, err error) {
	var curGW, curPG string
	for i := range n {
		a, err := gw.page(ctx, product, f, curGW)
		if err != nil {
			return nil, nil, nil, 0, err
		}
		b, err := pg.page(ctx, product, f, curPG)
		if err != nil {
			return nil, nil, nil, 0, err
		}
		if !slices.Equal(a.ids(), b.ids()) || a.TotalCount != b.TotalCount || a.PageInfo.HasNextPage != b.PageInfo.HasNextPage {
			return nil, nil, nil, 0, fmt.Errorf("page %d differs: gateway %d of %d %v, postgraphile %d of %d %v",
				i+1, len(a.Edges), a.TotalCount, a.ids(), len(b.Edges), b.TotalCount, b.ids())
		}
		if len(a.Edges) == 0 {
			break
		}
		afterGW, afterPG, want, total = append(afterGW, curGW), append(afterPG, curPG), append(want, a.ids()), a.TotalCount
		if !a.PageInfo.HasNextPage {
			break
		}
		curGW, curPG = a.PageInfo.EndCursor, b.PageInfo.EndCursor
	}
	if len(want) == 0 {
		return nil, nil, nil, 0, fmt.Errorf("product %s has no comments in this list", product)
	}
	return afterGW, afterPG, want, total, nil
}
