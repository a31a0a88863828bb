package jsonmember

import (
	"context"
	"encoding/json"

	"github.com/acme/comments-gateway/internal/jsonscan"
	"github.com/acme/comments-gateway/internal/jsonvalue"
)

// Object is the members of a JSON object, in order, each with its value's
// raw text, read by Parse without decoding a value: the one reading of a
// request body that every reader of the request shares (see NewContext).
type Object []Member

// Member is one member of an Object.
type Member struct {
	Name  string
	Value json.RawMessage // the value's JSON text, a slice of the parsed body
}

// Parse reads the members of body, which must be one valid JSON object:
// one scan validates it (json.Valid), a second finds the members (package
// jsonscan: a long string costs a memchr), and only the names are decoded.
// ok is false for anything else (invalid JSON, another value, data after
// the object); the caller's decoder then says what is wrong.
func Parse(body []byte) (obj Object, ok bool) {
	if !json.Valid(body) {
		return nil, false
	}
	i := jsonscan.SkipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return nil, false
	}
	obj = make(Object, 0, 4) // a request's query, operationName, variables, extensions
	for i = jsonscan.SkipSpace(body, i+1); i < len(body) && body[i] == '"'; i = jsonscan.SkipSpace(body, i+1) {
		end := jsonscan.SkipString(body, i)
		name := jsonvalue.String(body[i:end])
		i = jsonscan.SkipSpace(body, jsonscan.SkipSpace(body, end)+1) // past the colon
		end = jsonscan.SkipValue(body, i)
		obj = append(obj, Member{Name: name, Value: body[i:end:end]})
		if i = jsonscan.SkipSpace(body, end); i >= len(body) || body[i] != ',' {
			break
		}
	}
	return obj, true
}

// Duplicate returns the first two member names of o that fold together,
// or ok false when there are none.
func (o Object) Duplicate() (first, second string, ok bool) {
	if len(o) > smallObject {
		return o.duplicateByMap()
	}
	for i, m := range o {
		for _, prev := range o[:i] {
			if Same(prev.Name, m.Name) {
				return prev.Name, m.Name, true
			}
		}
	}
	return "", "", false
}

// smallObject is the most members Duplicate compares pairwise (a request
// has up to four); a larger object, which a client may send with a
// hundred thousand members, is checked through a map.
const smallObject = 8

// duplicateByMap is Duplicate in time linear in len(o).
func (o Object) duplicateByMap() (first, second string, ok bool) {
	seen := make(map[string]string, len(o))
	for _, m := range o {
		key := Fold(m.Name)
		if prev, dup := seen[key]; dup {
			return prev, m.Name, true
		}
		seen[key] = m.Name
	}
	return "", "", false
}

// Key returns the name under which o holds the member name (itself, else
// one that folds to it), and whether it has one.
func (o Object) Key(name string) (string, bool) {
	for _, m := range o {
		if m.Name == name {
			return name, true
		}
	}
	for _, m := range o {
		if Same(m.Name, name) {
			return m.Name, true
		}
	}
	return name, false
}

// Get returns the value of the member name (matched as Key matches it),
// nil when o has none.
func (o Object) Get(name string) json.RawMessage {
	key, ok := o.Key(name)
	if !ok {
		return nil
	}
	for _, m := range o {
		if m.Name == key {
			return m.Value
		}
	}
	return nil
}

// Set returns o with the member name (matched as Key matches it) set to
// value, added last when o has none; o itself is not changed.
func (o Object) Set(name string, value json.RawMessage) Object {
	key, _ := o.Key(name)
	out := make(Object, 0, len(o)+1)
	found := false
	for _, m := range o {
		if m.Name == key {
			m.Value, found = value, true
		}
		out = append(out, m)
	}
	if !found {
		out = append(out, Member{Name: name, Value: value})
	}
	return out
}

// Delete returns o without the member name (matched as Key matches it); o
// itself is not changed.
func (o Object) Delete(name string) Object {
	key, _ := o.Key(name)
	out := make(Object, 0, len(o))
	for _, m := range o {
		if m.Name != key {
			out = append(out, m)
		}
	}
	return out
}

// MarshalJSON writes o as a JSON object, its members in order.
func (o Object) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, m := range o {
		if i > 0 {
			b = append(b, ',')
		}
		name, err := json.Marshal(m.Name)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, name...), ':'), m.Value...)
	}
	return append(b, '}'), nil
}

// objectKey holds a request's parsed body (NewContext).
type objectKey struct{}

// NewContext returns ctx carrying o, the parsed body of its request, so
// that the readers after the first (the trusted documents, the GraphQL
// transport) read its members without parsing the body again. Whoever
// replaces the request's body puts the matching Object in its context.
func NewContext(ctx context.Context, o Object) context.Context {
	return context.WithValue(ctx, objectKey{}, o)
}

// FromContext returns the parsed body NewContext put in ctx.
func FromContext(ctx context.Context) (Object, bool) {
	o, ok := ctx.Value(objectKey{}).(Object)
	return o, ok
}
