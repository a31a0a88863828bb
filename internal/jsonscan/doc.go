// Package jsonscan skips over JSON text without decoding it: whitespace,
// strings and whole values, for code that reads a few top-level members of
// a large object (an import line's keys, a websocket message's type and
// id). It validates nothing beyond the bytes it must look at; decode what
// is kept with encoding/json, or with package jsonvalue once validated.
package jsonscan
