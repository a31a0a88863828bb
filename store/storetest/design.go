package storetest

import (
	"context"
	"testing"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// testDesign: the table's logical design (store.DesignVersion) is read
// from its meta item and from what it holds. A table of design 1 (its
// leaderboard on the stats items) is found, whether or not it records a
// design, and RebuildStats upgrades it (stats and both leaderboards then
// equal a recount); a new table and a design-1 table without a 5-star
// comment are read as they are and have their design recorded; a table of
// a newer design is refused.
func testDesign(t *testing.T, newTable func(t *testing.T) table.Table) {
	cases := map[string]func(*testing.T, table.Table){
		"New": testDesignNew, "Legacy": testDesignLegacy,
		"LegacyWithoutFiveStars": testDesignNoFiveStars, "Newer": testDesignNewer,
	}
	for name, fn := range cases {
		t.Run(name, func(t *testing.T) { fn(t, newTable(t)) })
	}
}

// putLegacyTable writes data as a gateway of design 1 left it: the
// comments, and one stats item per (product, language) that is also its
// leaderboard entry while its 5-star count is above 0.
func putLegacyTable(t *testing.T, tbl table.Table, data []*store.Comment) {
	t.Helper()
	var old []table.Item
	for _, it := range statsItems(valuesOf(data)) {
		if _, isLeader := store.LangFromLeaderSK(it.S(table.AttrSK)); isLeader {
			continue
		}
		if n5 := it.N(table.AttrCount(5)); n5 > 0 {
			lang, _ := store.LangFromStatsSK(it.S(table.AttrSK))
			pid, _ := store.ProductIDFromPK(it.S(table.AttrPK))
			it[table.AttrGSIPK], it[table.AttrGSISK] = table.S(store.LeadersPK(lang)), table.S(store.LeadersSK(n5, pid))
		}
		old = append(old, it)
	}
	if err := store.New(tbl).PutComments(context.Background(), data); err != nil {
		t.Fatal(err)
	}
	MustBatchPut(t, tbl, old)
}

func mustDesign(t *testing.T, s *store.Store, want store.Design) {
	t.Helper()
	if got, err := s.ReadDesign(context.Background()); err != nil || got != want {
		t.Fatalf("ReadDesign = %+v, %v; want %+v", got, err, want)
	}
}

func testDesignNew(t *testing.T, tbl table.Table) {
	s, ctx := store.New(tbl), context.Background()
	mustDesign(t, s, store.Design{})
	if d, err := s.CheckDesign(ctx); err != nil || d != (store.Design{}) {
		t.Fatalf("CheckDesign of a new table = %+v, %v", d, err)
	}
	mustDesign(t, s, store.Design{Recorded: store.DesignVersion})
	if empty, err := s.IsEmpty(ctx); err != nil || !empty {
		t.Errorf("IsEmpty of a new table with its design recorded = %v, %v", empty, err)
	}
	if d, err := s.CheckDesign(ctx); err != nil || d != (store.Design{Recorded: store.DesignVersion}) {
		t.Errorf("CheckDesign again = %+v, %v", d, err)
	}
}

func testDesignLegacy(t *testing.T, tbl table.Table) {
	data := Dataset(8)
	putLegacyTable(t, tbl, data)
	s, ctx := store.New(tbl), context.Background()
	mustDesign(t, s, store.Design{Legacy: true})
	// The hole the design check closes: design 2's leaderboard is empty.
	if top, err := s.TopProducts(ctx, "", 10); err != nil || len(top) != 0 {
		t.Fatalf("TopProducts of a design-1 table = %v, %v; want it empty (what the check exists for)", top, err)
	}
	if d, err := s.CheckDesign(ctx); err != nil || d != (store.Design{Legacy: true}) {
		t.Fatalf("CheckDesign of a design-1 table = %+v, %v", d, err)
	}
	mustDesign(t, s, store.Design{Legacy: true}) // not recorded
	if _, err := s.RebuildStats(ctx, 3); err != nil {
		t.Fatal(err)
	}
	mustDesign(t, s, store.Design{Recorded: store.DesignVersion})
	checkStats(t, s, data, productIDs(data))
	// A gateway of design 1 writing again (a rollback) puts an entry back:
	// found although the table records design 2.
	old := table.Item{table.AttrPK: table.S(store.ProductPK("late")), table.AttrSK: table.S(store.StatsKey("late", "").SK),
		table.AttrCount(5): table.N(1), table.AttrCountTotal: table.N(1), table.AttrVersion: table.N(1),
		table.AttrGSIPK: table.S(store.LeadersPK("")), table.AttrGSISK: table.S(store.LeadersSK(1, "late"))}
	MustPut(t, tbl, old)
	mustDesign(t, s, store.Design{Recorded: store.DesignVersion, Legacy: true})
}

func testDesignNoFiveStars(t *testing.T, tbl table.Table) {
	var data []*store.Comment
	for _, c := range Dataset(9) {
		if c.Rating != 5 {
			data = append(data, c)
		}
	}
	putLegacyTable(t, tbl, data)
	s, ctx := store.New(tbl), context.Background()
	if d, err := s.CheckDesign(ctx); err != nil || d != (store.Design{}) {
		t.Fatalf("CheckDesign of a design-1 table without 5-star comments = %+v, %v", d, err)
	}
	mustDesign(t, s, store.Design{Recorded: store.DesignVersion})
	c, err := s.CreateComment(ctx, store.NewComment{ProductID: "big", Language: "en", Rating: 5, Author: "a", Title: "t", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	checkStats(t, s, append(data, c), productIDs(data))
}

func testDesignNewer(t *testing.T, tbl table.Table) {
	data := Dataset(10)[:40]
	if err := store.New(tbl).PutComments(context.Background(), data); err != nil {
		t.Fatal(err)
	}
	k := store.DesignKey()
	MustPut(t, tbl, table.Item{table.AttrPK: table.S(k.PK), table.AttrSK: table.S(k.SK), "design": table.N(store.DesignVersion + 1)})
	s, ctx := store.New(tbl), context.Background()
	_, err := s.ReadDesign(ctx)
	MustErrorCode(t, err, table.EINVALID)
	_, err = s.CheckDesign(ctx)
	MustErrorCode(t, err, table.EINVALID)
	_, err = s.RebuildStats(ctx, 2)
	MustErrorCode(t, err, table.EINVALID)
	if n := len(MustScanAll(t, tbl, 0, 1, 100)); n != len(data)+1 {
		t.Errorf("the refused rebuild left %d items, want the %d it found", n, len(data)+1)
	}
}
