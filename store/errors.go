package store

import (
	"errors"
	"slices"

	"github.com/acme/comments-gateway/store/table"
)

// The store's error vocabulary is the table contract's (package table
// defines it, as package fs defines the errors package os re-exports):
// the store's callers read store.ErrorCode and the codes below, and the
// backends' errors reach them unchanged.

// Error codes (see table.EINVALID and the others).
const (
	EINVALID     = table.EINVALID
	ENOTFOUND    = table.ENOTFOUND
	ECONFLICT    = table.ECONFLICT
	EFORBIDDEN   = table.EFORBIDDEN
	EUNAVAILABLE = table.EUNAVAILABLE
	EINTERNAL    = table.EINTERNAL
)

// Error is an error with a code and a client-safe message (table.Error).
type Error = table.Error

// Errors is several invalid-input errors of one check (table.Errors).
type Errors = table.Errors

// Range is the bounds and the value of a number out of range (table.Range).
type Range = table.Range

// Errorf returns an *Error with code and a formatted message.
func Errorf(code, format string, args ...any) *Error { return table.Errorf(code, format, args...) }

// Wrap returns an *Error with code and a formatted message, caused by
// cause.
func Wrap(code string, cause error, format string, args ...any) *Error {
	return table.Wrap(code, cause, format, args...)
}

// Invalid returns an EINVALID *Error about argument arg (table.Invalid).
func Invalid(arg, format string, args ...any) *Error { return table.Invalid(arg, format, args...) }

// OutOfRange returns an EINVALID *Error about number arg, got, outside
// [min, max] (table.OutOfRange).
func OutOfRange(arg string, min, max, got int) *Error { return table.OutOfRange(arg, min, max, got) }

// ErrorCode returns the code of err (table.ErrorCode).
func ErrorCode(err error) string { return table.ErrorCode(err) }

// ErrorMessage returns the client-safe message of err (table.ErrorMessage).
func ErrorMessage(err error) string { return table.ErrorMessage(err) }

// invalidList gathers the errors of a check of several fields.
type invalidList []*Error

// add keeps err's *Error, if any (nil is skipped).
func (l *invalidList) add(err error) {
	var e *Error
	if errors.As(err, &e) {
		*l = append(*l, e)
	}
}

// join returns nil for no errors, the error itself for one, and Errors for
// several.
func (l invalidList) join() error {
	switch len(l) {
	case 0:
		return nil
	case 1:
		return l[0]
	}
	return Errors(l)
}

// tableError is how the Store reports a failed Table call: EUNAVAILABLE
// (and the codes in keep, such as a write's ECONFLICT, which the Store
// retries) stays; any other code from the table (a read's EINVALID or
// ENOTFOUND, say) is about the store's own keys and items, not the caller's
// input, so it becomes EINTERNAL, its cause kept for the log. nil stays nil.
func tableError(err error, keep ...string) error {
	code := ErrorCode(err)
	if err == nil || code == EUNAVAILABLE || code == EINTERNAL || slices.Contains(keep, code) {
		return err
	}
	return Wrap(EINTERNAL, err, "table call failed")
}
