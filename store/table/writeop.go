package table

import "fmt"

// What a Table.Write means, on every backend: the form an operation must
// have (ValidateOp, applied by both backends before they write) and how its
// conditions are evaluated (Cond.holds, CondFailure). The types are in
// table.go; the limits an item must keep in limits.go.

// ValidateOp checks the form of one operation of a Write: everything that
// does not depend on the stored items. An update must change at least one
// attribute (DynamoDB cannot express an empty one).
func ValidateOp(op Op) error {
	if err := ValidateKey(op.Key); err != nil {
		return err
	}
	if err := validateConds(op.Conds); err != nil {
		return err
	}
	switch op.Kind {
	case OpPut:
		return validatePut(op)
	case OpDelete:
		if op.Item != nil || op.Add != nil || op.Set != nil || op.Remove != nil {
			return Errorf(EINVALID, "a delete has no Item, Add, Set or Remove")
		}
		return nil
	case OpUpdate:
		return validateUpdate(op)
	}
	return Errorf(EINVALID, "unknown operation kind %d", op.Kind)
}

// validateConds checks the conditions of an operation.
func validateConds(conds []Cond) error {
	for _, c := range conds {
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
	return nil
}

// validatePut checks a put: a whole, valid item at the operation's key.
func validatePut(op Op) error {
	if op.Add != nil || op.Set != nil || op.Remove != nil {
		return Errorf(EINVALID, "a put has no Add, Set or Remove")
	}
	if err := ValidateItem(op.Item); err != nil {
		return err
	}
	if op.Item.Key() != op.Key {
		return Errorf(EINVALID, "the item's PK and SK differ from the operation's key")
	}
	return nil
}

// validateUpdate checks an update: each attribute changed once, never a key
// of the table, numbers added only to non-key attributes, and at least one
// change.
func validateUpdate(op Op) error {
	if op.Item != nil {
		return Errorf(EINVALID, "an update has no Item (use Set)")
	}
	seen := make(map[string]bool, len(op.Add)+len(op.Set)+len(op.Remove))
	once := func(name string) error {
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
		if err := once(name); err != nil {
			return err
		}
		if _, ok := keyAttrLimits[name]; ok {
			return Errorf(EINVALID, "key attribute %s is a string: it cannot be added to", name)
		}
	}
	for name, v := range op.Set {
		if err := once(name); err != nil {
			return err
		}
		if err := validateAttr(name, v); err != nil {
			return err
		}
	}
	for _, name := range op.Remove {
		if err := once(name); err != nil {
			return err
		}
	}
	if len(seen) == 0 {
		return Errorf(EINVALID, "an update of (%q, %q) changes nothing", op.Key.PK, op.Key.SK)
	}
	return nil
}

// holds reports whether c holds for old, the item before a Write (nil: it
// does not exist). An absent attribute equals nothing, and an absent item
// has no attribute. The embedded backend decides a Write with it; DynamoDB
// evaluates the same conditions itself, and its backend explains a failure
// with it (CondFailure).
func (c Cond) holds(old Item) bool {
	switch c.Kind {
	case CondExists:
		return old != nil
	case CondNotExists:
		return old == nil
	case CondEquals:
		v, ok := old[c.Attr]
		return ok && v == c.Value
	case CondAbsent:
		_, ok := old[c.Attr]
		return !ok
	}
	return false
}

// CondsHold reports whether every condition of conds holds for old.
func CondsHold(conds []Cond, old Item) bool {
	for _, c := range conds {
		if !c.holds(old) {
			return false
		}
	}
	return true
}

// CondFailure is the error of a Write whose operation op did not pass its
// conditions conds against old, the item as it was (nil: absent): the code
// of the first condition that does not hold (its Code, or ECONFLICT), and
// cause, if any, kept for the log. Both backends report a failed condition
// with it, so the codes are the same on both.
func CondFailure(op int, conds []Cond, old Item, cause error) *Error {
	code := ECONFLICT
	for _, c := range conds {
		if !c.holds(old) {
			if c.Code != "" {
				code = c.Code
			}
			break
		}
	}
	return &Error{Code: code, Message: fmt.Sprintf("the condition of operation %d does not hold", op), Op: op, Err: cause}
}
