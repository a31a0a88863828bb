package jsonvalue

import (
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/acme/comments-gateway/internal/jsonscan"
)

// Object decodes b, the valid JSON text of an object (whitespace around it
// allowed), into the map encoding/json decodes it to: a later member of a
// name replaces an earlier one, numbers are json.Number.
func Object(b []byte) map[string]any {
	d := decoder{b: b}
	d.i = jsonscan.SkipSpace(b, 0)
	return d.object()
}

// String decodes raw, the valid JSON text of a string (quotes included).
func String(raw []byte) string {
	body := raw[1 : len(raw)-1]
	esc := -1
	for i, c := range body {
		if c == '\\' || c >= utf8.RuneSelf {
			esc = i
			break
		}
	}
	if esc < 0 { // ASCII without an escape: the common case
		return string(body)
	}
	if s, ok := unescape(body, esc); ok {
		return s
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// unescape decodes body, a JSON string's text between its quotes, whose
// first escape or non-ASCII byte is at from; false for what it leaves to
// encoding/json (a surrogate escape, bytes that are not UTF-8).
func unescape(body []byte, from int) (string, bool) {
	out := make([]byte, from, len(body))
	copy(out, body[:from])
	for i := from; i < len(body); {
		c := body[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && n == 1 {
				return "", false
			}
			out = append(out, body[i:i+n]...)
			i += n
			continue
		}
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		e := body[i+1]
		i += 2
		switch e {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(body[i : i+4])
			if utf16.IsSurrogate(r) {
				return "", false
			}
			out = utf8.AppendRune(out, r)
			i += 4
		default: // '"', '\\', '/'
			out = append(out, e)
		}
	}
	return string(out), true
}

// hex4 is the value of four valid hex digits.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case c <= '9':
			r = r<<4 | rune(c-'0')
		case c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			r = r<<4 | rune(c-'a'+10)
		}
	}
	return r
}

// decoder reads values from valid JSON text b at i.
type decoder struct {
	b []byte
	i int
}

// value decodes the value at d.i (no whitespace before it) and moves past
// it.
func (d *decoder) value() any {
	switch d.b[d.i] {
	case '{':
		return d.object()
	case '[':
		return d.array()
	case '"':
		return d.str()
	case 't':
		d.i += len("true")
		return true
	case 'f':
		d.i += len("false")
		return false
	case 'n':
		d.i += len("null")
		return nil
	}
	end := jsonscan.SkipValue(d.b, d.i)
	n := json.Number(d.b[d.i:end])
	d.i = end
	return n
}

func (d *decoder) str() string {
	end := jsonscan.SkipString(d.b, d.i)
	s := String(d.b[d.i:end])
	d.i = end
	return s
}

// object decodes the object at d.i.
func (d *decoder) object() map[string]any {
	m := make(map[string]any)
	d.i = jsonscan.SkipSpace(d.b, d.i+1)
	for d.b[d.i] != '}' {
		name := d.str()
		d.i = jsonscan.SkipSpace(d.b, jsonscan.SkipSpace(d.b, d.i)+1) // past the colon
		m[name] = d.value()
		d.i = jsonscan.SkipSpace(d.b, d.i)
		if d.b[d.i] == ',' {
			d.i = jsonscan.SkipSpace(d.b, d.i+1)
		}
	}
	d.i++
	return m
}

// array decodes the array at d.i.
func (d *decoder) array() []any {
	a := []any{}
	d.i = jsonscan.SkipSpace(d.b, d.i+1)
	for d.b[d.i] != ']' {
		a = append(a, d.value())
		d.i = jsonscan.SkipSpace(d.b, d.i)
		if d.b[d.i] == ',' {
			d.i = jsonscan.SkipSpace(d.b, d.i+1)
		}
	}
	d.i++
	return a
}
