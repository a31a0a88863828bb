package store

import (
	"context"

	"github.com/acme/comments-gateway/store/table"
)

// The logical design of the table: which items hold what. The table records
// the design it was last made to follow in a meta item (DesignKey), and a
// design that changes where the data lives gets a new number:
//
//  1. one stats item per product and language, which is also the product's
//     leaderboard entry (GSIPK = LEADERS[#<lang>], unsharded);
//  2. the counts write-sharded over StatsShards items (shard 0 is design
//     1's stats item, so design 1's counts read correctly) and the
//     leaderboard entries items of their own over LeaderShards partitions
//     (LEADERS[#<lang>]/<k>): design 1's leaderboard is not read.
//
// Tables of design 1 never recorded it. So a table is of design 1 when it
// holds a design-1 leaderboard entry (legacyLeaders); one without, even
// with no meta item, is read correctly by this code as it is: a new empty
// table, a table of design 2 written before the design was recorded, or a
// table of design 1 with no 5-star comment (whose stats are its shard 0).

// DesignVersion is the logical design this code reads and writes.
const DesignVersion = 2

// legacyProbe is how many entries of design 1's leaderboard partition
// ReadDesign reads to find one that is still in the table.
const legacyProbe = 10

const (
	metaPK     = "META"
	designSK   = "design"
	attrDesign = "design" // the design number (N) of the meta item
)

// DesignKey is the key of the meta item that records the table's design.
func DesignKey() table.Key { return table.Key{PK: metaPK, SK: designSK} }

// Design is what a table tells of its logical design.
type Design struct {
	// Recorded is the design its meta item records: 0 when it has none
	// (a new table, or one written by a gateway that did not record it).
	Recorded int64
	// Legacy: the table holds leaderboard entries of design 1, which this
	// code does not read (topProducts would leave those products out):
	// RebuildStats moves them to design 2. Set whatever Recorded says, as
	// a gateway of design 1 writing to the table again puts some back.
	Legacy bool
}

// ReadDesign reads the table's meta item and looks for design 1's
// leaderboard entries: a Get, a Query of at most legacyProbe index entries
// and, when it finds some, a BatchGet of their items (strongly consistent:
// an index entry of an item that a rebuild just rewrote is not counted). A
// table of a design newer than DesignVersion is an EINVALID error that
// says to run a newer gateway.
func (s *Store) ReadDesign(ctx context.Context) (Design, error) {
	var d Design
	var err error
	if d.Recorded, err = s.recordedDesign(ctx); err != nil {
		return d, err
	}
	d.Legacy, err = s.legacyLeaders(ctx)
	return d, err
}

// CheckDesign reads the table's design (ReadDesign) and, when the table is
// read correctly as it is (not Legacy) but has not recorded DesignVersion,
// records it. The Design returned is the one read.
func (s *Store) CheckDesign(ctx context.Context) (Design, error) {
	d, err := s.ReadDesign(ctx)
	if err != nil || d.Legacy || d.Recorded == DesignVersion {
		return d, err
	}
	return d, s.recordDesign(ctx, d.Recorded)
}

// recordedDesign returns the design the meta item records (0: none), or an
// EINVALID error when it is newer than this code's.
func (s *Store) recordedDesign(ctx context.Context) (int64, error) {
	it, err := s.table.Get(ctx, DesignKey())
	if err != nil {
		return 0, tableError(err)
	}
	v := it.N(attrDesign)
	if v > DesignVersion {
		return v, Errorf(EINVALID, "the table has logical design %d, written by a newer comments-gateway; this one reads design %d: run the newer gateway", v, DesignVersion)
	}
	return v, nil
}

// recordDesign records DesignVersion in the meta item, on condition that
// it still records was (0: no design). Losing that race to another
// gateway that recorded DesignVersion is no error. A table that recorded
// no design (a new table, or one RebuildStats just went through) also
// gets the mark that its published comments carry their HSK (CheckHelpful).
func (s *Store) recordDesign(ctx context.Context, was int64) error {
	cond := table.Cond{Kind: table.CondAbsent, Attr: attrDesign}
	set := table.Item{attrDesign: table.N(DesignVersion), attrHelpfulSorted: table.N(1)}
	if was != 0 {
		cond = table.Cond{Kind: table.CondEquals, Attr: attrDesign, Value: table.N(was)}
		delete(set, attrHelpfulSorted)
	}
	op := table.Op{Kind: table.OpUpdate, Key: DesignKey(), Set: set, Conds: []table.Cond{cond}}
	err := s.table.Write(ctx, []table.Op{op})
	if ErrorCode(err) == ECONFLICT {
		now, rerr := s.recordedDesign(ctx)
		if rerr != nil || now == DesignVersion {
			return rerr
		}
	}
	return tableError(err)
}

// legacyLeaders reports whether the table holds a leaderboard entry of
// design 1: a stats item in the unsharded all-languages partition
// LEADERS (every product with a 5-star comment had one). Design 2 never
// writes that partition (its entries are in LEADERS/<k>).
func (s *Store) legacyLeaders(ctx context.Context) (bool, error) {
	res, err := s.table.Query(ctx, table.Query{Index: table.IndexByLangAndRating, HashValue: LeadersPK(""), Limit: legacyProbe})
	if err != nil || len(res.Items) == 0 {
		return false, tableError(err)
	}
	keys := make([]table.Key, len(res.Items))
	for i, it := range res.Items {
		keys[i] = it.Key()
	}
	items, err := s.table.BatchGet(ctx, keys)
	if err != nil {
		return false, tableError(err)
	}
	for _, it := range items {
		if it != nil && it.S(table.AttrGSIPK) == LeadersPK("") {
			return true, nil
		}
	}
	return false, nil
}
