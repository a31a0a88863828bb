package live

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"maps"
	"sync"
	"time"

	"github.com/acme/comments-gateway/store"
)

// Reader defaults.
const (
	// DefaultStreamPoll is the pause between two reads of a stream shard
	// (DynamoDB Streams serves up to 5 GetRecords per shard per second).
	DefaultStreamPoll = 250 * time.Millisecond
	// shardsRefresh is how often the holder lists the stream's shards
	// (new ones appear when DynamoDB splits or rolls them, every ~4 h).
	shardsRefresh = 10 * time.Second
	// callTimeout bounds one stream or table request of the reader.
	callTimeout = 5 * time.Second
	// sinkTimeout bounds passing one batch of records to the sink.
	sinkTimeout = 30 * time.Second
	// sinceMargin is how long before the lease's creation a record may be
	// and still be republished: record times are approximate (DynamoDB
	// rounds them down to the second, DynamoDB Local to the minute).
	sinceMargin = time.Minute
)

// StreamSource is the table stream a Reader reads (*dynamo.Stream, which
// package main wires in).
type StreamSource interface {
	Shards(ctx context.Context) ([]store.StreamShard, error)
	Iterator(ctx context.Context, shard, after string) (string, error)
	Records(ctx context.Context, iterator string) ([]store.StreamRecord, string, error)
}

// ChangeSink receives the changes the Reader reads, in stream order per
// shard (store.Store.AppendChanges: the change log every Follower reads).
type ChangeSink func(ctx context.Context, changes []store.Change) error

// Reader is the one process among those on a table that reads the table's
// stream: it holds the Lease, turns comment records into changes, passes
// them to Sink, and only then checkpoints, so a record is passed at least
// once. Records from more than a minute before the lease's creation are
// skipped (they were written before any reader ran: the first reader on a
// table does not replay 24 hours of writes).
//
// Only the holder reads, so each stream shard has at most one reader, two
// for a moment at a failover: within the limit of two readers per shard.
type Reader struct {
	Stream StreamSource
	Lease  *Lease
	Sink   ChangeSink
	// Poll is the pause between read rounds (DefaultStreamPoll when 0).
	Poll   time.Duration
	Logger *slog.Logger
	// Renew is the lease renewal interval (DefaultLeaseRenew when 0).
	Renew time.Duration

	mu        sync.Mutex        // guards st (the renewer reads its checkpoints)
	st        LeaseState        // checkpoints are replaced, never modified
	iterators map[string]string // open iterators by shard id
	shards    []store.StreamShard
	listedAt  time.Time
}

// Run takes part in the election until ctx ends; while it holds the lease
// it reads the stream, and a second goroutine renews the lease every
// Renew (with the latest checkpoints), so a slow read does not lose it. At
// the end it releases the lease with its final checkpoints so that another
// process takes over at once.
func (r *Reader) Run(ctx context.Context) {
	if r.Logger == nil {
		r.Logger = slog.Default()
	}
	poll, renew := cmp.Or(r.Poll, DefaultStreamPoll), cmp.Or(r.Renew, DefaultLeaseRenew)
	t := time.NewTicker(poll)
	defer t.Stop()
	var renewer sync.WaitGroup
	var tried time.Time
	for {
		switch {
		case r.Lease.Held():
			if err := r.round(ctx); err != nil && ctx.Err() == nil {
				r.Logger.Warn("live: stream reader", "err", err.Error())
			}
		case time.Since(tried) >= renew:
			tried = time.Now()
			renewer.Wait() // the previous term's renewer has seen the loss
			if r.acquire(ctx) {
				renewer.Go(func() { r.renewEvery(ctx, renew) })
			}
		}
		select {
		case <-ctx.Done():
			renewer.Wait()
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), callTimeout)
			if err := r.Lease.Release(rctx, r.checkpoints()); err != nil {
				r.Logger.Warn("live: release the stream lease", "err", err.Error())
			}
			cancel()
			return
		case <-t.C:
		}
	}
}

// acquire tries to take the lease and, on success, starts reading from its
// checkpoints.
func (r *Reader) acquire(ctx context.Context) bool {
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	st, ok, err := r.Lease.TryAcquire(cctx)
	if err != nil {
		if ctx.Err() == nil {
			r.Logger.Warn("live: take the stream lease", "err", err.Error())
		}
		return false
	}
	if ok {
		r.Logger.Info("live: this instance reads the table stream", "owner", r.Lease.Owner, "checkpoints", len(st.Checkpoints))
		r.mu.Lock()
		r.st = st
		r.mu.Unlock()
		r.iterators, r.shards = map[string]string{}, nil
	}
	return ok
}

// renewEvery renews the lease every interval until it is lost or ctx ends.
func (r *Reader) renewEvery(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := r.renew(ctx); store.ErrorCode(err) == store.ECONFLICT {
			r.Logger.Info("live: this instance no longer reads the table stream", "reason", err.Error())
			return
		} else if err != nil && ctx.Err() == nil {
			r.Logger.Warn("live: renew the stream lease", "err", err.Error())
		}
	}
}

// renew writes the checkpoints and extends the lease.
func (r *Reader) renew(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return r.Lease.Renew(cctx, r.checkpoints())
}

// checkpoints returns the current checkpoints (not to be modified).
func (r *Reader) checkpoints() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.st.Checkpoints
}

// setCheckpoints replaces the checkpoints.
func (r *Reader) setCheckpoints(cps map[string]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.st.Checkpoints = cps
}

// round reads every readable shard once, listing the shards when due.
func (r *Reader) round(ctx context.Context) error {
	if r.shards == nil || time.Since(r.listedAt) >= shardsRefresh {
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		shards, err := r.Stream.Shards(cctx)
		cancel()
		if err != nil {
			return err
		}
		r.shards, r.listedAt = shards, time.Now()
		r.forgetExpired()
	}
	done := map[string]bool{}
	cps := r.checkpoints()
	for _, sh := range r.shards {
		if cps[sh.ID] == ShardEnd {
			done[sh.ID] = true
			continue
		}
		if sh.Parent != "" && r.listed(sh.Parent) && !done[sh.Parent] {
			continue // the parent's records come first
		}
		if !r.Lease.Held() {
			return nil
		}
		end, err := r.readShard(ctx, sh)
		if err != nil {
			return err
		}
		done[sh.ID] = end
	}
	return nil
}

// forgetExpired drops the checkpoints of shards the stream no longer lists
// (trimmed after 24 hours), so the lease item does not grow.
func (r *Reader) forgetExpired() {
	old := r.checkpoints()
	cps := make(map[string]string, len(r.shards))
	for _, sh := range r.shards {
		if cp, ok := old[sh.ID]; ok {
			cps[sh.ID] = cp
		}
	}
	r.setCheckpoints(cps)
}

func (r *Reader) listed(id string) bool {
	for _, sh := range r.shards {
		if sh.ID == id {
			return true
		}
	}
	return false
}

// iterator returns the shard's iterator: the one the last read left, or a
// new one after the shard's checkpoint.
func (r *Reader) iterator(ctx context.Context, shard string) (string, error) {
	if it := r.iterators[shard]; it != "" {
		return it, nil
	}
	cp := r.checkpoints()[shard]
	it, err := r.Stream.Iterator(ctx, shard, cp)
	if errors.Is(err, store.ErrIteratorExpired) && cp != "" {
		// The checkpoint is older than the stream keeps (24 h): what lies
		// between is lost; go on from the oldest record kept.
		r.Logger.Error("live: stream checkpoint trimmed, changes lost", "shard", shard, "checkpoint", cp)
		it, err = r.Stream.Iterator(ctx, shard, "")
	}
	return it, err
}

// readShard reads shard sh once: the records after its checkpoint, passed
// to the sink, then the checkpoint. It reports whether the shard is closed
// and fully read.
func (r *Reader) readShard(ctx context.Context, sh store.StreamShard) (bool, error) {
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	it, err := r.iterator(cctx, sh.ID)
	if err != nil {
		return false, err
	}
	recs, next, err := r.Stream.Records(cctx, it)
	if errors.Is(err, store.ErrIteratorExpired) {
		delete(r.iterators, sh.ID) // next round: a new one from the checkpoint
		return false, err
	}
	if err != nil {
		return false, err
	}
	var changes []store.Change
	r.mu.Lock()
	since := r.st.Since.Add(-sinceMargin)
	r.mu.Unlock()
	for _, rec := range recs {
		if rec.Change != nil && !rec.Created.Before(since) {
			changes = append(changes, *rec.Change)
		}
	}
	if len(changes) > 0 {
		sctx, cancel := context.WithTimeout(ctx, sinkTimeout)
		err := r.Sink(sctx, changes)
		cancel()
		if err != nil {
			delete(r.iterators, sh.ID) // re-read from the checkpoint
			return false, err
		}
	}
	r.iterators[sh.ID] = next
	cps := maps.Clone(r.checkpoints())
	if len(recs) > 0 {
		cps[sh.ID] = recs[len(recs)-1].Seq
	}
	if next == "" {
		cps[sh.ID] = ShardEnd
		delete(r.iterators, sh.ID)
	}
	r.setCheckpoints(cps)
	if len(changes) > 0 || next == "" {
		// Checkpoint now: a failover then re-reads at most this round.
		if err := r.renew(ctx); err != nil {
			return false, err
		}
	}
	return next == "", nil
}
