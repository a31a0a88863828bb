package store

import (
	"errors"
	"fmt"
)

// Error codes. Backends translate their native errors to these at their edge;
// the GraphQL error presenter maps them to extensions.code.
const (
	EINVALID     = "invalid"     // bad user input (BAD_USER_INPUT)
	ENOTFOUND    = "not_found"   // the addressed entity does not exist (NOT_FOUND)
	ECONFLICT    = "conflict"    // a condition failed; the caller may retry (CONFLICT)
	EUNAVAILABLE = "unavailable" // the store could not be reached or throttled us past our deadline (UNAVAILABLE)
	EINTERNAL    = "internal"    // anything else (INTERNAL)
)

// Error is an error with a code and a message safe to show to a client.
type Error struct {
	Code    string
	Message string
	// Op is, for ECONFLICT from Table.Write, the index of the operation whose
	// condition failed, or -1 when unknown.
	Op int
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
	var e *Error
	if errors.As(err, &e) && e.Code != EINTERNAL {
		return e.Message
	}
	return "internal error"
}
