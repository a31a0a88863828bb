package store_test

import (
	"context"
	"testing"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
	"github.com/acme/comments-gateway/store/table"
)

// laggingIndex is a Table whose leaderboard index still answers with the
// entries of items since rewritten, as a DynamoDB GSI may for a moment
// after a rebuild: its queries of partition hash return items.
type laggingIndex struct {
	table.Table
	hash  string
	items []table.Item
}

func (l laggingIndex) Query(ctx context.Context, q table.Query) (table.QueryResult, error) {
	if q.Index == table.IndexByLangAndRating && q.HashValue == l.hash {
		return table.QueryResult{Items: l.items}, nil
	}
	return l.Table.Query(ctx, q)
}

// TestReadDesignChecksTheItems: an index entry of design 1's leaderboard
// whose item no longer carries it (a rebuilt stats item the index lags
// behind) does not make the table legacy; one whose item still does, does.
func TestReadDesignChecksTheItems(t *testing.T) {
	tbl := bolttest.Open(t)
	ctx := context.Background()
	rebuilt := (&store.Stats{ProductID: "p", Counts: [6]int64{0, 0, 0, 0, 0, 3}, Total: 3, Version: 2}).Item()
	if err := tbl.BatchPut(ctx, []table.Item{rebuilt}); err != nil {
		t.Fatal(err)
	}
	stale := table.Item{table.AttrPK: table.S(rebuilt.S(table.AttrPK)), table.AttrSK: table.S(rebuilt.S(table.AttrSK)),
		table.AttrGSIPK: table.S(store.LeadersPK("")), table.AttrGSISK: table.S(store.LeadersSK(3, "p")), table.AttrCount(5): table.N(3)}
	s := store.New(laggingIndex{Table: tbl, hash: store.LeadersPK(""), items: []table.Item{stale}})
	if d, err := s.ReadDesign(ctx); err != nil || d.Legacy {
		t.Errorf("ReadDesign with a stale index entry = %+v, %v; want not legacy", d, err)
	}
	if err := tbl.BatchPut(ctx, []table.Item{stale}); err != nil { // the item as design 1 left it
		t.Fatal(err)
	}
	if d, err := s.ReadDesign(ctx); err != nil || !d.Legacy {
		t.Errorf("ReadDesign with a design-1 entry = %+v, %v; want legacy", d, err)
	}
}
