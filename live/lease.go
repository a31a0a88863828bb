package live

import (
	"context"
	"encoding/json"
	"time"

	"github.com/acme/comments-gateway/store"
)

// Lease defaults: a short lease, renewed often, so that a dead reader is
// replaced within about LeaseDuration + LeaseRenew.
const (
	DefaultLeaseDuration = 3 * time.Second
	DefaultLeaseRenew    = time.Second
)

// LeaseKey is the key of the stream reader's lease item in the table.
var LeaseKey = store.Key{PK: "LEASE#stream", SK: "reader"}

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
// holder bumps at every renewal, and the reader's checkpoints. Every write
// is conditional on the counter the writer last saw, so exactly one writer
// wins a race.
//
// A process that does not hold the lease takes it when its counter has not
// moved for Duration by the process's own clock (so clocks need not
// agree), or at once when it is absent or released. The holder considers
// the lease lost, and stops, when Duration has passed since the start of
// its last successful renewal: it stops no later than a taker can take.
type Lease struct {
	Table    store.Table
	Owner    string        // this process's unique id
	Duration time.Duration // DefaultLeaseDuration when 0

	now     func() time.Time
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
	return l.held && l.clock().Sub(l.renewed) < l.duration()
}

// TryAcquire takes the lease when it is free, released or stale, and
// returns its state; ok is false when another process holds it.
func (l *Lease) TryAcquire(ctx context.Context) (st LeaseState, ok bool, err error) {
	now := l.clock()
	it, err := l.Table.Get(ctx, LeaseKey)
	if err != nil {
		return st, false, err
	}
	cond := store.Cond{Kind: store.CondNotExists}
	if it != nil {
		c := it.N(attrCounter)
		if c != l.counter || l.seenAt.IsZero() {
			l.counter, l.seenAt = c, now
		}
		if it.S(attrOwner) != "" && it.S(attrOwner) != l.Owner && now.Sub(l.seenAt) < l.duration() {
			return st, false, nil
		}
		cond = store.Cond{Kind: store.CondEquals, Attr: attrCounter, Value: c}
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
	if err := l.write(ctx, now, l.Owner, st.Checkpoints, cond); err != nil {
		if store.ErrorCode(err) == store.ECONFLICT {
			l.seenAt = time.Time{}
			return st, false, nil
		}
		return st, false, err
	}
	return st, true, nil
}

// Renew writes the checkpoints and extends the lease. It fails with
// ECONFLICT, and the lease is no longer held, when another process took it.
func (l *Lease) Renew(ctx context.Context, checkpoints map[string]string) error {
	now := l.clock()
	if !l.Held() {
		l.held = false
		return store.Errorf(store.ECONFLICT, "lease expired before its renewal")
	}
	return l.write(ctx, now, l.Owner, checkpoints, store.Cond{Kind: store.CondEquals, Attr: attrCounter, Value: l.counter})
}

// Release gives the lease up, with the final checkpoints, so another
// process can take it at once.
func (l *Lease) Release(ctx context.Context, checkpoints map[string]string) error {
	if !l.held {
		return nil
	}
	err := l.write(ctx, l.clock(), "", checkpoints, store.Cond{Kind: store.CondEquals, Attr: attrCounter, Value: l.counter})
	l.held = false
	return err
}

// write puts the lease item with owner and checkpoints, the next counter,
// under cond; it records the outcome.
func (l *Lease) write(ctx context.Context, now time.Time, owner string, checkpoints map[string]string, cond store.Cond) error {
	b, err := json.Marshal(checkpoints)
	if err != nil {
		return store.Wrap(store.EINTERNAL, err, "encode checkpoints")
	}
	it := store.Item{store.AttrPK: LeaseKey.PK, store.AttrSK: LeaseKey.SK, attrOwner: owner,
		attrCounter: l.counter + 1, attrCheckpoints: string(b), attrSince: l.since,
		attrHeldUntil: now.Add(l.duration()).UnixMilli()}
	err = l.Table.Write(ctx, []store.Op{{Kind: store.OpPut, Key: LeaseKey, Item: it, Conds: []store.Cond{cond}}})
	switch {
	case err == nil:
		l.counter++
		l.held, l.renewed = owner == l.Owner, now
	case store.ErrorCode(err) == store.ECONFLICT:
		l.held = false
	}
	return err
}
