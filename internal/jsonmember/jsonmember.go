package jsonmember

import (
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
