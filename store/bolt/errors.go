package bolt

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	berrors "go.etcd.io/bbolt/errors"

	"github.com/acme/comments-gateway/store/table"
)

// The backend's errors: what it returns is a *store.Error, with the code
// that tells the caller what to do; bbolt's and the file system's errors are
// translated here, once (wrapErr).

// errCorrupt is the cause of every decoding failure.
var errCorrupt = errors.New("bolt: corrupt item encoding")

// ctxErr returns an EUNAVAILABLE error wrapping ctx.Err() once ctx is done.
func ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return table.Wrap(table.EUNAVAILABLE, err, "request cancelled")
	}
	return nil
}

// wrapErr translates an error of bbolt (or of the file system under it) to
// a *store.Error; a *store.Error passes through unchanged.
func wrapErr(err error) error {
	if err == nil {
		return nil
	}
	var se *table.Error
	if errors.As(err, &se) {
		return err
	}
	switch {
	case errors.Is(err, errCorrupt):
		return table.Wrap(table.EINTERNAL, err, "corrupt item in bolt store")
	case errors.Is(err, berrors.ErrDatabaseNotOpen):
		return table.Wrap(table.EUNAVAILABLE, err, "the store is closed (the server is shutting down); try again")
	case errors.Is(err, berrors.ErrKeyTooLarge), errors.Is(err, berrors.ErrValueTooLarge):
		return table.Wrap(table.EINVALID, err, "item too large")
	case errors.Is(err, berrors.ErrMaxSizeReached), errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return table.Wrap(table.EUNAVAILABLE, err, "bolt store is full")
	case errors.Is(err, berrors.ErrDatabaseReadOnly), errors.Is(err, syscall.EROFS), errors.Is(err, syscall.EIO):
		return table.Wrap(table.EUNAVAILABLE, err, "bolt store cannot be written")
	}
	return table.Wrap(table.EINTERNAL, err, "bolt store error")
}

// prefixed prefixes the message of err, a *store.Error, with what (such as
// "operation 3").
func prefixed(what string, err error) error {
	var e *table.Error
	if errors.As(err, &e) {
		return &table.Error{Code: e.Code, Message: what + ": " + e.Message, Op: e.Op, Err: e.Err}
	}
	return fmt.Errorf("%s: %w", what, err)
}
