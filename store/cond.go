package store

import "fmt"

// Holds reports whether c holds for old, the item before a Write (nil: it
// does not exist). An absent attribute equals nothing, and an absent item
// has no attribute. The embedded backend decides a Write with it; DynamoDB
// evaluates the same conditions itself, and its backend explains a failure
// with it (CondFailure).
func (c Cond) Holds(old Item) bool {
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
		if !c.Holds(old) {
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
		if !c.Holds(old) {
			if c.Code != "" {
				code = c.Code
			}
			break
		}
	}
	return &Error{Code: code, Message: fmt.Sprintf("the condition of operation %d does not hold", op), Op: op, Err: cause}
}
