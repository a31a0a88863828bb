package store

import (
	"context"

	"github.com/acme/comments-gateway/store/table"
)

// exportPage is how many items ExportComments reads per call.
const exportPage = 1000

// ExportComments calls fn with every comment of the store, a page at a
// time, so that memory stays constant whatever the store's size: with
// productID "" all of them in the order of a scan of the table (table-key
// order on the embedded store), otherwise those of that product, newest
// first. The comments are whole (with their owner), as Get returns them.
func (s *Store) ExportComments(ctx context.Context, productID string, fn func(*Comment) error) error {
	if productID != "" {
		if err := ValidateID("product id", productID); err != nil {
			return err
		}
		return s.exportProduct(ctx, productID, fn)
	}
	var start table.Item
	for {
		items, next, err := s.table.Scan(ctx, 0, 1, start, exportPage)
		if err != nil {
			return err
		}
		for _, it := range items {
			if _, ok := CommentIDFromPK(it.S(table.AttrPK)); !ok {
				continue // a stats item
			}
			c, err := CommentFromItem(it)
			if err != nil {
				return err
			}
			if err := fn(c); err != nil {
				return err
			}
		}
		if next == nil {
			return nil
		}
		start = next
	}
}

// exportProduct reads the product's partition of the all index, newest
// first, and each page's whole items (an index holds a projection).
func (s *Store) exportProduct(ctx context.Context, productID string, fn func(*Comment) error) error {
	index, hash := PartitionKey(productID, "", 0)
	q := table.Query{Index: index, HashValue: hash, Limit: 100}
	for {
		res, err := s.table.Query(ctx, q)
		if err != nil {
			return err
		}
		keys := make([]table.Key, len(res.Items))
		for i, it := range res.Items {
			keys[i] = it.Key()
		}
		items, err := s.table.BatchGet(ctx, keys)
		if err != nil {
			return err
		}
		for _, it := range items {
			if it == nil {
				continue // deleted since the query
			}
			c, err := CommentFromItem(it)
			if err != nil {
				return err
			}
			if err := fn(c); err != nil {
				return err
			}
		}
		if res.LastKey == nil {
			return nil
		}
		q.StartKey = res.LastKey
	}
}
