package bolt

import (
	"github.com/acme/comments-gateway/store/table"
)

// DynamoDB's write semantics, emulated: what an operation of a Write makes
// of the stored item (the conditions are table.CondsHold, the form of an
// operation table.ValidateOp).

// applyUpdate returns the item that update op makes of old (nil: absent).
func applyUpdate(old table.Item, op *table.Op) (table.Item, error) {
	it := make(table.Item, len(old)+len(op.Set)+len(op.Add))
	for k, v := range old {
		it[k] = v
	}
	it[table.AttrPK] = table.S(op.Key.PK)
	it[table.AttrSK] = table.S(op.Key.SK)
	for k, v := range op.Set {
		it[k] = v
	}
	for _, k := range op.Remove {
		delete(it, k)
	}
	for k, d := range op.Add {
		var cur int64
		if v, ok := it[k]; ok {
			n, ok := v.Num()
			if !ok {
				return nil, table.Errorf(table.EINVALID, "cannot ADD to attribute %s: it holds a %v", k, v.Kind())
			}
			cur = n
		}
		if d > 0 && cur > maxInt64-d || d < 0 && cur < minInt64-d {
			return nil, table.Errorf(table.EINVALID, "ADD to attribute %s overflows int64", k)
		}
		it[k] = table.N(cur + d)
	}
	return it, nil
}

const (
	maxInt64 = 1<<63 - 1
	minInt64 = -1 << 63
)
