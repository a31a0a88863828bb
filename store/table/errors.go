package table

import (
	"errors"
	"fmt"
	"strings"
)

// Error codes. Backends translate their native errors to these at their edge;
// the GraphQL error presenter maps them to extensions.code.
const (
	EINVALID     = "invalid"     // bad user input (BAD_USER_INPUT)
	ENOTFOUND    = "not_found"   // the addressed entity does not exist (NOT_FOUND)
	ECONFLICT    = "conflict"    // a condition failed; the caller may retry (CONFLICT)
	EFORBIDDEN   = "forbidden"   // the caller may not change this entity, such as another author's comment (FORBIDDEN)
	EUNAVAILABLE = "unavailable" // the store could not be reached or throttled us past our deadline (UNAVAILABLE)
	EINTERNAL    = "internal"    // anything else (INTERNAL)
)

// Error is an error with a code and a message safe to show to a client.
type Error struct {
	Code    string
	Message string
	// Op is, for a failed condition of Table.Write (ECONFLICT, or the
	// condition's own Code), the index of the operation whose condition
	// failed, or -1 when unknown.
	Op int
	// Argument, for EINVALID, names the input the error is about: an
	// argument ("first") or a field of an input ("rating"). The edge shows it
	// as extensions.argument (see Under for input fields).
	Argument string
	// Range, for EINVALID about a number out of range, holds the bounds and
	// the value given (extensions min, max, got).
	Range *Range
	// Err is the underlying cause, if any (not shown to clients).
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Op: -1}
}

// Wrap returns an *Error with the given code and message around cause.
func Wrap(code string, cause error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Op: -1, Err: cause}
}

// Range is the allowed range of a numeric input and the value given.
type Range struct{ Min, Max, Got int }

// Invalid returns an EINVALID *Error about the input named arg.
func Invalid(arg, format string, args ...any) *Error {
	e := Errorf(EINVALID, format, args...)
	e.Argument = arg
	return e
}

// OutOfRange returns an EINVALID *Error about the number got given for arg,
// which must be in [min, max]: "ARG must be between MIN and MAX, got GOT".
func OutOfRange(arg string, min, max, got int) *Error {
	e := Invalid(arg, "%s must be between %d and %d, got %d", arg, min, max, got)
	e.Range = &Range{Min: min, Max: max, Got: got}
	return e
}

// Under returns a copy of e about a field of the input named parent: its
// Argument becomes "parent.arg", and a message that starts with the field's
// name starts with the path instead ("rating must …" → "input.rating must …").
// An error without an Argument is returned as it is.
func (e *Error) Under(parent string) *Error {
	if e.Argument == "" {
		return e
	}
	c := *e
	c.Argument = parent + "." + e.Argument
	if rest, ok := strings.CutPrefix(e.Message, e.Argument); ok {
		c.Message = c.Argument + rest
	}
	return &c
}

// Errors is several EINVALID errors about one input, all reported at once
// (one GraphQL error each at the edge). Its code is its first error's.
type Errors []*Error

func (es Errors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}

// Unwrap returns the errors, for errors.As and errors.Is.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// ErrorCode returns the code of the first *Error in err's chain, "" for nil,
// and EINTERNAL for an error without a code.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the client-safe message of err: the message of its
// *Error, or "internal error" for an error without a code.
func ErrorMessage(err error) string {
	var es Errors
	if errors.As(err, &es) {
		msgs := make([]string, len(es))
		for i, e := range es {
			msgs[i] = ErrorMessage(e)
		}
		return strings.Join(msgs, "; ")
	}
	var e *Error
	if errors.As(err, &e) && e.Code != EINTERNAL {
		return e.Message
	}
	return "internal error"
}
