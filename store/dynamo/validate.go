package dynamo

import (
	"github.com/acme/comments-gateway/store"
)

// DynamoDB's limits on key values. Checked before a request so that what
// DynamoDB would reject is EINVALID here, as in the bolt backend, rather than
// a ValidationException.
const (
	maxHashLen = 2048 // bytes of a partition (hash) key value
	maxSortLen = 1024 // bytes of a sort key value
)

// keyAttrs maps every key attribute, of the table and of the indexes, to the
// maximum length of its value. Their values must be non-empty strings.
var keyAttrs = func() map[string]int {
	m := map[string]int{store.AttrPK: maxHashLen, store.AttrSK: maxSortLen}
	for _, d := range store.Indexes {
		m[d.Hash] = maxHashLen
		m[d.Sort] = maxSortLen
	}
	return m
}()

// checkKeyValue checks the value of key attribute name: a non-empty string
// within DynamoDB's length limit.
func checkKeyValue(name string, v any) error {
	s, ok := v.(string)
	switch {
	case !ok:
		return store.Errorf(store.EINVALID, "key attribute %s must be a string, not %T", name, v)
	case s == "":
		return store.Errorf(store.EINVALID, "key attribute %s must not be empty", name)
	case len(s) > keyAttrs[name]:
		return store.Errorf(store.EINVALID, "key attribute %s is longer than %d bytes", name, keyAttrs[name])
	}
	return nil
}

// checkKey checks a primary key.
func checkKey(k store.Key) error {
	if err := checkKeyValue(store.AttrPK, k.PK); err != nil {
		return err
	}
	return checkKeyValue(store.AttrSK, k.SK)
}

// checkItem checks a whole item before it is written: it has PK and SK,
// every value is a string or an int64, and the key attributes it has (of
// the table or an index) are non-empty strings.
func checkItem(it store.Item) error {
	if it == nil {
		return store.Errorf(store.EINVALID, "item is nil")
	}
	for _, name := range []string{store.AttrPK, store.AttrSK} {
		if _, ok := it[name]; !ok {
			return store.Errorf(store.EINVALID, "key attribute %s is missing", name)
		}
	}
	for name, v := range it {
		if err := checkAttr(name, v); err != nil {
			return err
		}
	}
	return nil
}

// checkAttr checks one attribute to be written.
func checkAttr(name string, v any) error {
	if name == "" {
		return store.Errorf(store.EINVALID, "attribute name must not be empty")
	}
	if _, ok := keyAttrs[name]; ok {
		return checkKeyValue(name, v)
	}
	return checkValue(name, v)
}

// checkValue checks that v is a string or an int64.
func checkValue(name string, v any) error {
	switch v.(type) {
	case string, int64:
		return nil
	}
	return store.Errorf(store.EINVALID, "attribute %q has a value of type %T; only string and int64 are stored", name, v)
}

// checkOp checks the form of one operation of a Write: everything that does
// not depend on the stored items.
func checkOp(op store.Op) error {
	if err := checkKey(op.Key); err != nil {
		return err
	}
	for _, c := range op.Conds {
		switch c.Kind {
		case store.CondExists, store.CondNotExists:
		case store.CondEquals:
			if c.Attr == "" {
				return store.Errorf(store.EINVALID, "CondEquals needs an attribute")
			}
			if err := checkValue(c.Attr, c.Value); err != nil {
				return err
			}
		case store.CondAbsent:
			if c.Attr == "" {
				return store.Errorf(store.EINVALID, "CondAbsent needs an attribute")
			}
		default:
			return store.Errorf(store.EINVALID, "unknown condition kind %d", c.Kind)
		}
	}
	switch op.Kind {
	case store.OpPut:
		if op.Add != nil || op.Set != nil || op.Remove != nil {
			return store.Errorf(store.EINVALID, "a put has no Add, Set or Remove")
		}
		if err := checkItem(op.Item); err != nil {
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
		seen := make(map[string]bool, len(op.Add)+len(op.Set)+len(op.Remove))
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
		for name := range op.Add {
			if err := check(name); err != nil {
				return err
			}
			if _, ok := keyAttrs[name]; ok {
				return store.Errorf(store.EINVALID, "key attribute %s is a string: it cannot be added to", name)
			}
		}
		for name, v := range op.Set {
			if err := check(name); err != nil {
				return err
			}
			if err := checkAttr(name, v); err != nil {
				return err
			}
		}
		for _, name := range op.Remove {
			if err := check(name); err != nil {
				return err
			}
		}
		if len(seen) == 0 {
			// DynamoDB's update expression cannot be empty.
			return store.Errorf(store.EINVALID, "an update of (%q, %q) changes nothing", op.Key.PK, op.Key.SK)
		}
	default:
		return store.Errorf(store.EINVALID, "unknown operation kind %d", op.Kind)
	}
	return nil
}
