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
				gotIDs, gotHSK = append(gotIDs, it.S(table.AttrID)), append(gotHSK, it.S(table.AttrHSK))
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

