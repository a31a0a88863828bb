package store

import (
	"errors"
	mrand "math/rand"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store/table"
)

// TestFixedTime: the hand-written parser and formatter of createdAt agree
// with package time, over 4-digit years.
func TestFixedTime(t *testing.T) {
	rng := mrand.New(mrand.NewSource(3))
	for range 20000 {
		secs := rng.Int63n(253402300800+62135596800) - 62135596800 // years 0001–9999
		nanos := rng.Int63n(1e9)
		if rng.Intn(4) == 0 {
			nanos = 0
		}
		want := time.Unix(secs, nanos).UTC().Format(table.TimeLayout)
		if got := table.FormatFixedTime(secs, nanos); got != want {
			t.Fatalf("FormatFixedTime(%d, %d) = %q, want %q", secs, nanos, got, want)
		}
		if s, n, ok := table.ParseFixedTime(want); !ok || s != secs || n != nanos {
			t.Fatalf("ParseFixedTime(%q) = %d, %d, %v", want, s, n, ok)
		}
		if got, err := parseTime(want); err != nil || got != time.Unix(secs, nanos).UTC() {
			t.Fatalf("parseTime(%q) = %v, %v", want, got, err)
		}
	}
	// The edges of the calendar: year 0 (a leap year), the leap days of
	// 1900 (none), 2000 and 2024, the ends of months, 9999.
	for _, s := range []string{"0000-01-01T00:00:00.000000000Z", "0000-02-29T23:59:59.999999999Z", "0000-03-01T00:00:00.000000000Z",
		"0001-01-01T00:00:00.000000000Z", "1899-12-31T23:59:59.000000001Z", "1900-02-28T12:00:00.000000000Z", "1969-12-31T23:59:59.999999999Z",
		"1970-01-01T00:00:00.000000000Z", "2000-02-29T00:00:00.000000000Z", "2024-02-29T08:30:00.500000000Z", "2025-04-30T00:00:00.000000000Z",
		"2025-12-31T23:59:59.999999999Z", "9999-12-31T23:59:59.999999999Z"} {
		want, err := time.Parse(table.TimeLayout, s)
		if secs, nanos, ok := table.ParseFixedTime(s); err != nil || !ok || secs != want.Unix() || nanos != int64(want.Nanosecond()) {
			t.Errorf("ParseFixedTime(%q) = %d, %d, %v; package time: %d, %d (%v)", s, secs, nanos, ok, want.Unix(), want.Nanosecond(), err)
		}
	}
	for _, bad := range []string{"2025-13-01T00:00:00.000000000Z", "2025-02-29T00:00:00.000000000Z", "1900-02-29T00:00:00.000000000Z",
		"2025-04-31T00:00:00.000000000Z", "2025-00-10T00:00:00.000000000Z", "2025-01-00T00:00:00.000000000Z", "2025-01-01T24:00:00.000000000Z",
		"2025-01-01T00:60:00.000000000Z", "2025-01-01T00:00:60.000000000Z", "2025-01-01T00:00:00.00000000xZ", "+025-01-01T00:00:00.000000000Z"} {
		if _, _, ok := table.ParseFixedTime(bad); ok {
			t.Errorf("ParseFixedTime(%q) accepted it", bad)
		}
		if _, err := parseTime(bad); err == nil {
			t.Errorf("parseTime(%q) accepted it", bad)
		}
	}
}

// BenchmarkParseFixedTime parses a createdAt, as every comment read does.
//
//	go test -run '^$' -bench ParseFixedTime ./store/
func BenchmarkParseFixedTime(b *testing.B) {
	for b.Loop() {
		if _, _, ok := table.ParseFixedTime("2025-12-31T23:59:49.415000000Z"); !ok {
			b.Fatal("refused")
		}
	}
}

// FuzzParseFixedTime: ParseFixedTime accepts exactly the strings of
// TimeLayout's form that package time parses with it, and agrees with it
// on the time.
func FuzzParseFixedTime(f *testing.F) {
	for _, s := range []string{"2025-12-31T23:59:49.415000000Z", "0000-02-29T00:00:00.000000000Z", "1900-02-29T00:00:00.000000000Z",
		"9999-12-31T23:59:59.999999999Z", "2025-04-31T00:00:00.000000000Z", "2025-01-01T24:00:00.000000000Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		secs, nanos, ok := table.ParseFixedTime(s)
		want, err := time.Parse(table.TimeLayout, s)
		if !fixedForm(s) {
			// time.Parse is laxer: fewer fraction digits, a comma for the
			// point, a sign in the fraction.
			err = errors.Join(err, errors.New("not the fixed form"))
		}
		switch {
		case ok != (err == nil):
			t.Fatalf("ParseFixedTime(%q) ok %v; time.Parse: %v", s, ok, err)
		case ok && (secs != want.Unix() || nanos != int64(want.Nanosecond())):
			t.Fatalf("ParseFixedTime(%q) = %d, %d; time.Parse: %d, %d", s, secs, nanos, want.Unix(), want.Nanosecond())
		}
	})
}

// fixedForm reports whether s has TimeLayout's form: a digit where the
// layout has one, the layout's byte elsewhere.
func fixedForm(s string) bool {
	if len(s) != len(table.TimeLayout) {
		return false
	}
	for i := range len(s) {
		if l := table.TimeLayout[i]; l >= '0' && l <= '9' {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		} else if s[i] != l {
			return false
		}
	}
	return true
}
