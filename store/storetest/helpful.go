package storetest

import (
	"cmp"
	"slices"
	"testing"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// checkHelpfulTwins checks that the helpful twins (table.HelpfulIndexes)
// hold exactly the published comments pub of each product of pids, each
// with the HSK of its helpful count, in every partition of the product:
// whatever moved a comment's public keys (a create, an edit of its rating,
// a moderator, a delete) moved its HSK with them.
func checkHelpfulTwins(t *testing.T, tbl table.Table, pub []*store.Comment, pids []string) {
	t.Helper()
	for _, pid := range pids {
		type part struct{ index, hash string }
		want := map[part][]*store.Comment{}
		for _, c := range pub {
			if c.ProductID != pid {
				continue
			}
			for _, d := range table.HelpfulIndexes {
				p := part{d.Name, c.Item().S(d.Hash)}
				want[p] = append(want[p], c)
			}
		}
		for p, cs := range want {
			slices.SortFunc(cs, func(a, b *store.Comment) int { return cmp.Compare(b.HelpfulSortKey(), a.HelpfulSortKey()) })
			got := MustQueryAll(t, tbl, table.Query{Index: p.index, HashValue: p.hash, Limit: 7})
			var gotIDs, gotHSK, wantHSK []string
			for _, it := range got {
				c, err := store.CommentFromItem(it)
				if err != nil {
					t.Fatal(err)
				}
				gotIDs, gotHSK = append(gotIDs, c.ID), append(gotHSK, it.S(table.AttrHSK))
			}
			for _, c := range cs {
				wantHSK = append(wantHSK, c.HelpfulSortKey())
			}
			if !slices.Equal(gotIDs, ids(cs)) || !slices.Equal(gotHSK, wantHSK) {
				t.Errorf("index %s, partition %s:\n got %v %v\nwant %v %v", p.index, p.hash, gotIDs, gotHSK, ids(cs), wantHSK)
			}
		}
	}
}

// testHelpfulBackfill is the upgrade of a table written before the helpful
// twins (docs/design.md §3.3): comments without HSK (some published, one
// pending) and no mark are not served in MOST_HELPFUL order by a remote
// table (CheckHelpful, HelpfulReady: EUNAVAILABLE) until RebuildStats gives
// exactly the published ones their HSK and marks the table; the twins
// then hold every published comment.
func testHelpfulBackfill(t *testing.T, tbl table.Table) {
	ctx := t.Context()
	data := Dataset(29)
	data[7].Status = store.StatusPending
	for i, c := range data {
		c.HelpfulCount = int64(i % 5)
	}
	MustLoad(t, tbl, data)
	var old []table.Op // what a gateway before the twins wrote: no HSK, no mark
	for _, c := range data[:40] {
		old = append(old, table.Op{Kind: table.OpUpdate, Key: store.CommentKey(c.ID), Remove: []string{table.AttrHSK}})
	}
	k := store.DesignKey()
	MustWrite(t, tbl, table.Op{Kind: table.OpUpdate, Key: k, Remove: []string{"helpfulSorted"}})
	MustWrite(t, tbl, old...)
	s := store.New(tbl)
	if err := s.HelpfulReady(ctx); err != nil {
		t.Errorf("HelpfulReady before any check: %v", err)
	}
	local := false
	if l, ok := tbl.(interface{ Local() bool }); ok {
		local = l.Local()
	}
	if err := s.CheckHelpful(ctx); local && err != nil || !local && store.ErrorCode(err) != store.EUNAVAILABLE {
		t.Fatalf("CheckHelpful of a table whose comments lack HSK (local %v): %v", local, err)
	}
	if err := s.HelpfulReady(ctx); !local && store.ErrorCode(err) != store.EUNAVAILABLE {
		t.Errorf("HelpfulReady after the check: %v, want EUNAVAILABLE", err)
	}
	q := store.CommentsQuery{ProductID: data[0].ProductID, Page: store.PageArgs{Order: store.OrderMostHelpful}}
	if _, err := s.ListComments(ctx, q, nil); !local && store.ErrorCode(err) != store.EUNAVAILABLE {
		t.Errorf("a MOST_HELPFUL page before the rebuild: %v, want EUNAVAILABLE", err)
	}
	res, err := s.RebuildStats(ctx, 3)
	if err != nil || res.Backfilled != 39 {
		t.Fatalf("RebuildStats: %+v, %v; want 39 comments given their HSK", res, err)
	}
	for _, err := range []error{s.HelpfulReady(ctx), s.CheckHelpful(ctx), store.New(tbl).CheckHelpful(ctx)} {
		if err != nil {
			t.Errorf("after the rebuild: %v", err)
		}
	}
	if it := MustGet(t, tbl, store.CommentKey(data[7].ID)); it[table.AttrHSK] != (table.Value{}) {
		t.Errorf("a pending comment got HSK %v", it[table.AttrHSK])
	}
	var pub []*store.Comment
	for _, c := range data {
		if c.Status == store.StatusPublished {
			pub = append(pub, c)
		}
	}
	checkHelpfulTwins(t, tbl, pub, []string{"big", "mid-1", "only_five", "one"})
	if res, err := s.RebuildStats(ctx, 2); err != nil || res.Backfilled != 0 {
		t.Errorf("a second rebuild: %+v, %v; want nothing to backfill", res, err)
	}
}
