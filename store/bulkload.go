package store

import (
	"context"

	"github.com/acme/comments-gateway/store/table"
)

// ExclusiveLoader is a Table that one process holds alone (an embedded
// file, locked while open) and that can load faster: LoadUnsynced runs fn
// with a put that writes items as BatchPut does but may return before they
// are committed (an error surfaces at a later put, or from LoadUnsynced),
// with the commits not synced to disk; everything is synced before
// LoadUnsynced returns, also when fn fails.
type ExclusiveLoader interface {
	LoadUnsynced(ctx context.Context, fn func(put func([]table.Item) error) error) error
}

// BulkLoad is an import of comments with PutComments' semantics and the
// stats rebuilt at the end, as RebuildStats would. On an ExclusiveLoader
// that is empty when the load starts, it is faster with the same result:
// the writes are synced once, at the end (a crash during the load may leave
// a file to delete, but the file held nothing before), and the stats are
// counted from the comments as they are put instead of by a scan after the
// load: with nobody else writing, and nothing in the table before, the
// comments put are exactly the comments the scan would find.
type BulkLoad struct {
	s      *Store
	loader ExclusiveLoader // nil: the general path
	tally  *tally          // with loader: the comments put so far
}

// StartBulkLoad prepares a bulk load into s.
func (s *Store) StartBulkLoad(ctx context.Context) (*BulkLoad, error) {
	b := &BulkLoad{s: s}
	if l, ok := s.table.(ExclusiveLoader); ok {
		empty, err := s.IsEmpty(ctx)
		if err != nil {
			return nil, tableError(err)
		}
		if empty {
			b.loader, b.tally = l, newTally()
		}
	}
	return b, nil
}

// Load runs fn, which puts comments with put (PutComments), and returns
// fn's error (or the error of a write, which put may return for an earlier
// batch than its own). Every comment put is on disk when Load returns, also
// when fn fails.
func (b *BulkLoad) Load(ctx context.Context, fn func(put func([]*Comment) error) error) error {
	if b.loader == nil {
		return fn(func(cs []*Comment) error { return b.s.PutComments(ctx, cs) })
	}
	return b.loader.LoadUnsynced(ctx, func(put func([]table.Item) error) error {
		return fn(func(cs []*Comment) error {
			if err := put(commentItems(cs)); err != nil {
				return err
			}
			for _, c := range cs {
				b.tally.addComment(c.ProductID, c.Language, c.Rating)
			}
			return nil
		})
	})
}

// Stats writes the stats of every product after Load: from the comments
// counted during the load, or else recounted by RebuildStats with
// `segments` segments.
func (b *BulkLoad) Stats(ctx context.Context, segments int) (RebuildResult, error) {
	if b.loader == nil {
		return b.s.RebuildStats(ctx, segments)
	}
	return b.s.rebuildFrom(ctx, func() (*tally, error) { return b.tally, nil })
}
