package policy

import (
	"encoding/json"
	"slices"
	"strconv"
)

// An operation with variables is measured per request: its complexity
// reads the variables. Its measure is a function of the document, the
// operation's name and the raw variables alone (coercion and the schema's
// complexity are deterministic), so CostLimit keeps the measures of
// recent variable sets in its cache beside the documents: a hot page (page
// 1 of a product, the same variables) is measured once, not on every
// request.

// maxCachedVariables is the longest encoding of a request's variables
// whose measure is kept (a longer one is measured each time).
const maxCachedVariables = 1 << 10

// variablesKey is the cache key of an operation's measure with these raw
// variables in the document of key docKey: the document's key, the
// operation's name and the variables written by appendVariables; false
// when they are too long to keep. Two keys are equal only when all three
// are: the document's key is hex and the name a GraphQL name (that of one
// of its operations), neither with a NUL byte, and the variables'
// encoding is one-to-one.
func variablesKey(docKey, operationName string, vars map[string]any) (string, bool) {
	b := make([]byte, 0, len(docKey)+len(operationName)+2+64)
	b = append(append(append(append(b, docKey...), 0), operationName...), 0)
	n := len(b)
	b, ok := appendVariables(b, vars)
	if !ok || len(b)-n > maxCachedVariables {
		return "", false
	}
	return string(b), true
}

// appendVariables appends an encoding of vars, the decoded JSON of a
// request's variables, that is one-to-one: 'v' and a JSON-like text with
// each object's names sorted, strings quoted by strconv.Quote and numbers
// as their json.Number text; for a value of any other type (not what the
// transports decode), 'j' and vars' JSON, which is then the whole
// encoding; false when vars have no JSON (they are then measured each
// time, never under a shared key). Without json.Marshal's reflection:
// this runs on every request.
func appendVariables(b []byte, vars map[string]any) ([]byte, bool) {
	if out, ok := appendValue(append(b, 'v'), vars); ok {
		return out, true
	}
	j, err := json.Marshal(vars)
	if err != nil {
		return b, false
	}
	return append(append(b, 'j'), j...), true
}

// appendValue appends v's encoding (see appendVariables); false for a
// type it does not write.
func appendValue(b []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, x), true
	case string:
		return appendQuoted(b, x), true
	case json.Number:
		if !isNumberText(string(x)) {
			return b, false
		}
		return append(b, x...), true
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendValue(b, e); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		if x == nil {
			return append(b, "null"...), true
		}
		return appendObject(b, x)
	}
	return b, false
}

// appendObject appends an object's encoding, its names sorted.
func appendObject(b []byte, m map[string]any) ([]byte, bool) {
	var stack [8]string
	names := stack[:0]
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	b = append(b, '{')
	for i, k := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendQuoted(b, k), ':')
		var ok bool
		if b, ok = appendValue(b, m[k]); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendQuoted is strconv.AppendQuote(b, s), without its rune by rune
// pass over a string of printable ASCII other than a quote or a backslash,
// which it quotes as is (a page's cursor and ids: 0.9% of a page's CPU).
func appendQuoted(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			return strconv.AppendQuote(b, s)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}

// isNumberText reports whether s has only the bytes of a JSON number, so
// that it cannot be read as anything else in the encoding.
func isNumberText(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
		default:
			return false
		}
	}
	return true
}
