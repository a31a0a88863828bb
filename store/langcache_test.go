package store

import "testing"

// TestCachedCanonicalLanguage: CanonicalLanguage, cached, answers as the
// parse it caches does, the first time and the next.
func TestCachedCanonicalLanguage(t *testing.T) {
	for range 2 {
		for _, tag := range []string{"en", "EN-gb", "pt-br", "zh-hant-tw", "en_US", "", "x", "und", "aa-u-00-00-u-00-00"} {
			want, wantErr := canonicalLanguage(tag)
			got, err := CanonicalLanguage(tag)
			if got != want || ErrorMessage(err) != ErrorMessage(wantErr) {
				t.Errorf("%q: %q, %v; want %q, %v", tag, got, err, want, wantErr)
			}
		}
	}
}
