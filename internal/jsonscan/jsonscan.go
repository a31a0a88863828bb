package jsonscan

import "bytes"

// SkipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// SkipString returns the index just after the JSON string that starts at
// b[i] (a '"'), or len(b) if it is unterminated. It finds each quote with
// bytes.IndexByte, so a long string costs a memchr.
func SkipString(b []byte, i int) int {
	for i++; i < len(b); {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return len(b)
		}
		i += q
		n := 0 // backslashes right before the quote
		for k := i - 1; k >= 0 && b[k] == '\\'; k-- {
			n++
		}
		i++
		if n%2 == 0 {
			return i
		}
	}
	return len(b)
}

// SkipValue returns the index just after the JSON value that starts at
// b[i]: a string, an object or array by its brackets, a scalar up to the
// next delimiter (len(b) for a value cut short).
func SkipValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = SkipString(b, i)
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the end of a scalar in its container
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',', ':', ' ', '\t', '\r', '\n':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return i
}
