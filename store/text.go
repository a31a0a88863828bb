package store

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// The text rules of a comment's author, title and body (see ValidateText).
// A rule refuses with EINVALID and a message that names the field (the
// caller's what, such as "body" or "input.body") and says what to fix.

// invisible are the characters that show nothing on their own: Unicode
// spaces (Zs) and White_Space, format characters (Cf: U+200B zero width
// space, U+FEFF, bidi controls, …), variation selectors and the other
// default-ignorable code points (U+3164 Hangul filler, …). A text made only
// of them is empty.
var invisible = []*unicode.RangeTable{
	unicode.Zs, unicode.White_Space, unicode.Cf,
	unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point,
}

// ValidateText checks a required one-line text field (author, title): valid
// UTF-8, no control character, some visible character, at most max
// characters.
func ValidateText(what, s string, max int) error {
	return validateText(what, s, max, false)
}

// ValidateMultilineText is ValidateText for a field that may hold several
// lines (body): newline (LF or CR LF) and tab are allowed.
func ValidateMultilineText(what, s string, max int) error {
	return validateText(what, s, max, true)
}

func validateText(what, s string, max int, multiline bool) error {
	if !utf8.ValidString(s) {
		return Invalid(what, "%s must be valid UTF-8 (byte %d is not)", what, invalidByte(s))
	}
	visible, n := false, 0
	for i, r := range s {
		n++
		if unicode.IsControl(r) && !(multiline && allowedInMultiline(s, i, r)) {
			allowed := "no control character is allowed"
			if multiline {
				allowed = "only newline and tab are allowed"
			}
			return Invalid(what, "%s must not contain control characters: %s at character %d; remove it (%s)", what, codePoint(r), n, allowed)
		}
		if !visible && !unicode.IsOneOf(invisible, r) && !unicode.IsControl(r) {
			visible = true
		}
	}
	if !visible {
		return Invalid(what, "%s must not be empty: write some visible text (spaces and invisible characters such as U+00A0, U+200B, U+3000 or U+FEFF do not count)", what)
	}
	if n > max {
		e := Invalid(what, "%s must be at most %d characters, got %d", what, max, n)
		e.Range = &Range{Min: 1, Max: max, Got: n}
		return e
	}
	return nil
}

// allowedInMultiline reports whether control character r at byte i of s is
// one a multi-line text may hold: tab, LF, or CR directly before LF.
func allowedInMultiline(s string, i int, r rune) bool {
	switch r {
	case '\t', '\n':
		return true
	case '\r':
		return i+1 < len(s) && s[i+1] == '\n'
	}
	return false
}

// codePoint names r for a message: U+001B.
func codePoint(r rune) string { return fmt.Sprintf("U+%04X", r) }

// invalidByte returns the offset of the first byte of s that is not part of
// valid UTF-8.
func invalidByte(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i
			}
		}
	}
	return len(s)
}
