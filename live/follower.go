package live

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/acme/comments-gateway/store"
)

// Follower defaults.
const (
	DefaultPollInterval = 500 * time.Millisecond
	DefaultOverlap      = 5 * time.Second
	// DedupWindow is how long past Overlap a Follower remembers the ids
	// it published: longer than a failover re-read (lease duration +
	// renewal + a read round) takes to log a change again.
	DedupWindow = 30 * time.Second
)

// ChangeLog is the part of store.Store a Follower reads.
type ChangeLog interface {
	ChangeShards() int
	ReadChanges(ctx context.Context, shard int, after string) ([]store.Change, error)
}

// Follower polls the table's change log while its Hub has subscribers and
// publishes every change it has not published yet, so that a process sees
// the writes of every other process on the same table. It reads only the
// shards of the products its Hub has subscribers for (a product's changes
// are all in its shard, store.ChangeShard); a shard it starts reading is
// read, like the first read after idling, from Overlap back.
//
// The stream Reader logs each change under a ULID of when it logged it;
// a batch's items can become visible out of that order, and a new reader
// after a failover has another clock: each poll reads the shard from
// Overlap before the newest log key seen. A change logged twice (re-read
// by the new reader after a failover) keeps its id: the Follower publishes
// each id once, remembering ids for Overlap + DedupWindow.
type Follower struct {
	Log ChangeLog
	Hub *Hub
	// Interval between polls (DefaultPollInterval when 0).
	Interval time.Duration
	// Overlap is how far back each poll reads before the newest change
	// seen (DefaultOverlap when 0): it must exceed the writers' clock skew
	// plus the longest write.
	Overlap time.Duration
	Logger  *slog.Logger
}

// shardState is what a Follower knows about one log shard.
type shardState struct {
	newest time.Time            // time of the newest log key seen
	seen   map[string]time.Time // published change ids → their log time
}

// Run polls until ctx ends. While the hub has no subscriber it reads
// nothing; when subscribers come back, and when a subscriber of a product
// whose shard it does not read comes, its first read of the shard goes
// Overlap back, so changes committed while a client was (re)subscribing
// are delivered rather than lost (a client applies events by comment id,
// so a change it already has is harmless).
func (f *Follower) Run(ctx context.Context) {
	interval, overlap := f.Interval, f.Overlap
	if interval <= 0 {
		interval = DefaultPollInterval
	}
	if overlap <= 0 {
		overlap = DefaultOverlap
	}
	log := f.Logger
	if log == nil {
		log = slog.Default()
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	var shards []*shardState // nil while idle; an entry is nil while not read
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		wanted := f.wantedShards()
		if wanted == nil {
			shards = nil
			continue
		}
		if shards == nil {
			shards = make([]*shardState, len(wanted))
		}
		// Shards are read in parallel; each publishes in its own order
		// (a product's changes are all in one shard).
		var wg sync.WaitGroup
		for i := range shards {
			if !wanted[i] {
				shards[i] = nil
				continue
			}
			if shards[i] == nil {
				shards[i] = &shardState{newest: time.Now(), seen: map[string]time.Time{}}
			}
			st := shards[i]
			wg.Go(func() {
				if err := f.poll(ctx, i, st, overlap); err != nil && ctx.Err() == nil {
					log.Warn("live: read change log", "shard", i, "err", err.Error())
				}
			})
		}
		wg.Wait()
	}
}

// wantedShards returns, for each change log shard, whether a product of
// the hub's subscribers is in it; nil when the hub has no subscriber (or
// the table no change log).
func (f *Follower) wantedShards() []bool {
	products, n := f.Hub.Products(), f.Log.ChangeShards()
	if len(products) == 0 || n == 0 {
		return nil
	}
	wanted := make([]bool, n)
	for _, pid := range products {
		wanted[store.ChangeShard(pid, len(wanted))] = true
	}
	return wanted
}

// poll reads shard n from overlap before its newest change and publishes
// the changes not seen yet.
func (f *Follower) poll(ctx context.Context, n int, st *shardState, overlap time.Duration) error {
	from := st.newest.Add(-overlap)
	var after ulid.ULID
	if err := after.SetTime(ulid.Timestamp(from)); err != nil {
		return err
	}
	changes, err := f.Log.ReadChanges(ctx, n, after.String())
	if err != nil {
		return err
	}
	for _, ch := range changes {
		at := changeTime(ch.LogKey)
		if at.After(st.newest) {
			st.newest = at
		}
		if _, ok := st.seen[ch.ID]; ok {
			continue
		}
		st.seen[ch.ID] = at
		f.Hub.Publish(ch)
	}
	forget := from.Add(-DedupWindow)
	for id, at := range st.seen {
		if at.Before(forget) {
			delete(st.seen, id)
		}
	}
	return nil
}

// changeTime returns the time of a change id (zero when it is not a ULID).
func changeTime(id string) time.Time {
	u, err := ulid.ParseStrict(id)
	if err != nil {
		return time.Time{}
	}
	return ulid.Time(u.Time())
}
