package store

import (
	"context"
	"sync"
	"time"

	"github.com/acme/comments-gateway/store/table"
)

// The helpful twins (docs/design.md §3.3) hold the comments that carry an
// HSK. Every published comment this code writes carries one (Comment.Item),
// but comments written before the twins existed do not: on a DynamoDB
// table they are absent from the twins until a rebuild gives them their HSK
// (helpfulBackfill, during RebuildStats' scan), and until then a
// MOST_HELPFUL page would silently leave them out. So the table's meta item
// records, once every published comment carries its HSK, the mark
// attrHelpfulSorted; CheckHelpful reads it, and HelpfulReady refuses the
// order while it is missing. A table that records no design yet is new
// (design.go), so it gets the mark with its first design. An embedded file
// needs no mark: bolt's Open gives its old comments their HSK when it
// builds the twins.

// attrHelpfulSorted is the meta item's (DesignKey) mark: every published
// comment of the table carries its HSK.
const attrHelpfulSorted = "helpfulSorted"

// helpfulRecheck is how long HelpfulReady trusts a check that found the
// order unavailable before it checks again (the table may have been
// upgraded meanwhile).
const helpfulRecheck = time.Minute

// helpfulState is what the last CheckHelpful found.
type helpfulState struct {
	mu      sync.Mutex
	err     error // why MOST_HELPFUL cannot be served; nil: it can
	checked time.Time
}

// CheckHelpful finds whether the table can serve the MOST_HELPFUL order:
// it has the helpful twins (a Query of each) and every published comment
// carries its HSK (the meta item's mark, or it is an embedded file). The
// mark is set by RebuildStats (rebuild-stats, seed, import) and with the
// first design recorded on a table (CheckDesign: a new table, whose
// comments are all written by this code).
// It returns why not, an EUNAVAILABLE error naming the command that fixes
// it, which HelpfulReady returns from then on; an error reading the table
// is returned too (its own code) and changes nothing.
func (s *Store) CheckHelpful(ctx context.Context) error {
	reason, err := s.helpfulReason(ctx)
	if err != nil {
		return err
	}
	s.helpful.mu.Lock()
	defer s.helpful.mu.Unlock()
	s.helpful.err, s.helpful.checked = reason, time.Now()
	return reason
}

// HelpfulReady returns nil when the MOST_HELPFUL order can be served, and
// otherwise the EUNAVAILABLE error CheckHelpful found (checking again when
// that is older than a minute). A Store on which CheckHelpful never ran is
// ready.
func (s *Store) HelpfulReady(ctx context.Context) error {
	s.helpful.mu.Lock()
	err, at := s.helpful.err, s.helpful.checked
	s.helpful.mu.Unlock()
	if err == nil || time.Since(at) < helpfulRecheck {
		return err
	}
	return s.CheckHelpful(ctx)
}

// helpfulReason is CheckHelpful's finding: why the order cannot be served
// (an EUNAVAILABLE error; nil: it can), or an error reading the table. A
// Query of a twin that fails with any error but EUNAVAILABLE (DynamoDB
// rejects a Query of an index it does not have, or is still building)
// means the twin is missing.
func (s *Store) helpfulReason(ctx context.Context) (reason, err error) {
	for _, d := range table.HelpfulIndexes {
		_, err := s.table.Query(ctx, table.Query{Index: d.Name, HashValue: ProductPK("-"), Limit: 1})
		switch {
		case ErrorCode(err) == EUNAVAILABLE:
			return nil, err
		case err != nil:
			return Wrap(EUNAVAILABLE, err, "the MOST_HELPFUL order is not available: the table lacks index %s; "+
				"run `comments-gateway create-table` (it adds the helpful indexes), then `comments-gateway rebuild-stats`", d.Name), nil
		}
	}
	if s.local {
		return nil, nil
	}
	it, err := s.table.Get(ctx, DesignKey())
	if err != nil || it.N(attrHelpfulSorted) == 1 {
		return nil, tableError(err)
	}
	return Errorf(EUNAVAILABLE, "the MOST_HELPFUL order is not available yet: the comments written before the helpful indexes "+
		"are not in them; stop the older gateways and run `comments-gateway rebuild-stats` once"), nil
}

// markHelpfulSorted records that every published comment carries its HSK,
// and that this Store may serve MOST_HELPFUL.
func (s *Store) markHelpfulSorted(ctx context.Context) error {
	op := table.Op{Kind: table.OpUpdate, Key: DesignKey(), Set: table.Item{attrHelpfulSorted: table.N(1)}}
	if err := s.table.Write(ctx, []table.Op{op}); err != nil {
		return tableError(err)
	}
	s.helpful.mu.Lock()
	defer s.helpful.mu.Unlock()
	s.helpful.err = nil
	return nil
}

// helpfulBackfill returns the update that gives it, a published comment
// item written before the helpful twins, its HSK, or false when it needs
// none (it has one, or lacks the public keys). The update is conditional
// on the comment being as it was read (its version), still published and
// still without HSK: a comment written since carries its own.
func helpfulBackfill(it table.Item) (table.Op, bool) {
	gsisk, ok := it[table.AttrGSISK].Str()
	_, published := it[table.AttrGSI4PK].Str()
	if _, has := it[table.AttrHSK]; has || !ok || !published {
		return table.Op{}, false
	}
	version := table.Cond{Kind: table.CondAbsent, Attr: table.AttrVersion}
	if v, ok := it[table.AttrVersion]; ok {
		version = table.Cond{Kind: table.CondEquals, Attr: table.AttrVersion, Value: v}
	}
	return table.Op{
		Kind: table.OpUpdate, Key: it.Key(),
		Set:   table.Item{table.AttrHSK: table.S(HelpfulSortKey(it.N(table.AttrHelpful), gsisk))},
		Conds: []table.Cond{version, {Kind: table.CondAbsent, Attr: table.AttrHSK}, {Kind: table.CondAbsent, Attr: table.AttrStatus}},
	}, true
}

// backfillHelpful writes the update of helpfulBackfill for it, if it needs
// one, and reports whether it did: a comment that changed since it was read
// (ECONFLICT) was written with its HSK and is left as it is.
func (s *Store) backfillHelpful(ctx context.Context, it table.Item) (bool, error) {
	op, ok := helpfulBackfill(it)
	if !ok {
		return false, nil
	}
	switch err := s.table.Write(ctx, []table.Op{op}); {
	case ErrorCode(err) == ECONFLICT:
		return false, nil
	case err != nil:
		return false, tableError(err)
	}
	return true, nil
}
