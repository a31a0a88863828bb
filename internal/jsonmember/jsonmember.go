package jsonmember

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
)

// Fold is the form under which name matches, as encoding/json folds it
// (bytes.EqualFold): each letter as the smallest rune of its case-folding
// orbit, so "q" and "Q" are "Q", and "ſ" is "S".
func Fold(name string) string {
	return strings.Map(func(r rune) rune {
		for {
			next := unicode.SimpleFold(r)
			if next <= r {
				return next
			}
			r = next
		}
	}, name)
}

// Key returns the name under which obj holds the member name (itself,
// else one that folds to it; name when there is none).
func Key(obj map[string]json.RawMessage, name string) string {
	if _, ok := obj[name]; ok {
		return name
	}
	want := Fold(name)
	for k := range obj {
		if Fold(k) == want {
			return k
		}
	}
	return name
}

// Duplicate returns the first two member names of the JSON object body
// that fold together, or ok false when there are none or body is not a
// JSON object (its decoder reports that).
func Duplicate(body []byte) (first, second string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", "", false
	}
	seen := map[string]string{}
	var skip json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		name, isName := tok.(string)
		if err != nil || !isName || dec.Decode(&skip) != nil {
			return "", "", false
		}
		key := Fold(name)
		if prev, dup := seen[key]; dup {
			return prev, name, true
		}
		seen[key] = name
	}
	return "", "", false
}
