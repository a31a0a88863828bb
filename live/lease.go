package live

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// Lease defaults: a short lease, renewed often, so that a dead reader is
// replaced within about LeaseDuration + LeaseRenew.
const (
	DefaultLeaseDuration = 3 * time.Second
	DefaultLeaseRenew    = time.Second
)

// LeaseKey is the key of the stream reader's lease item in the table.
var LeaseKey = table.Key{PK: "LEASE#stream", SK: "reader"}

// Lease item attributes.
const (
	attrOwner       = "owner"       // the holder's id; "" once released
	attrCounter     = "counter"     // bumped by every write of the holder
	attrCheckpoints = "checkpoints" // JSON: stream shard id → last sequence number processed
	attrSince       = "since"       // Unix ms when the lease was first created
	attrHeldUntil   = "heldUntil"   // Unix ms, the holder's clock: for people, not for the protocol
)

// Lease elects one holder among the processes that share a table, the way
// the Kinesis Client Library does: an item with the holder, a counter the
// holder bumps at every renewal, and the reader's checkpoints. A take is
// conditional on the counter the taker saw, so exactly one taker wins a
// race.
//
// A process that does not hold the lease takes it when its counter has not
// moved for Duration by the process's own clock (so clocks need not
// agree), or at once when it is absent or released; the holder's writes
// are conditional on still being the owner. The holder considers
// the lease lost, and stops, when Duration has passed since the start of
// its last successful renewal: it stops no later than a taker can take.
//
// A Lease is safe for concurrent use (a renewing goroutine and the reader
// checkpointing); its writes are serialized.
type Lease struct {
	Table    table.Table
	Owner    string        // this process's unique id
	Duration time.Duration // DefaultLeaseDuration when 0

	now     func() time.Time
	mu      sync.Mutex // serializes the methods
	held    bool
	counter int64     // the item's counter as last seen or written
	seenAt  time.Time // when counter was first seen (not held)
	renewed time.Time // start of the last successful write (held)
	since   int64
}

// LeaseState is what the holder reads from the lease when it takes it.
type LeaseState struct {
	// Checkpoints maps a stream shard id to the sequence number of the
	// last record the previous holders processed (ShardEnd once a closed
	// shard is read to its end).
	Checkpoints map[string]string
	// Since is when the lease was first created: records older than that
	// were written before any reader ran and are not republished.
	Since time.Time
}

// ShardEnd is the checkpoint of a closed shard read to its end.
const ShardEnd = "SHARD_END"

func (l *Lease) clock() time.Time {
	if l.now != nil {
		return l.now()
	}
	return time.Now()
}

func (l *Lease) duration() time.Duration {
	if l.Duration > 0 {
		return l.Duration
	}
	return DefaultLeaseDuration
}

// Held reports whether the process holds the lease now (it stops holding
// it Duration after its last successful renewal began).
func (l *Lease) Held() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.heldLocked()
}

func (l *Lease) heldLocked() bool {
	return l.held && l.clock().Sub(l.renewed) < l.duration()
}

// TryAcquire takes the lease when it is free, released or stale, and
// returns its state; ok is false when another process holds it.
func (l *Lease) TryAcquire(ctx context.Context) (st LeaseState, ok bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock()
	it, err := l.Table.Get(ctx, LeaseKey)
	if err != nil {
		return st, false, err
	}
	cond := table.Cond{Kind: table.CondNotExists}
	if it != nil {
		c := it.N(attrCounter)
		if c != l.counter || l.seenAt.IsZero() {
			l.counter, l.seenAt = c, now
		}
		if it.S(attrOwner) != "" && it.S(attrOwner) != l.Owner && now.Sub(l.seenAt) < l.duration() {
			return st, false, nil
		}
		cond = table.Cond{Kind: table.CondEquals, Attr: attrCounter, Value: table.N(c)}
		if err := json.Unmarshal([]byte(it.S(attrCheckpoints)), &st.Checkpoints); err != nil {
			return st, false, store.Wrap(store.EINTERNAL, err, "lease item: malformed checkpoints")
		}
		l.since = it.N(attrSince)
	} else {
		l.counter, l.since = 0, now.UnixMilli()
	}
	if st.Checkpoints == nil {
		st.Checkpoints = map[string]string{}
	}
	st.Since = time.UnixMilli(l.since)
	if err := l.take(ctx, now, st.Checkpoints, cond); err != nil {
		if store.ErrorCode(err) == store.ECONFLICT {
			l.seenAt = time.Time{}
			return st, false, nil
		}
		return st, false, err
	}
	return st, true, nil
}

// Renew writes the checkpoints and extends the lease (bumping its counter).
// It fails with ECONFLICT, and the lease is no longer held, when another
// process took it or when Duration has passed since the last renewal.
func (l *Lease) Renew(ctx context.Context, checkpoints map[string]string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.heldLocked() {
		l.held = false
		return store.Errorf(store.ECONFLICT, "lease expired before its renewal")
	}
	return l.update(ctx, l.Owner, checkpoints)
}

// Release gives the lease up, with the final checkpoints, so another
// process can take it at once.
func (l *Lease) Release(ctx context.Context, checkpoints map[string]string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.held {
		return nil
	}
	err := l.update(ctx, "", checkpoints)
	l.held = false
	return err
}

// update renews (owner = l.Owner) or releases (owner "") the lease, on the
// condition that this process still owns it. The counter is ADDed to, so
// it moves even when this process's last write had an unknown outcome (a
// timeout after DynamoDB applied it).
func (l *Lease) update(ctx context.Context, owner string, checkpoints map[string]string) error {
	b, err := json.Marshal(checkpoints)
	if err != nil {
		return store.Wrap(store.EINTERNAL, err, "encode checkpoints")
	}
	now := l.clock()
	err = l.Table.Write(ctx, []table.Op{{Kind: table.OpUpdate, Key: LeaseKey,
		Add:   map[string]int64{attrCounter: 1},
		Set:   table.Item{attrOwner: table.S(owner), attrCheckpoints: table.S(string(b)), attrHeldUntil: table.N(now.Add(l.duration()).UnixMilli())},
		Conds: []table.Cond{{Kind: table.CondEquals, Attr: attrOwner, Value: table.S(l.Owner)}}}})
	switch {
	case err == nil:
		l.renewed = now
	case store.ErrorCode(err) == store.ECONFLICT:
		l.held = false
	}
	return err
}

// take puts the lease item with this process as owner and the next
// counter, under cond (the item is absent, or its counter is the one seen).
func (l *Lease) take(ctx context.Context, now time.Time, checkpoints map[string]string, cond table.Cond) error {
	b, err := json.Marshal(checkpoints)
	if err != nil {
		return store.Wrap(store.EINTERNAL, err, "encode checkpoints")
	}
	it := table.Item{table.AttrPK: table.S(LeaseKey.PK), table.AttrSK: table.S(LeaseKey.SK), attrOwner: table.S(l.Owner),
		attrCounter: table.N(l.counter + 1), attrCheckpoints: table.S(string(b)), attrSince: table.N(l.since),
		attrHeldUntil: table.N(now.Add(l.duration()).UnixMilli())}
	err = l.Table.Write(ctx, []table.Op{{Kind: table.OpPut, Key: LeaseKey, Item: it, Conds: []table.Cond{cond}}})
	if err == nil {
		l.held, l.renewed = true, now
	}
	return err
}
