package store_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/acme/comments-gateway/store"
)

// TestValidateText: the text rules, one case per rule and per kind of
// character, for a one-line field (title) and a multi-line one (body).
func TestValidateText(t *testing.T) {
	for _, tc := range []struct {
		name, s   string
		multiline bool
		want      string // "" for valid, else a part of the message
	}{
		{"plain", "Great phone", false, ""},
		{"non-Latin", "Отлично 很好 👍", false, ""},
		{"inner spaces and format chars", "a\u00a0b\u200bc\ufeff", false, ""},
		{"combining mark alone is visible", "\u0301", false, ""},
		{"empty", "", false, "must not be empty"},
		{"ASCII spaces", "   ", false, "must not be empty"},
		{"NBSP ZWSP ideographic space", "\u00a0\u200b\u3000", false, "must not be empty"},
		{"BOM", "\ufeff", true, "must not be empty"},
		{"bidi override and word joiner", "\u202e\u2060", false, "must not be empty"},
		{"Hangul filler", "\u3164", false, "must not be empty"},
		{"variation selector", "\ufe0f", false, "must not be empty"},
		{"line separator", "\u2028", true, "must not be empty"},
		{"NUL", "a\x00b", false, "U+0000 at character 2"},
		{"ESC", "\x1b[31mred", false, "U+001B at character 1"},
		{"DEL", "a\x7f", false, "U+007F at character 2"},
		{"C1 NEL", "a\u0085b", true, "U+0085 at character 2"},
		{"tab in a title", "a\tb", false, "U+0009 at character 2"},
		{"newline in a title", "a\nb", false, "U+000A at character 2"},
		{"tab and newline in a body", "a\tb\nc\r\nd", true, ""},
		{"lone CR in a body", "a\rb", true, "U+000D at character 2"},
		{"CR at the end of a body", "a\r", true, "U+000D at character 2"},
		{"only newlines and tabs", "\n\t\r\n", true, "must not be empty"},
		{"NUL in a body", "line\n\x00", true, "U+0000 at character 6"},
		{"invalid UTF-8", "ab\xffc", false, "valid UTF-8 (byte 2 is not)"},
		{"truncated UTF-8", "é"[:1], true, "valid UTF-8 (byte 0 is not)"},
		{"U+FFFD itself is fine", "\ufffd", false, ""},
		{"too long", strings.Repeat("é", 21), false, "at most 20 characters, got 21"},
		{"long but invisible", strings.Repeat("\u200b", 21), false, "must not be empty"},
	} {
		check := store.ValidateText
		if tc.multiline {
			check = store.ValidateMultilineText
		}
		err := check("input.x", tc.s, 20)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want valid", tc.name, err)
		case tc.want != "" && err == nil:
			t.Errorf("%s: valid, want an error with %q", tc.name, tc.want)
		case tc.want != "":
			if store.ErrorCode(err) != store.EINVALID || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "input.x must") {
				t.Errorf("%s: %v, want EINVALID naming input.x with %q", tc.name, err, tc.want)
			}
		}
	}
}

// FuzzValidateText: whatever the input, an accepted text is valid UTF-8 of
// at most max characters, holds no control character but newline, tab and
// CR before LF (body only), and has a character that is neither a space
// nor a format character; a refusal is EINVALID and names the field.
func FuzzValidateText(f *testing.F) {
	for _, s := range []string{"ok", "", " \u00a0\u200b\u3000", "a\x00", "\x1b[0m", "a\r\nb\tc", "\xff", "\ufeff\u2060x"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, multiline bool) {
		check := store.ValidateText
		if multiline {
			check = store.ValidateMultilineText
		}
		err := check("input.f", s, 50)
		if err != nil {
			if store.ErrorCode(err) != store.EINVALID || !strings.Contains(err.Error(), "input.f must") {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if !utf8.ValidString(s) || utf8.RuneCountInString(s) > 50 {
			t.Fatalf("%q accepted: invalid UTF-8 or too long", s)
		}
		visible := false
		for i, r := range s {
			ok := !unicode.IsControl(r) || multiline && (r == '\n' || r == '\t' || r == '\r' && strings.HasPrefix(s[i+1:], "\n"))
			if !ok {
				t.Fatalf("%q accepted with control character %U", s, r)
			}
			if !unicode.IsSpace(r) && !unicode.In(r, unicode.Zs, unicode.Cf) && !unicode.IsControl(r) {
				visible = true
			}
		}
		if !visible {
			t.Fatalf("%q accepted with nothing visible", s)
		}
	})
}
