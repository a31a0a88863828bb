package jsonmember

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Fold is the form under which name matches, as encoding/json folds it
// (bytes.EqualFold): each letter as the smallest rune of its case-folding
// orbit, so "q" and "Q" are "Q", and "ſ" is "S".
func Fold(name string) string {
	return strings.Map(foldRune, name)
}

// Same reports whether a and b match, Fold(a) == Fold(b), without building
// either fold (the request path compares a body's few names so).
func Same(a, b string) bool {
	for a != "" && b != "" {
		ra, na := rune(a[0]), 1
		if ra >= utf8.RuneSelf {
			ra, na = utf8.DecodeRuneInString(a)
		}
		rb, nb := rune(b[0]), 1
		if rb >= utf8.RuneSelf {
			rb, nb = utf8.DecodeRuneInString(b)
		}
		if ra != rb && foldRune(ra) != foldRune(rb) {
			return false
		}
		a, b = a[na:], b[nb:]
	}
	return a == b
}

// foldRune is r as Fold writes it: the smallest rune of its case-folding
// orbit.
func foldRune(r rune) rune {
	for {
		next := unicode.SimpleFold(r)
		if next <= r {
			return next
		}
		r = next
	}
}
