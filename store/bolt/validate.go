package bolt

import (
	"github.com/acme/comments-gateway/store"
)

// keyAttr returns the string value of key attribute name of it, checked.
func keyAttr(it store.Item, name string, max int) (string, error) {
	v, ok := it[name]
	if !ok {
		return "", store.Errorf(store.EINVALID, "key attribute %s is missing", name)
	}
	s, ok := v.(string)
	if !ok {
		return "", store.Errorf(store.EINVALID, "key attribute %s must be a string, not %T", name, v)
	}
	return s, store.ValidateKeyValue(name, s, max)
}

// condsHold reports whether all conds hold for old (nil: the item does not
// exist).
func condsHold(conds []store.Cond, old store.Item) bool {
	for _, c := range conds {
		switch c.Kind {
		case store.CondExists:
			if old == nil {
				return false
			}
		case store.CondNotExists:
			if old != nil {
				return false
			}
		case store.CondEquals:
			v, ok := old[c.Attr]
			if !ok || v != c.Value {
				return false
			}
		case store.CondAbsent:
			if _, ok := old[c.Attr]; ok {
				return false
			}
		}
	}
	return true
}

// applyUpdate returns the item that update op makes of old (nil: absent).
func applyUpdate(old store.Item, op *store.Op) (store.Item, error) {
	it := make(store.Item, len(old)+len(op.Set)+len(op.Add))
	for k, v := range old {
		it[k] = v
	}
	it[store.AttrPK] = op.Key.PK
	it[store.AttrSK] = op.Key.SK
	for k, v := range op.Set {
		it[k] = v
	}
	for _, k := range op.Remove {
		delete(it, k)
	}
	for k, d := range op.Add {
		var cur int64
		if v, ok := it[k]; ok {
			n, ok := v.(int64)
			if !ok {
				return nil, store.Errorf(store.EINVALID, "cannot ADD to attribute %s: it holds a %T", k, v)
			}
			cur = n
		}
		if d > 0 && cur > maxInt64-d || d < 0 && cur < minInt64-d {
			return nil, store.Errorf(store.EINVALID, "ADD to attribute %s overflows int64", k)
		}
		it[k] = cur + d
	}
	return it, nil
}

const (
	maxInt64 = 1<<63 - 1
	minInt64 = -1 << 63
)
