package resolvers

import (
	"errors"

	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/acme/comments-gateway/store"
)

// This file names, in the domain's EINVALID errors, the GraphQL argument
// they are about; the error presenter turns the names into
// extensions.argument (and a range into min, max, got).

// asArgument returns err about the argument named arg: a store *Error gets
// arg as its Argument (its message stays), anything else is returned as it is.
func asArgument(err error, arg string) error {
	var e *store.Error
	if !errors.As(err, &e) || e.Code != store.EINVALID {
		return err
	}
	c := *e
	c.Argument = arg
	return &c
}

// inputErrors returns err about the fields of the input object argument
// named input: each invalid field's error is put under it ("rating" →
// "input.rating"), and several become a gqlerror.List, so that gqlgen
// reports each one (through the error presenter).
func inputErrors(err error, input string) error {
	var es store.Errors
	if errors.As(err, &es) {
		list := make(gqlerror.List, len(es))
		for i, e := range es {
			u := e.Under(input)
			list[i] = &gqlerror.Error{Message: u.Message, Err: u}
		}
		return list
	}
	var e *store.Error
	if errors.As(err, &e) && e.Code == store.EINVALID {
		return e.Under(input)
	}
	return err
}
