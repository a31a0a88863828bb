package gqlhttp

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/99designs/gqlgen/graphql"
)

// writeResponse writes an executed operation's response as json.Marshal
// would (graphql.Response's fields, order and omitempty rules), except that
// its data, which gqlgen's marshalers already wrote as compact JSON, is
// copied as is instead of being re-validated and re-compacted: that pass
// over the whole page was 7% of a page-1 request's CPU. (It also leaves
// '<', '>' and '&' in strings unescaped, as gqlgen writes them; the reply
// is application/json, never HTML.) The data is written where it is, between
// the few bytes before and after it, not copied into a body of its own
// first: the copy was the reply's largest allocation. The body leaves in
// one write call where the server allows it (writeWhole).
func writeResponse(ctx context.Context, w http.ResponseWriter, resp *graphql.Response) {
	if resp == nil || len(resp.Data) == 0 || resp.Label != "" || len(resp.Path) > 0 || resp.HasNext != nil {
		writeJSON(w, resp) // no data, or an incremental part: the general path
		return
	}
	var errs, ext []byte
	var err error
	if len(resp.Errors) > 0 {
		if errs, err = json.Marshal(resp.Errors); err != nil {
			writeJSON(w, resp)
			return
		}
	}
	if len(resp.Extensions) > 0 {
		if ext, err = marshalExtensions(resp.Extensions); err != nil {
			writeJSON(w, resp)
			return
		}
	}
	head := make([]byte, 0, len(errs)+len(`{"errors":,"data":`))
	head = append(head, '{')
	if errs != nil {
		head = append(head, `"errors":`...)
		head = append(head, errs...)
		head = append(head, ',')
	}
	head = append(head, `"data":`...)
	tail := closeObject
	if ext != nil {
		tail = make([]byte, 0, len(ext)+len(`,"extensions":}`))
		tail = append(append(append(tail, `,"extensions":`...), ext...), '}')
	}
	writeParts(ctx, w, head, resp.Data, tail)
}

// closeObject ends a reply without extensions (never written to).
var closeObject = []byte("}")

// writeParts writes a whole reply body made of parts in one Write with
// its Content-Length (see writeWhole): straight into the body the cache
// buffers (bufferedResponse), sized once, else joined in a pooled buffer.
// (Writing the parts in turn to net/http's writer would leave the last
// ones in its buffer until the handler returns, a write call of their
// own.) No part is copied into a new slice.
func writeParts(ctx context.Context, w http.ResponseWriter, parts ...[]byte) {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	w.Header().Set("Content-Length", strconv.Itoa(n))
	if b, ok := w.(*bufferedResponse); ok {
		b.body.Grow(n)
		for _, p := range parts {
			b.body.Write(p)
		}
		return
	}
	buf := joinedBodies.Get().(*[]byte)
	for _, p := range parts {
		*buf = append(*buf, p...)
	}
	writeWhole(ctx, w, *buf)
	if cap(*buf) <= maxPooledBody {
		*buf = (*buf)[:0]
		joinedBodies.Put(buf)
	}
}

// joinedBodies are the buffers writeParts joins a body's parts in.
var joinedBodies = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// marshalExtensions is json.Marshal(ext) without reflection for what a
// reply's extensions usually are (extensions.cost: objects of integers
// under plain names), and json.Marshal itself for anything else.
func marshalExtensions(ext map[string]any) ([]byte, error) {
	if b, ok := appendPlain(make([]byte, 0, 128), ext); ok {
		return b, nil
	}
	return json.Marshal(ext)
}

// appendPlain appends v as json.Marshal writes it when v is an integer or
// an object of such values (nested) whose names are ASCII letters and
// digits; false for anything else.
func appendPlain(b []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case int:
		return strconv.AppendInt(b, int64(x), 10), true
	case int64:
		return strconv.AppendInt(b, x, 10), true
	case map[string]any:
		if x == nil {
			return append(b, "null"...), true
		}
		sep := byte('{')
		// The names sorted, in an array on the stack for the few names
		// of a reply's extensions (slices.Sorted(maps.Keys) grows a
		// slice on the heap: 0.7% of a served page's CPU).
		var room [8]string
		keys := room[:0]
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !plainName(k) {
				return b, false
			}
			b = append(append(append(append(b, sep, '"'), k...), '"'), ':')
			sep = ','
			var ok bool
			if b, ok = appendPlain(b, x[k]); !ok {
				return b, false
			}
		}
		if sep == '{' {
			b = append(b, sep)
		}
		return append(b, '}'), true
	}
	return b, false
}

// plainName reports whether s is ASCII letters and digits only: JSON
// writes it between quotes as it is.
func plainName(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}
