package main

import (
	"context"
	"fmt"
	"io"
)

// scenario is one kind of request: the pages it requests, round robin, as
// each system's exchanges (same order on both; cursors differ between the
// systems).
type scenario struct {
	name  string
	pages map[string][]*exchange // by system name
}

// prepare walks the filtered list on both systems in lockstep, checking the
// ids of every page, and builds the four scenarios from the walk.
func prepare(ctx context.Context, out io.Writer, o options, gw, pg *system) ([]*scenario, error) {
	f := &filter{language: o.language, ratings: o.ratings}
	pages := max(o.walk, o.depth/20+1)
	walkGW, walkPG, total, err := walk(ctx, o.product, f, pages, gw, pg)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "product %s: %s in %s with ratings %v; walked %d pages on both systems, same ids on every page\n",
		o.product, counted(total, gw.noTotal), o.language, o.ratings, len(walkGW))
	unGW, unPG, unTotal, err := walk(ctx, o.product, nil, 1, gw, pg)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "product %s: %s in all; same ids on page 1 of the unfiltered list\n", o.product, counted(unTotal, gw.noTotal))
	deep := min(o.depth/20, len(walkGW)-1)
	nWalk := min(o.walk, len(walkGW))
	one := func(name string, gwPages, pgPages []*exchange) *scenario {
		return &scenario{name: name, pages: map[string][]*exchange{gw.name: gwPages, pg.name: pgPages}}
	}
	return []*scenario{
		one(fmt.Sprintf("filtered page 1 (%s, ratings %v)", o.language, o.ratings), walkGW[:1], walkPG[:1]),
		one("unfiltered page 1", unGW, unPG),
		one(fmt.Sprintf("filtered, cursor %d deep", deep*20), walkGW[deep:deep+1], walkPG[deep:deep+1]),
		one(fmt.Sprintf("walk of %d cursors (filtered)", nWalk), walkGW[:nWalk], walkPG[:nWalk]),
	}, nil
}

// counted is a list's totalCount in words, or that it was not selected.
func counted(total int, noTotal bool) string {
	if noTotal {
		return "comments (totalCount not selected)"
	}
	return fmt.Sprintf("%d comments", total)
}

// walk reads up to n pages of one list on both systems, following each
// system's own cursors, and fails at the first page on which their ids,
// totalCount or hasNextPage differ. It returns each system's exchange of
// every page (its request and the reply recorded) and the totalCount.
func walk(ctx context.Context, product string, f *filter, n int, gw, pg *system) (exGW, exPG []*exchange, total int, err error) {
	var curGW, curPG string
	for i := range n {
		a, ca, err := gw.page(ctx, product, f, curGW)
		if err != nil {
			return nil, nil, 0, err
		}
		b, cb, err := pg.page(ctx, product, f, curPG)
		if err != nil {
			return nil, nil, 0, err
		}
		if !a.want.equal(b.want) {
			return nil, nil, 0, fmt.Errorf("page %d differs: gateway %v, postgraphile %v", i+1, a.want, b.want)
		}
		if len(ca.Edges) == 0 {
			break
		}
		exGW, exPG, total = append(exGW, a), append(exPG, b), ca.TotalCount
		if !ca.PageInfo.HasNextPage {
			break
		}
		curGW, curPG = ca.PageInfo.EndCursor, cb.PageInfo.EndCursor
	}
	if len(exGW) == 0 {
		return nil, nil, 0, fmt.Errorf("product %s has no comments in this list", product)
	}
	return exGW, exPG, total, nil
}
