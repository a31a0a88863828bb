package bolt

import (
	"context"
	"fmt"
	"sync"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

var _ store.ExclusiveLoader = (*Table)(nil)

// LoadUnsynced runs fn, which writes items with put, with the commits of
// this Table's write transactions (and the growth of its file) not synced
// to disk, then syncs the file once (also when fn fails) and syncs every
// commit again. The file is locked while open, so no other process writes
// meanwhile; a crash of the machine during fn may leave the file unreadable
// (bbolt's commit relies on the sync between the data pages and the meta
// page), which is why store.BulkLoad uses it only on a file that held
// nothing. Nothing else may write through this Table while it runs.
//
// put writes items as BatchPut does (validated first, the last of several
// with one key, one transaction per chunk), but it returns once they are
// encoded and queued: one goroutine commits the chunks in the order they
// were put, while the caller parses and encodes the next ones, so that a
// load uses two cores. An error of a commit is returned by a later put (and
// by LoadUnsynced); from then on nothing more is written. A cancelled ctx
// fails the next put.
func (t *Table) LoadUnsynced(ctx context.Context, fn func(put func([]table.Item) error) error) error {
	t.db.NoSync, t.db.NoGrowSync = true, true // growing the file syncs it too
	w := t.startWriter()
	err := fn(func(items []table.Item) error { return w.put(ctx, items) })
	if werr := w.close(); err == nil {
		err = werr
	}
	t.db.NoSync, t.db.NoGrowSync = false, false
	if serr := t.db.Sync(); serr != nil && err == nil {
		err = wrapErr(serr)
	}
	return err
}

// asyncWriter commits encoded chunks in its own goroutine, in order.
type asyncWriter struct {
	t      *Table
	chunks chan *chunk
	done   chan struct{}
	mu     sync.Mutex
	err    error // the first failed commit
}

// startWriter starts the goroutine of an asyncWriter: it commits one chunk
// while one more waits, and the caller encodes a third.
func (t *Table) startWriter() *asyncWriter {
	w := &asyncWriter{t: t, chunks: make(chan *chunk, 1), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for c := range w.chunks {
			if w.failed() != nil {
				continue // drain: nothing more is written
			}
			if err := t.update(c.write); err != nil {
				w.mu.Lock()
				w.err = err
				w.mu.Unlock()
			}
		}
	}()
	return w
}

// failed returns the error of a failed commit, if any.
func (w *asyncWriter) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// put validates and encodes items and queues their chunks; it stops at a
// cancelled ctx or a failed commit, between chunks.
func (w *asyncWriter) put(ctx context.Context, items []table.Item) error {
	defer table.Account(ctx, table.Call{Op: table.CallBatchPut})
	if err := ctxErr(ctx); err != nil {
		return err
	}
	if err := validateItems(items); err != nil {
		return err
	}
	items = dedupe(items)
	for start := 0; start < len(items); {
		if err := ctxErr(ctx); err != nil {
			return err
		}
		if err := w.failed(); err != nil {
			return err
		}
		c, err := w.t.encodeChunk(items[start:min(start+w.t.batchSize, len(items))])
		if err != nil {
			return err
		}
		start += c.n
		w.chunks <- c
	}
	return nil
}

// close waits for the queued chunks to be committed and returns the error
// of the first failed commit, if any.
func (w *asyncWriter) close() error {
	close(w.chunks)
	<-w.done
	return w.failed()
}

// validateItems validates every item of a BatchPut.
func validateItems(items []table.Item) error {
	for i, it := range items {
		if err := table.ValidateItem(it); err != nil {
			return prefixed(fmt.Sprintf("item %d", i), err)
		}
	}
	return nil
}
