package livehttp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/acme/comments-gateway/internal/gqlhttp"
)

// Normalised subscriptions: what lets subscriptions that select the same
// data under different operation names, aliases, variable names or
// fragments share one execution (fanout.go).
//
// A subscription's selection normalises into a tree of fields, each named
// by its canonical key: the field's name and its argument values
// (variables resolved, @skip and @include applied, fragments expanded).
// Operations with the same tree return the same data; only their response
// keys (aliases) and the order of those differ. Each subscriber keeps its
// shape, the tree of its response keys over the canonical ones; the
// group's execution answers in its executor's shape, and each subscriber
// gets that data re-keyed into its own (reshape).
//
// An operation normalises only when that is unambiguous: every selection
// set on one object type (no interface or union), no fragment on another
// type, no directive but @skip and @include, and no two response keys of
// one selection set with the same canonical key (`a: title b: title`).
// Any other operation is grouped by its exact text (operationKey), and
// only identical operations share.

// shape is the response keys of one selection set, in response order,
// over their canonical keys.
type shape struct {
	fields  []shapeField
	byCanon map[string]int // canonical key → index in fields
	layout  string         // the response keys and canonical keys, in order: equal layouts, equal bytes
}

// shapeField is one response key of a shape.
type shapeField struct {
	key   string        // response key: the alias, or the field's name
	canon string        // the field's name and arguments
	pos   *ast.Position // where the subscriber's document selects it
	sub   *shape        // its selection; nil for a leaf
}

// errNotNormal: the operation does not normalise (see above).
var errNotNormal = errors.New("the operation does not normalise")

// normalize returns the key of oc's operation for grouping (the hash of
// its canonical tree) and the operation's shape, or errNotNormal.
func normalize(oc *graphql.OperationContext) (string, *shape, error) {
	if oc.Operation == nil || len(oc.Operation.SelectionSet) == 0 {
		return "", nil, errNotNormal
	}
	root := selectionType(oc.Operation.SelectionSet[0])
	s, err := buildShape(oc.Operation.SelectionSet, root, oc.Variables)
	if err != nil {
		return "", nil, err
	}
	var canon strings.Builder
	s.writeCanon(&canon)
	sum := sha256.Sum256([]byte(canon.String()))
	return hex.EncodeToString(sum[:]), s, nil
}

// selectionType is the name of the object type a selection is made on.
func selectionType(sel ast.Selection) string {
	var def *ast.Definition
	switch sel := sel.(type) {
	case *ast.Field:
		def = sel.ObjectDefinition
	case *ast.InlineFragment:
		def = sel.ObjectDefinition
	case *ast.FragmentSpread:
		def = sel.ObjectDefinition
	}
	if def == nil {
		return ""
	}
	return def.Name
}

// collectedField is one response key of a selection set with every
// selection merged into it (as gqlgen's CollectFields merges them).
type collectedField struct {
	key   string
	field *ast.Field
	sels  ast.SelectionSet
}

// buildShape is the shape of sel, a selection set on the object type typ.
func buildShape(sel ast.SelectionSet, typ string, vars map[string]any) (*shape, error) {
	var cs []collectedField
	if err := collect(sel, typ, vars, &cs); err != nil {
		return nil, err
	}
	s := &shape{byCanon: make(map[string]int, len(cs))}
	var layout strings.Builder
	for _, c := range cs {
		args, err := json.Marshal(c.field.ArgumentMap(vars)) // map keys sorted
		if err != nil || c.field.Definition == nil {
			return nil, errNotNormal
		}
		f := shapeField{key: c.key, canon: c.field.Name + string(args), pos: c.field.Position}
		if len(c.sels) > 0 {
			if f.sub, err = buildShape(c.sels, c.field.Definition.Type.Name(), vars); err != nil {
				return nil, err
			}
		}
		if _, dup := s.byCanon[f.canon]; dup {
			return nil, errNotNormal
		}
		s.byCanon[f.canon] = len(s.fields)
		s.fields = append(s.fields, f)
		layout.WriteString(f.key + ":" + f.canon)
		if f.sub != nil {
			layout.WriteString("{" + f.sub.layout + "}")
		}
		layout.WriteByte(' ')
	}
	s.layout = layout.String()
	return s, nil
}

// collect appends the fields of sel, a selection set on the object type
// typ, to cs by response key, expanding fragments, as execution does.
func collect(sel ast.SelectionSet, typ string, vars map[string]any, cs *[]collectedField) error {
	for _, s := range sel {
		var directives ast.DirectiveList
		var sub ast.SelectionSet
		var on string
		switch s := s.(type) {
		case *ast.Field:
			if s.ObjectDefinition == nil || s.ObjectDefinition.Kind != ast.Object || s.ObjectDefinition.Name != typ {
				return errNotNormal
			}
			directives = s.Directives
		case *ast.InlineFragment:
			directives, sub, on = s.Directives, s.SelectionSet, s.TypeCondition
		case *ast.FragmentSpread:
			if s.Definition == nil {
				return errNotNormal
			}
			directives, sub, on = s.Directives, s.Definition.SelectionSet, s.Definition.TypeCondition
		default:
			return errNotNormal
		}
		include, err := included(directives, vars)
		if err != nil {
			return err
		}
		if !include {
			continue
		}
		f, ok := s.(*ast.Field)
		if !ok {
			if on != "" && on != typ {
				return errNotNormal
			}
			if err := collect(sub, typ, vars, cs); err != nil {
				return err
			}
			continue
		}
		addCollected(cs, f)
	}
	return nil
}

// addCollected merges f into the field of its response key in cs, or
// appends it (validation made fields of one response key the same field
// with the same arguments).
func addCollected(cs *[]collectedField, f *ast.Field) {
	key := f.Alias
	if key == "" {
		key = f.Name
	}
	for i := range *cs {
		if (*cs)[i].key == key {
			(*cs)[i].sels = append((*cs)[i].sels, f.SelectionSet...)
			return
		}
	}
	*cs = append(*cs, collectedField{key: key, field: f, sels: append(ast.SelectionSet(nil), f.SelectionSet...)})
}

// included applies @skip and @include; any other directive on a selection
// makes the operation not normalise.
func included(ds ast.DirectiveList, vars map[string]any) (bool, error) {
	for _, d := range ds {
		cond, ok := d.ArgumentMap(vars)["if"].(bool)
		switch {
		case !ok:
			return false, errNotNormal
		case d.Name == "skip" && cond, d.Name == "include" && !cond:
			return false, nil
		case d.Name != "skip" && d.Name != "include":
			return false, errNotNormal
		}
	}
	return true, nil
}

// writeCanon writes the canonical tree of s: its canonical keys, sorted,
// each with its own tree.
func (s *shape) writeCanon(b *strings.Builder) {
	fs := slices.Clone(s.fields)
	slices.SortFunc(fs, func(a, b shapeField) int { return strings.Compare(a.canon, b.canon) })
	b.WriteByte('{')
	for _, f := range fs {
		b.WriteString(f.canon)
		if f.sub != nil {
			f.sub.writeCanon(b)
		}
		b.WriteByte(' ')
	}
	b.WriteByte('}')
}

// sameLayout reports whether a and b answer with the same bytes (both nil:
// an operation grouped by its exact text).
func sameLayout(a, b *shape) bool {
	return a == b || (a != nil && b != nil && a.layout == b.layout)
}

// viewKey names the answer a subscriber of shape s needs when its group's
// answer is resp in the shape from: nil when resp itself will do (the same
// layout, and no error to locate in s's own document); else s's layout,
// or with errors s itself.
func viewKey(resp *graphql.Response, from, s *shape) any {
	switch {
	case s == from, sameLayout(s, from) && len(resp.Errors) == 0:
		return nil
	case len(resp.Errors) > 0:
		return s
	}
	return s.layout
}

// viewFor returns resp as a subscriber of shape s receives it, reshaped
// once per viewKey and kept in views.
func viewFor(views map[any]*graphql.Response, resp *graphql.Response, from, s *shape) *graphql.Response {
	k := viewKey(resp, from, s)
	if k == nil {
		return resp
	}
	if views[k] == nil {
		views[k] = reshape(resp, from, s)
	}
	return views[k]
}

// reshape returns resp, an answer in the shape from, in the shape to: its
// data re-keyed (shared when the layouts are the same), its errors' paths
// and locations those of to. Extensions are shared. Data that does not fit
// from (which execution never gives) is an INTERNAL error.
func reshape(resp *graphql.Response, from, to *shape) *graphql.Response {
	out := &graphql.Response{Extensions: resp.Extensions, Label: resp.Label, Path: resp.Path, HasNext: resp.HasNext}
	if sameLayout(from, to) {
		out.Data = resp.Data
	} else if resp.Data != nil {
		var b bytes.Buffer
		if err := writeShaped(&b, resp.Data, from, to); err != nil {
			out.Errors = gqlerror.List{gqlhttp.Coded(gqlhttp.CodeInternal, "internal error")}
			return out
		}
		out.Data = b.Bytes()
	}
	for _, e := range resp.Errors {
		out.Errors = append(out.Errors, reshapeError(e, from, to))
	}
	return out
}

var errShapeMismatch = errors.New("data does not fit its shape")

// writeShaped writes raw, a value answered in the shape from, in the
// shape to: an object re-keyed field by field, a list item by item, and a
// value whose layout is the same in both (a leaf, null, a subtree without
// aliases of its own) copied as it is. raw is read in one pass per level
// (jsonFields, jsonItems), without decoding.
func writeShaped(b *bytes.Buffer, raw []byte, from, to *shape) error {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return errShapeMismatch
	case sameLayout(from, to) || raw[0] == 'n':
		b.Write(raw)
	case raw[0] == '[':
		items, err := jsonItems(raw)
		if err != nil {
			return err
		}
		b.WriteByte('[')
		for i, it := range items {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeShaped(b, it, from, to); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case raw[0] == '{':
		obj, err := jsonFields(raw)
		if err != nil {
			return err
		}
		b.WriteByte('{')
		for i, f := range to.fields {
			j, ok := from.byCanon[f.canon]
			if !ok {
				return errShapeMismatch
			}
			v, ok := obj[from.fields[j].key]
			if !ok {
				return errShapeMismatch
			}
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + f.key + `":`) // a GraphQL name needs no escaping
			if f.sub == nil {
				b.Write(v)
			} else if err := writeShaped(b, v, from.fields[j].sub, f.sub); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return errShapeMismatch
	}
	return nil
}

// jsonFields returns the values of the JSON object raw by key (keys as
// written: a GraphQL response key has no escapes), sharing raw's bytes.
func jsonFields(raw []byte) (map[string][]byte, error) {
	obj := map[string][]byte{}
	err := jsonMembers(raw, '{', '}', func(elem []byte) error {
		end, err := jsonValueEnd(elem, 0)
		if err != nil || elem[0] != '"' {
			return errShapeMismatch
		}
		rest := bytes.TrimSpace(elem[end:])
		if len(rest) == 0 || rest[0] != ':' {
			return errShapeMismatch
		}
		obj[string(elem[1:end-1])] = bytes.TrimSpace(rest[1:])
		return nil
	})
	return obj, err
}

// jsonItems returns the items of the JSON array raw, sharing raw's bytes.
func jsonItems(raw []byte) ([][]byte, error) {
	var items [][]byte
	err := jsonMembers(raw, '[', ']', func(elem []byte) error {
		items = append(items, elem)
		return nil
	})
	return items, err
}

// jsonMembers calls each with every comma-separated member of raw, a JSON
// object or array opened by open and closed by close.
func jsonMembers(raw []byte, open, close byte, each func([]byte) error) error {
	if len(raw) < 2 || raw[0] != open || raw[len(raw)-1] != close {
		return errShapeMismatch
	}
	body := bytes.TrimSpace(raw[1 : len(raw)-1])
	for len(body) > 0 {
		end, err := jsonMemberEnd(body)
		if err != nil {
			return err
		}
		if err := each(bytes.TrimSpace(body[:end])); err != nil {
			return err
		}
		body = body[end:]
		if len(body) > 0 { // the comma
			body = bytes.TrimSpace(body[1:])
		}
	}
	return nil
}

// jsonMemberEnd returns the index of the comma that ends the first member
// of b (a key and value, or a value), or len(b).
func jsonMemberEnd(b []byte) (int, error) {
	for i := 0; i < len(b); {
		switch b[i] {
		case ',':
			return i, nil
		case ' ', '\t', '\n', '\r', ':':
			i++
		default:
			end, err := jsonValueEnd(b, i)
			if err != nil {
				return 0, err
			}
			i = end
		}
	}
	return len(b), nil
}

// jsonValueEnd returns the index just past the JSON value that starts at
// b[i]: a string to its closing quote, an object or array to its closing
// bracket, anything else to the next delimiter.
func jsonValueEnd(b []byte, i int) (int, error) {
	depth, inString := 0, false
	for j := i; j < len(b); j++ {
		c := b[j]
		switch {
		case inString && c == '\\':
			j++
		case inString:
			if c == '"' {
				inString = false
				if depth == 0 {
					return j + 1, nil
				}
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				return j + 1, nil
			}
			if depth < 0 {
				return j, nil
			}
		case depth == 0 && (c == ',' || c == ':' || c == ' '):
			return j, nil
		}
	}
	if depth != 0 || inString {
		return 0, errShapeMismatch
	}
	return len(b), nil
}

// reshapeError returns a copy of e whose path is in the shape to, located
// where to's document selects the field; a path that does not fit from is
// kept.
func reshapeError(e *gqlerror.Error, from, to *shape) *gqlerror.Error {
	out := *e
	if len(e.Path) == 0 {
		return &out
	}
	path := make(ast.Path, 0, len(e.Path))
	var pos *ast.Position
	for _, el := range e.Path {
		name, ok := el.(ast.PathName)
		if !ok {
			path = append(path, el)
			continue
		}
		if from == nil || to == nil {
			return &out
		}
		j, ok := from.indexOfKey(string(name))
		if !ok {
			return &out
		}
		k, ok := to.byCanon[from.fields[j].canon]
		if !ok {
			return &out
		}
		path = append(path, ast.PathName(to.fields[k].key))
		pos = to.fields[k].pos
		from, to = from.fields[j].sub, to.fields[k].sub
	}
	out.Path = path
	if pos != nil {
		out.Locations = []gqlerror.Location{{Line: pos.Line, Column: pos.Column}}
	}
	return &out
}

// indexOfKey returns the index of the field of response key key.
func (s *shape) indexOfKey(key string) (int, bool) {
	for i, f := range s.fields {
		if f.key == key {
			return i, true
		}
	}
	return 0, false
}
