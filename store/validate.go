package store

import "strings"

// DynamoDB's limits, enforced by every backend before it writes, so that
// what the embedded store accepts DynamoDB accepts too, and what DynamoDB
// would reject is EINVALID rather than a backend error.
const (
	MaxHashKeyLen = 2048       // bytes of a partition (hash) key value
	MaxSortKeyLen = 1024       // bytes of a sort key value
	MaxItemSize   = 400 * 1024 // bytes of an item: names plus values
)

// keyAttrLimits maps every key attribute, of the table and of the indexes,
// to the maximum length of its value.
var keyAttrLimits = func() map[string]int {
	m := map[string]int{AttrPK: MaxHashKeyLen, AttrSK: MaxSortKeyLen}
	for _, d := range Indexes {
		m[d.Hash] = MaxHashKeyLen
		m[d.Sort] = MaxSortKeyLen
	}
	return m
}()

// ValidateKeyValue checks the value of a key attribute (of the table or an
// index), or of a query's key condition: a non-empty string of at most max
// bytes without a NUL byte (which no key of this design holds, and which
// the embedded store uses as a separator).
func ValidateKeyValue(what, v string, max int) error {
	switch {
	case v == "":
		return Errorf(EINVALID, "%s must not be empty", what)
	case len(v) > max:
		return Errorf(EINVALID, "%s is longer than %d bytes", what, max)
	case strings.IndexByte(v, 0) >= 0:
		return Errorf(EINVALID, "%s must not contain a NUL byte", what)
	}
	return nil
}

// ValidateKey checks a primary key.
func ValidateKey(k Key) error {
	if err := ValidateKeyValue(AttrPK, k.PK, MaxHashKeyLen); err != nil {
		return err
	}
	return ValidateKeyValue(AttrSK, k.SK, MaxSortKeyLen)
}

// ValidateValue checks that v can be stored: a string or an int64.
func ValidateValue(name string, v any) error {
	switch v.(type) {
	case string, int64:
		return nil
	}
	return Errorf(EINVALID, "attribute %q has a value of type %T; only string and int64 are stored", name, v)
}

// validateAttr checks one attribute to be written: key attributes (of the
// table or an index) are valid key values, the others storable values.
func validateAttr(name string, v any) error {
	if name == "" {
		return Errorf(EINVALID, "attribute name must not be empty")
	}
	max, isKey := keyAttrLimits[name]
	if !isKey {
		return ValidateValue(name, v)
	}
	s, ok := v.(string)
	if !ok {
		return Errorf(EINVALID, "key attribute %s must be a string, not %T", name, v)
	}
	return ValidateKeyValue("key attribute "+name, s, max)
}

// ValidateItem checks a whole item before it is written: it has PK and SK,
// every attribute is valid (see ValidateValue, ValidateKeyValue), and it is
// at most MaxItemSize bytes.
func ValidateItem(it Item) error {
	if it == nil {
		return Errorf(EINVALID, "item is nil")
	}
	for _, name := range []string{AttrPK, AttrSK} {
		if _, ok := it[name]; !ok {
			return Errorf(EINVALID, "key attribute %s is missing", name)
		}
	}
	size := 0
	for name, v := range it {
		if err := validateAttr(name, v); err != nil {
			return err
		}
		size += len(name)
		if s, ok := v.(string); ok {
			size += len(s)
		} else {
			size += 8
		}
	}
	if size > MaxItemSize {
		return Errorf(EINVALID, "item %q/%q is larger than %d bytes", it[AttrPK], it[AttrSK], MaxItemSize)
	}
	return nil
}

// ValidateOp checks the form of one operation of a Write: everything that
// does not depend on the stored items. An update must change at least one
// attribute (DynamoDB cannot express an empty one).
func ValidateOp(op Op) error {
	if err := ValidateKey(op.Key); err != nil {
		return err
	}
	for _, c := range op.Conds {
		switch c.Kind {
		case CondExists, CondNotExists:
		case CondEquals:
			if c.Attr == "" {
				return Errorf(EINVALID, "CondEquals needs an attribute")
			}
			if err := ValidateValue(c.Attr, c.Value); err != nil {
				return err
			}
		case CondAbsent:
			if c.Attr == "" {
				return Errorf(EINVALID, "CondAbsent needs an attribute")
			}
		default:
			return Errorf(EINVALID, "unknown condition kind %d", c.Kind)
		}
	}
	switch op.Kind {
	case OpPut:
		if op.Add != nil || op.Set != nil || op.Remove != nil {
			return Errorf(EINVALID, "a put has no Add, Set or Remove")
		}
		if err := ValidateItem(op.Item); err != nil {
			return err
		}
		if op.Item.Key() != op.Key {
			return Errorf(EINVALID, "the item's PK and SK differ from the operation's key")
		}
	case OpDelete:
		if op.Item != nil || op.Add != nil || op.Set != nil || op.Remove != nil {
			return Errorf(EINVALID, "a delete has no Item, Add, Set or Remove")
		}
	case OpUpdate:
		if op.Item != nil {
			return Errorf(EINVALID, "an update has no Item (use Set)")
		}
		seen := make(map[string]bool, len(op.Add)+len(op.Set)+len(op.Remove))
		check := func(name string) error {
			switch {
			case name == "":
				return Errorf(EINVALID, "attribute name must not be empty")
			case name == AttrPK || name == AttrSK:
				return Errorf(EINVALID, "an update cannot change key attribute %s", name)
			case seen[name]:
				return Errorf(EINVALID, "attribute %s is updated twice", name)
			}
			seen[name] = true
			return nil
		}
		for name := range op.Add {
			if err := check(name); err != nil {
				return err
			}
			if _, ok := keyAttrLimits[name]; ok {
				return Errorf(EINVALID, "key attribute %s is a string: it cannot be added to", name)
			}
		}
		for name, v := range op.Set {
			if err := check(name); err != nil {
				return err
			}
			if err := validateAttr(name, v); err != nil {
				return err
			}
		}
		for _, name := range op.Remove {
			if err := check(name); err != nil {
				return err
			}
		}
		if len(seen) == 0 {
			return Errorf(EINVALID, "an update of (%q, %q) changes nothing", op.Key.PK, op.Key.SK)
		}
	default:
		return Errorf(EINVALID, "unknown operation kind %d", op.Kind)
	}
	return nil
}
