package store

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"hash/fnv"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
	"golang.org/x/sync/errgroup"

	"github.com/acme/comments-gateway/store/table"
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
	// ID is unique and ordered by the time of the write (a ULID): taken
	// by the writer (one process), or derived from the table stream record
	// (StreamChangeID), so that reading a record twice gives one id.
	ID string
	// LogKey is the change's sort key in the change log (a ULID of when it
	// was logged); ReadChanges sets it.
	LogKey string
	Kind   ChangeKind
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

// WithChangeLog sets the number of partitions of the table's change log
// (at least 1): the log that DynamoDB instances follow (ReadChanges) and
// that the one elected stream reader fills (AppendChanges). Writes do not
// touch the log: the table's stream carries every committed write.
func WithChangeLog(shards int) Option {
	return func(s *Store) { s.changeShards = max(shards, 1) }
}

// changeLogTTL is how long a change log item is kept: its expiresAt
// attribute (DynamoDB's time to live) is this long after it was logged.
const changeLogTTL = time.Hour

// Change log attributes and key prefix.
const (
	attrChanges   = "changes" // the Changes of one log item, a JSON array, in order
	attrChange    = "change"  // one Change, JSON (the items of earlier versions)
	changesPrefix = "CHANGES#"
)

// AttrExpiresAt is the change log items' expiry, in Unix seconds: the
// table's time-to-live attribute (create-table turns TTL on for it).
const AttrExpiresAt = "expiresAt"

// changeLogPK is the partition key of change log shard n.
func changeLogPK(n int) string { return changesPrefix + strconv.Itoa(n) }

// ChangeShard returns the change log shard of product pid among shards.
func ChangeShard(pid string, shards int) int {
	h := fnv.New32a()
	h.Write([]byte(pid))
	return int(h.Sum32() % uint32(max(shards, 1)))
}

// ChangeShards returns the number of change log shards (0: no change log).
func (s *Store) ChangeShards() int { return s.changeShards }

// StreamChangeID returns the id of the change that a table stream record
// with sequence number seq, created at t, carries: a ULID with t's time
// and, as its random part, the start of SHA-256(seq). The same record read
// twice (by a new stream reader after a failover) gives the same id, so
// followers can drop the repeat.
func StreamChangeID(t time.Time, seq string) string {
	var u ulid.ULID
	sum := sha256.Sum256([]byte(seq))
	_ = u.SetEntropy(sum[:10]) // 10 bytes: cannot fail
	_ = u.SetTime(ulid.Timestamp(t))
	return u.String()
}

// commit writes ops atomically and then publishes ch when the store has a
// publisher (one process) and ch is a change (a write of an unpublished
// comment has Kind ""). The publish lock makes the publish order the
// commit order.
func (s *Store) commit(ctx context.Context, ops []table.Op, ch Change) error {
	ch.ID = s.newID(s.now())
	if s.publisher == nil || ch.Kind == "" {
		return tableError(s.table.Write(ctx, ops), ECONFLICT, EFORBIDDEN)
	}
	s.publishMu.Lock()
	defer s.publishMu.Unlock()
	if err := s.table.Write(ctx, ops); err != nil {
		return tableError(err, ECONFLICT, EFORBIDDEN)
	}
	s.publisher.Publish(ch)
	return nil
}

// changeRecord is the JSON form of a Change in the log.
type changeRecord struct {
	ID      string     `json:"id"`
	Kind    ChangeKind `json:"kind"`
	Comment *Comment   `json:"comment"`
	Old     *Comment   `json:"old,omitempty"`
}

// maxLogItem bounds the JSON of the changes one change log item holds
// (DynamoDB items are at most 400 KB; a change is at most ~45 KB).
const maxLogItem = 300_000

// AppendChanges puts changes into the change log, in order: the changes
// of each shard (by product) go into as few items as fit, written one after
// another, each under a new sort key (a ULID of now, increasing from one
// item to the next), so that a reader sees a product's changes in order
// and never a later one without the earlier ones. Shards are written in
// parallel. It is not atomic as a group: on error some may be logged, and
// the caller appends them all again (followers drop a change whose id they
// have already published).
func (s *Store) AppendChanges(ctx context.Context, changes []Change) error {
	shards := max(s.changeShards, 1)
	byShard := map[int][][]byte{}
	for _, ch := range changes {
		b, err := json.Marshal(changeRecord{ID: ch.ID, Kind: ch.Kind, Comment: ch.Comment, Old: ch.Old})
		if err != nil {
			return Wrap(EINTERNAL, err, "encode change")
		}
		n := ChangeShard(ch.Comment.ProductID, shards)
		byShard[n] = append(byShard[n], b)
	}
	g, gctx := errgroup.WithContext(ctx)
	for n, recs := range byShard {
		g.Go(func() error {
			for len(recs) > 0 {
				k, size := 0, 0
				for k < len(recs) && (k == 0 || size+len(recs[k]) < maxLogItem) {
					size += len(recs[k]) + 1
					k++
				}
				now := s.now()
				it := table.Item{table.AttrPK: table.S(changeLogPK(n)), table.AttrSK: table.S(s.logKey(now)), AttrExpiresAt: table.N(now.Add(changeLogTTL).Unix()),
					attrChanges: table.S("[" + string(bytes.Join(recs[:k], []byte(","))) + "]")}
				if err := s.table.Write(gctx, []table.Op{{Kind: table.OpPut, Key: it.Key(), Item: it}}); err != nil {
					return tableError(err)
				}
				recs = recs[k:]
			}
			return nil
		})
	}
	return g.Wait()
}

// logKey returns the next change log sort key: a ULID of now, greater than
// every key this store made before (monotonic within a millisecond).
func (s *Store) logKey(now time.Time) string {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	if s.logEntropy == nil {
		s.logEntropy = ulid.Monotonic(rand.Reader, 0)
	}
	ms := max(ulid.Timestamp(now), s.logLast)
	id, err := ulid.New(ms, s.logEntropy)
	if err != nil { // the millisecond's entropy overflowed: take the next
		ms++
		id = ulid.MustNew(ms, s.logEntropy)
	}
	s.logLast = ms
	return id.String()
}

// changePage is how many change log items one ReadChanges query asks for.
const changePage = 100

// ReadChanges returns the changes of log shard n whose log sort key is
// greater than after (all when after is ""), in log order, reading the
// whole rest of the shard in pages. Each Change has its LogKey set.
func (s *Store) ReadChanges(ctx context.Context, n int, after string) ([]Change, error) {
	q := table.Query{HashValue: changeLogPK(n), Forward: true, Limit: changePage}
	if after != "" {
		q.SortOp, q.SortValue = table.SortGreater, after
	}
	var out []Change
	for {
		res, err := s.table.Query(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, it := range res.Items {
			chs, err := logItemChanges(it)
			if err != nil {
				return nil, err
			}
			out = append(out, chs...)
		}
		if res.LastKey == nil {
			return out, nil
		}
		q.StartKey = res.LastKey
	}
}

// logItemChanges decodes the changes of one change log item.
func logItemChanges(it table.Item) ([]Change, error) {
	var recs []changeRecord
	var err error
	if v, ok := it[attrChanges].Str(); ok {
		err = json.Unmarshal([]byte(v), &recs)
	} else {
		recs = make([]changeRecord, 1)
		err = json.Unmarshal([]byte(it.S(attrChange)), &recs[0])
	}
	out := make([]Change, len(recs))
	for i, r := range recs {
		if err != nil || r.Comment == nil {
			return nil, Errorf(EINTERNAL, "change log item %q: malformed change", it.S(table.AttrSK))
		}
		out[i] = Change{ID: cmp.Or(r.ID, it.S(table.AttrSK)), LogKey: it.S(table.AttrSK), Kind: r.Kind, Comment: r.Comment, Old: r.Old}
	}
	if err != nil {
		return nil, Errorf(EINTERNAL, "change log item %q: malformed changes", it.S(table.AttrSK))
	}
	return out, nil
}

// publishState is the part of a Store that live updates use.
type publishState struct {
	publisher    Publisher
	publishMu    sync.Mutex
	changeShards int
	// The change log keys AppendChanges makes (logKey).
	logMu      sync.Mutex
	logEntropy *ulid.MonotonicEntropy
	logLast    uint64 // the millisecond of the last key
}

// Matches reports whether comment c is in the list that f selects (the
// comments query's filter: language, and ratings when not nil).
func (f Filter) Matches(c *Comment) bool {
	if f.Language != "" && c.Language != f.Language {
		return false
	}
	return f.Ratings == nil || slices.Contains(f.Ratings, c.Rating)
}
