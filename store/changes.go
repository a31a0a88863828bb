package store

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"slices"
	"strconv"
	"sync"
	"time"
)

// ChangeKind is what one committed write did to a comment.
type ChangeKind string

// The kinds of change.
const (
	ChangeAdded   ChangeKind = "ADDED"
	ChangeUpdated ChangeKind = "UPDATED"
	ChangeDeleted ChangeKind = "DELETED"
)

// Change is one committed write of a comment, as live subscribers see it.
type Change struct {
	// ID is unique and ordered by the time of the write (a ULID); in the
	// change log it is the item's sort key.
	ID   string
	Kind ChangeKind
	// Comment is the comment after the write; for ChangeDeleted, the
	// comment as it was before.
	Comment *Comment
	// Old is the comment before an update (nil for the other kinds): a
	// filtered list needs it to tell whether the comment left the list.
	Old *Comment
}

// Publisher receives every committed change of a Store (see WithPublisher).
// Publish is called after the write's transaction committed, in commit
// order, and must not block: it runs under the store's publish lock.
type Publisher interface {
	Publish(Change)
}

// WithPublisher makes the store call p.Publish after each committed comment
// write (the in-process delivery of a single instance).
func WithPublisher(p Publisher) Option { return func(s *Store) { s.publisher = p } }

// WithChangeLog makes every comment write also put its Change into the
// table's change log, in the same transaction, so that other processes on
// the same table can follow it (ReadChanges). The log is spread over shards
// partitions by product id (at least 1).
func WithChangeLog(shards int) Option {
	return func(s *Store) { s.changeShards = max(shards, 1) }
}

// ChangeLogTTL is how long a change log item is kept: its expiresAt
// attribute (DynamoDB's time to live) is this long after the write.
const ChangeLogTTL = time.Hour

// Change log attributes and key prefix.
const (
	AttrChange    = "change"    // the Change, JSON
	AttrExpiresAt = "expiresAt" // Unix seconds; the table's TTL attribute
	changesPrefix = "CHANGES#"
)

// ChangeLogPK is the partition key of change log shard n.
func ChangeLogPK(n int) string { return changesPrefix + strconv.Itoa(n) }

// ChangeShard returns the change log shard of product pid among shards.
func ChangeShard(pid string, shards int) int {
	h := fnv.New32a()
	h.Write([]byte(pid))
	return int(h.Sum32() % uint32(max(shards, 1)))
}

// ChangeShards returns the number of change log shards (0: no change log).
func (s *Store) ChangeShards() int { return s.changeShards }

// commit writes ops atomically, together with ch's change log item when the
// store keeps a change log, and then publishes ch. The publish lock makes
// the publish order the commit order.
func (s *Store) commit(ctx context.Context, ops []Op, ch Change) error {
	ch.ID = s.newID(s.now())
	if s.changeShards > 0 {
		op, err := s.changeLogOp(ch)
		if err != nil {
			return err
		}
		ops = append(ops, op)
	}
	if s.publisher == nil {
		return tableError(s.table.Write(ctx, ops), ECONFLICT)
	}
	s.publishMu.Lock()
	defer s.publishMu.Unlock()
	if err := s.table.Write(ctx, ops); err != nil {
		return tableError(err, ECONFLICT)
	}
	s.publisher.Publish(ch)
	return nil
}

// changeRecord is the JSON form of a Change in the log.
type changeRecord struct {
	Kind    ChangeKind `json:"kind"`
	Comment *Comment   `json:"comment"`
	Old     *Comment   `json:"old,omitempty"`
}

func (s *Store) changeLogOp(ch Change) (Op, error) {
	b, err := json.Marshal(changeRecord{Kind: ch.Kind, Comment: ch.Comment, Old: ch.Old})
	if err != nil {
		return Op{}, Wrap(EINTERNAL, err, "encode change")
	}
	k := Key{PK: ChangeLogPK(ChangeShard(ch.Comment.ProductID, s.changeShards)), SK: ch.ID}
	it := Item{AttrPK: k.PK, AttrSK: k.SK, AttrChange: string(b),
		AttrExpiresAt: s.now().Add(ChangeLogTTL).Unix()}
	return Op{Kind: OpPut, Key: k, Item: it, Conds: []Cond{{Kind: CondNotExists}}}, nil
}

// changePage is how many change log items one ReadChanges query asks for.
const changePage = 100

// ReadChanges returns the changes of log shard n whose id is greater than
// after (all when after is ""), oldest first, reading the whole rest of the
// shard in pages.
func (s *Store) ReadChanges(ctx context.Context, n int, after string) ([]Change, error) {
	q := Query{HashValue: ChangeLogPK(n), Forward: true, Limit: changePage}
	if after != "" {
		q.SortOp, q.SortValue = SortGreater, after
	}
	var out []Change
	for {
		res, err := s.table.Query(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, it := range res.Items {
			var r changeRecord
			if err := json.Unmarshal([]byte(it.S(AttrChange)), &r); err != nil || r.Comment == nil {
				return nil, Errorf(EINTERNAL, "change log item %q: malformed change", it.S(AttrSK))
			}
			out = append(out, Change{ID: it.S(AttrSK), Kind: r.Kind, Comment: r.Comment, Old: r.Old})
		}
		if res.LastKey == nil {
			return out, nil
		}
		q.StartKey = res.LastKey
	}
}

// publishState is the part of a Store that live updates use.
type publishState struct {
	publisher    Publisher
	publishMu    sync.Mutex
	changeShards int
}

// Matches reports whether comment c is in the list that f selects (the
// comments query's filter: language, and ratings when not nil).
func (f Filter) Matches(c *Comment) bool {
	if f.Language != "" && c.Language != f.Language {
		return false
	}
	return f.Ratings == nil || slices.Contains(f.Ratings, c.Rating)
}
