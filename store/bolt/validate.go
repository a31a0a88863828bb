package bolt

import (
	"errors"
	"fmt"
	"strings"

	"github.com/acme/comments-gateway/store"
)

// DynamoDB's limits, enforced here too so that what this store accepts
// DynamoDB accepts.
const (
	maxHashLen  = 2048       // bytes of a partition (hash) key value
	maxSortLen  = 1024       // bytes of a sort key value
	maxItemSize = 400 * 1024 // bytes of an item: names plus values
)

// errCorrupt is the cause of every decoding failure.
var errCorrupt = errors.New("bolt: corrupt item encoding")

func badValue(name string, v any) *store.Error {
	return store.Errorf(store.EINVALID, "attribute %q has a value of type %T; only string and int64 are stored", name, v)
}

// checkKeyValue checks the value of a key attribute (of the table or of an
// index): a non-empty string of at most max bytes without "\x00".
func checkKeyValue(what string, v string, max int) error {
	switch {
	case v == "":
		return store.Errorf(store.EINVALID, "%s must not be empty", what)
	case len(v) > max:
		return store.Errorf(store.EINVALID, "%s is longer than %d bytes", what, max)
	case strings.IndexByte(v, sep) >= 0:
		return store.Errorf(store.EINVALID, "%s must not contain a NUL byte", what)
	}
	return nil
}

// checkKey checks a primary key.
func checkKey(k store.Key) error {
	if err := checkKeyValue(store.AttrPK, k.PK, maxHashLen); err != nil {
		return err
	}
	return checkKeyValue(store.AttrSK, k.SK, maxSortLen)
}

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
	return s, checkKeyValue(name, s, max)
}

// checkValue checks a value to store: a string or an int64.
func checkValue(name string, v any) error {
	switch v.(type) {
	case string, int64:
		return nil
	}
	return badValue(name, v)
}

// validateItem checks a whole item before it is stored: its key, the types
// of its values, the values of the index key attributes it has, and its
// size.
func (t *Table) validateItem(it store.Item) error {
	if it == nil {
		return store.Errorf(store.EINVALID, "item is nil")
	}
	if _, err := keyAttr(it, store.AttrPK, maxHashLen); err != nil {
		return err
	}
	if _, err := keyAttr(it, store.AttrSK, maxSortLen); err != nil {
		return err
	}
	size := 0
	for name, v := range it {
		if name == "" {
			return store.Errorf(store.EINVALID, "attribute name must not be empty")
		}
		size += len(name)
		switch v := v.(type) {
		case string:
			size += len(v)
		case int64:
			size += 8
		default:
			return badValue(name, v)
		}
	}
	if size > maxItemSize {
		return store.Errorf(store.EINVALID, "item %q/%q is larger than %d bytes", it[store.AttrPK], it[store.AttrSK], maxItemSize)
	}
	for _, ix := range t.indexes {
		for _, a := range [2]struct {
			name string
			max  int
		}{{ix.def.Hash, maxHashLen}, {ix.def.Sort, maxSortLen}} {
			v, ok := it[a.name]
			if !ok {
				continue
			}
			s, ok := v.(string)
			if !ok {
				return store.Errorf(store.EINVALID, "index key attribute %s of index %s must be a string, not %T", a.name, ix.def.Name, v)
			}
			if err := checkKeyValue(a.name, s, a.max); err != nil {
				return err
			}
		}
	}
	return nil
}

// validateCond checks a condition's form.
func validateCond(c store.Cond) error {
	switch c.Kind {
	case store.CondExists, store.CondNotExists:
		return nil
	case store.CondEquals:
		if c.Attr == "" {
			return store.Errorf(store.EINVALID, "CondEquals needs an attribute")
		}
		return checkValue(c.Attr, c.Value)
	case store.CondAbsent:
		if c.Attr == "" {
			return store.Errorf(store.EINVALID, "CondAbsent needs an attribute")
		}
		return nil
	}
	return store.Errorf(store.EINVALID, "unknown condition kind %d", c.Kind)
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

// validateOp checks the form of one operation of a Write, everything that
// does not depend on the stored state.
func (t *Table) validateOp(op *store.Op) error {
	if err := checkKey(op.Key); err != nil {
		return err
	}
	for _, c := range op.Conds {
		if err := validateCond(c); err != nil {
			return err
		}
	}
	switch op.Kind {
	case store.OpPut:
		if op.Add != nil || op.Set != nil || op.Remove != nil {
			return store.Errorf(store.EINVALID, "a put has no Add, Set or Remove")
		}
		if err := t.validateItem(op.Item); err != nil {
			return err
		}
		if op.Item.Key() != op.Key {
			return store.Errorf(store.EINVALID, "the item's PK and SK differ from the operation's key")
		}
	case store.OpDelete:
		if op.Item != nil || op.Add != nil || op.Set != nil || op.Remove != nil {
			return store.Errorf(store.EINVALID, "a delete has no Item, Add, Set or Remove")
		}
	case store.OpUpdate:
		if op.Item != nil {
			return store.Errorf(store.EINVALID, "an update has no Item (use Set)")
		}
		seen := make(map[string]bool, len(op.Set)+len(op.Add)+len(op.Remove))
		check := func(name string) error {
			switch {
			case name == "":
				return store.Errorf(store.EINVALID, "attribute name must not be empty")
			case name == store.AttrPK || name == store.AttrSK:
				return store.Errorf(store.EINVALID, "an update cannot change key attribute %s", name)
			case seen[name]:
				return store.Errorf(store.EINVALID, "attribute %s is updated twice", name)
			}
			seen[name] = true
			return nil
		}
		for name, v := range op.Set {
			if err := check(name); err != nil {
				return err
			}
			if err := checkValue(name, v); err != nil {
				return err
			}
		}
		for name := range op.Add {
			if err := check(name); err != nil {
				return err
			}
		}
		for _, name := range op.Remove {
			if err := check(name); err != nil {
				return err
			}
		}
	default:
		return store.Errorf(store.EINVALID, "unknown operation kind %d", op.Kind)
	}
	return nil
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

// prefixed prefixes the message of err, a *store.Error, with what (such as
// "operation 3").
func prefixed(what string, err error) error {
	var e *store.Error
	if errors.As(err, &e) {
		return &store.Error{Code: e.Code, Message: what + ": " + e.Message, Op: e.Op, Err: e.Err}
	}
	return fmt.Errorf("%s: %w", what, err)
}
