package table

import "strings"

// DynamoDB's limits, enforced by every backend before it writes, so that
// what the embedded store accepts DynamoDB accepts too, and what DynamoDB
// would reject is EINVALID rather than a backend error.
const (
	MaxHashKeyLen = 2048       // bytes of a partition (hash) key value
	MaxSortKeyLen = 1024       // bytes of a sort key value
	maxItemSize   = 400 * 1024 // bytes of an item: names plus values
	// MaxWriteOps is the largest number of operations of one Table.Write
	// (DynamoDB's TransactWriteItems limit).
	MaxWriteOps = 100
)

// keyAttrLimits maps every key attribute, of the table and of the indexes,
// to the maximum length of its value.
var keyAttrLimits = func() map[string]int {
	m := map[string]int{AttrPK: MaxHashKeyLen, AttrSK: MaxSortKeyLen}
	for _, d := range AllIndexes {
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

// ValidateValue checks that v can be stored: a string or a number, not
// the zero Value.
func ValidateValue(name string, v Value) error {
	if v.Kind() == KindNone {
		return Errorf(EINVALID, "attribute %q has no value; only strings and numbers are stored", name)
	}
	return nil
}

// validateAttr checks one attribute to be written: key attributes (of the
// table or an index) are valid key values, the others storable values.
func validateAttr(name string, v Value) error {
	if name == "" {
		return Errorf(EINVALID, "attribute name must not be empty")
	}
	max, isKey := keyAttrLimits[name]
	if !isKey {
		return ValidateValue(name, v)
	}
	s, ok := v.Str()
	if !ok {
		return Errorf(EINVALID, "key attribute %s must be a string, not %v", name, v.Kind())
	}
	return ValidateKeyValue("key attribute "+name, s, max)
}

// ValidateItem checks a whole item before it is written: it has PK and SK,
// every attribute is valid (see ValidateValue, ValidateKeyValue), and it is
// at most maxItemSize bytes.
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
		size += len(name) + v.size()
	}
	if size > maxItemSize {
		return Errorf(EINVALID, "item %q/%q is larger than %d bytes", it[AttrPK], it[AttrSK], maxItemSize)
	}
	return nil
}
