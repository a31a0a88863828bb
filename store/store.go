package store

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/acme/comments-gateway/store/table"
)

// Store is the comments model over a Table: comment and stats operations,
// the planner-driven comment listing, the leaderboard, and bulk loads.
type Store struct {
	table table.Table
	// local: the table answers in-process, so a merge reads its partitions
	// one after another (a goroutine would cost more than the read).
	local  bool
	writes table.WriteCounter // the table, when it counts its writes (ReadStats)
	rounds table.RoundReader  // the table, when it reads a round of queries at once
	merges table.MergeReader  // the table, when it merges partitions itself
	sizing Sizing             // BalancedSizing unless WithSizing
	now    func() time.Time
	newID  func(time.Time) string
	mod    Moderation // off unless WithModeration
	publishState
	hints   statsHints   // the stats last read, per product and language
	helpful helpfulState // whether MOST_HELPFUL can be served (CheckHelpful)
	settles settleQueue  // the writers waiting for a leaderboard settle
}

// Option configures a Store.
type Option func(*Store)

// WithSizing sets the merge sizing (default BalancedSizing).
func WithSizing(sz Sizing) Option { return func(s *Store) { s.sizing = sz } }

// WithClock sets the clock used for createdAt of new comments.
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// New returns a Store over t. A Table that has a method Local() bool
// returning true (an embedded store) is read sequentially; one that is a
// RoundReader reads each round of a merge at once, and one that is a
// MergeReader reads a merge's first round as one merged read when the
// sizing says so (Sizing.Merged); one that is a WriteCounter lets ReadStats
// answer stats read since its last write without reading them again.
func New(t table.Table, opts ...Option) *Store {
	s := &Store{
		table:  t,
		now:    time.Now,
		sizing: BalancedSizing,
		newID:  func(t time.Time) string { return ulid.MustNew(ulid.Timestamp(t), rand.Reader).String() },
	}
	for _, o := range opts {
		o(s)
	}
	if l, ok := t.(interface{ Local() bool }); ok {
		s.local = l.Local()
	}
	s.writes, _ = t.(table.WriteCounter)
	s.rounds, _ = t.(table.RoundReader)
	s.merges, _ = t.(table.MergeReader)
	return s
}

// Ping reports whether the table answers a read: one Get of a key no item
// has (a readiness probe; it costs the smallest read there is).
func (s *Store) Ping(ctx context.Context) error {
	_, err := s.table.Get(ctx, StatsKey("readyz", ""))
	return tableError(err)
}

// IsEmpty reports whether the table holds no item but its meta item
// (DesignKey).
func (s *Store) IsEmpty(ctx context.Context) (bool, error) {
	var start table.Item
	for {
		items, next, err := s.table.Scan(ctx, 0, 1, start, 2)
		if err != nil {
			return false, err
		}
		for _, it := range items {
			if it.Key() != DesignKey() {
				return false, nil
			}
		}
		if next == nil {
			return true, nil
		}
		start = next
	}
}
