package flagenv

import "testing"

// TestByteSizeFlagParsesSIAndBinaryUnits: -micro-cache-bytes and the other
// size flags read 64MB as SI, 64MiB as binary, a plain number as bytes, and
// refuse a word.
func TestByteSizeFlagParsesSIAndBinaryUnits(t *testing.T) {
	var b Bytes
	for in, want := range map[string]int64{"64MB": 64_000_000, "64MiB": 64 << 20, "512KiB": 512 << 10, "1000": 1000} {
		if err := b.Set(in); err != nil || int64(b) != want {
			t.Errorf("%s: %d, %v; want %d", in, b, err, want)
		}
	}
	if err := b.Set("lots"); err == nil {
		t.Errorf("lots: no error")
	}
}
