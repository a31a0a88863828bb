package jsonl

import (
	"bytes"
	"encoding/json"

	"github.com/acme/comments-gateway/internal/jsonscan"
)

// decodeFast decodes line, valid UTF-8, as decode does, without reflection
// and with one allocation for all its strings, when line is of the form
// every good line has: one JSON object of known, distinct keys spelled
// without escapes, every field of a string type a string or null, the
// rating a number, every required field set. It returns false on anything
// else (bad lines among them), for decode to decode line again and name
// what is wrong: decodeFast never reports an error itself, so the messages
// are decode's. What it accepts, decode accepts with the same record and
// fields (FuzzDecodeFast).
func decodeFast(line []byte) (rec record, set uint, ok bool) {
	s := string(line) // the record's strings are parts of this copy
	i := jsonscan.SkipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return rec, 0, false
	}
	i = jsonscan.SkipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return rec, 0, false // no field: required ones are missing
	}
	var seen uint
	for {
		// "key"
		if i >= len(line) || line[i] != '"' {
			return rec, 0, false
		}
		end := bytes.IndexByte(line[i+1:], '"')
		if end < 0 {
			return rec, 0, false
		}
		k := fieldIndex(line[i+1 : i+1+end]) // a key with an escape is not found
		if k < 0 || seen&(1<<k) != 0 {
			return rec, 0, false
		}
		seen |= 1 << k
		i = jsonscan.SkipSpace(line, i+2+end)
		if i >= len(line) || line[i] != ':' {
			return rec, 0, false
		}
		i = jsonscan.SkipSpace(line, i+1)
		var isSet bool
		if i, isSet, ok = rec.setField(k, line, s, i); !ok {
			return rec, 0, false
		}
		if isSet {
			set |= 1 << k
		}
		i = jsonscan.SkipSpace(line, i)
		if i >= len(line) {
			return rec, 0, false
		}
		if line[i] == '}' {
			break
		}
		if line[i] != ',' {
			return rec, 0, false
		}
		i = jsonscan.SkipSpace(line, i+1)
	}
	if jsonscan.SkipSpace(line, i+1) != len(line) {
		return rec, 0, false
	}
	const required = fieldProductID | fieldLanguage | fieldRating | fieldAuthor | fieldTitle | fieldBody | fieldCreatedAt
	if set&required != required {
		return rec, 0, false
	}
	return rec, set, true
}

// setField decodes the value at line[i] (s is line as a string) of field k
// of fieldNames into rec, and returns the index past it and whether it is
// set (not null); false when decodeFast leaves the line to decode.
func (rec *record) setField(k int, line []byte, s string, i int) (int, bool, bool) {
	if i >= len(line) {
		return i, false, false
	}
	if line[i] == 'n' {
		// null: the field keeps its zero value, as encoding/json leaves it.
		// A required field null is an error that decode reports.
		ok := bytes.HasPrefix(line[i:], []byte("null")) && 1<<k&optionalFields != 0
		return i + 4, false, ok
	}
	switch 1 << k {
	case fieldRating:
		j, ok := numberEnd(line, i)
		rec.Rating = line[i:j:j] // parsed before line is reused (parser.parse)
		return j, true, ok
	case fieldVerifiedPurchase:
		switch {
		case bytes.HasPrefix(line[i:], []byte("true")):
			rec.VerifiedPurchase = true
			return i + 4, true, true
		case bytes.HasPrefix(line[i:], []byte("false")):
			return i + 5, true, true
		}
		return i, false, false
	case fieldReply:
		return i, false, false // an object: decode reads it
	}
	if line[i] != '"' {
		return i, false, false
	}
	j, v, ok := stringValue(line, s, i)
	if !ok {
		return i, false, false
	}
	*rec.stringField(k) = v
	return j, true, true
}

// stringField returns the field of rec of index k in fieldNames, a
// string (any but the rating, verifiedPurchase and reply).
func (rec *record) stringField(k int) *string {
	return [...]*string{&rec.ID, &rec.ProductID, &rec.Language, nil, &rec.Author, &rec.Title, &rec.Body, &rec.CreatedAt, &rec.AuthorID,
		&rec.Status, &rec.ModeratedAt, &rec.ModerationReason}[k]
}

// stringValue returns the index past the JSON string at line[i] (a '"')
// and its value: a part of s (line as a string) when it has no escape, else
// as encoding/json decodes it. False when the string is not valid JSON.
func stringValue(line []byte, s string, i int) (int, string, bool) {
	escaped := false
	for j := i + 1; j < len(line); j++ {
		switch c := line[j]; {
		case c == '"':
			if !escaped {
				return j + 1, s[i+1 : j], true
			}
			var v string
			if json.Unmarshal(line[i:j+1], &v) != nil {
				return j, "", false
			}
			return j + 1, v, true
		case c == '\\':
			escaped = true
			j++ // the escaped byte; json.Unmarshal checks the escape
		case c < 0x20:
			return j, "", false // a control character must be escaped
		}
	}
	return len(line), "", false
}

// numberEnd returns the index past the JSON number at line[i], and false
// when there is none: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func numberEnd(line []byte, i int) (int, bool) {
	digits := func(j int) int {
		for j < len(line) && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		return j
	}
	if i < len(line) && line[i] == '-' {
		i++
	}
	switch {
	case i < len(line) && line[i] == '0':
		i++
	case i < len(line) && line[i] >= '1' && line[i] <= '9':
		i = digits(i)
	default:
		return i, false
	}
	if i < len(line) && line[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(line) && (line[i] == 'e' || line[i] == 'E') {
		i++
		if i < len(line) && (line[i] == '+' || line[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}
