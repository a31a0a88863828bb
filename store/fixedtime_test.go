package store

import (
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
	for _, bad := range []string{"2025-13-01T00:00:00.000000000Z", "2025-02-29T00:00:00.000000000Z", "2025-01-01T24:00:00.000000000Z",
		"2025-01-01T00:60:00.000000000Z", "2025-01-01T00:00:60.000000000Z", "2025-01-01T00:00:00.00000000xZ", "+025-01-01T00:00:00.000000000Z"} {
		if _, _, ok := table.ParseFixedTime(bad); ok {
			t.Errorf("ParseFixedTime(%q) accepted it", bad)
		}
		if _, err := parseTime(bad); err == nil {
			t.Errorf("parseTime(%q) accepted it", bad)
		}
	}
}
