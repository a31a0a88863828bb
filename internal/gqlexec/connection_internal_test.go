package gqlexec

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
)

// gqlgenJSON is what one of gqlgen's marshallers writes.
func gqlgenJSON(m graphql.Marshaler) string {
	var b bytes.Buffer
	m.MarshalGQL(&b)
	return b.String()
}

// written is what write wrote through a jsonWriter.
func written(write func(jw *jsonWriter)) string {
	var b bytes.Buffer
	write(newJSONWriter(&b))
	return b.String()
}

// TestScalarsMatchGqlgen compares the one-pass writers of Int (int and
// int64), Boolean,
// Time and of object keys with gqlgen's own marshallers.
func TestScalarsMatchGqlgen(t *testing.T) {
	for _, i := range []int{0, 1, -1, 5, 42, -9876543210, math.MaxInt64, math.MinInt64} {
		if got, want := written(func(jw *jsonWriter) { jw.int(int64(i)) }), gqlgenJSON(graphql.MarshalInt(i)); got != want {
			t.Errorf("int %d: %s, want %s", i, got, want)
		}
		if got, want := written(func(jw *jsonWriter) { jw.int(int64(i)) }), gqlgenJSON(graphql.MarshalInt64(int64(i))); got != want {
			t.Errorf("int64 %d: %s, want %s", i, got, want)
		}
	}
	for _, b := range []bool{true, false} {
		if got, want := written(func(jw *jsonWriter) { jw.bool(b) }), gqlgenJSON(graphql.MarshalBoolean(b)); got != want {
			t.Errorf("bool %v: %s, want %s", b, got, want)
		}
	}
	zones := []*time.Location{time.UTC, time.FixedZone("", 5*3600+30*60), time.FixedZone("X", -(9*3600 + 59)), time.Local}
	times := []time.Time{time.Date(2024, 2, 29, 23, 59, 59, 0, time.UTC), time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-5, 3, 1, 0, 0, 0, 100, time.UTC), time.Unix(1700000000, 120000000)}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		times = append(times, time.Unix(rng.Int64N(1<<35)-1<<34, rng.Int64N(1e9)))
	}
	for _, tm := range times {
		for _, z := range zones {
			tm := tm.In(z)
			if got, want := written(func(jw *jsonWriter) { jw.time(tm) }), gqlgenJSON(graphql.MarshalTime(tm)); got != want {
				t.Errorf("time %v: %s, want %s", tm, got, want)
			}
		}
	}
	strs := []string{"", "plain", `q"uote`, `back\\slash`, "tab\tnl\ncr\r", "\x00\x1f\x7f", "é 漢 🙂", "\u2028", "\xff\xfe bad", "</script>"}
	for range 2000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		strs = append(strs, string(b))
	}
	for range 4000 { // longer, mostly plain: one byte to escape, or none, anywhere in a word
		b := []byte(strings.Repeat("plain text é ", 1+rng.IntN(4)))
		if k := rng.IntN(len(b) + 1); k < len(b) {
			b[k] = []byte{'"', '\\', 0, 0x1f, '\n', 0x20, 0x7f, 0x80, '!', '#', '[', ']'}[rng.IntN(12)]
		}
		strs = append(strs, string(b))
	}
	for _, s := range strs {
		if got, want := needsEscape(s), strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == '"' || r == '\\' }); got != want {
			t.Errorf("needsEscape(%q) = %v, want %v", s, got, want)
		}
		if got, want := written(func(jw *jsonWriter) { jw.str(s) }), gqlgenJSON(graphql.MarshalString(s)); got != want {
			t.Errorf("string %q: %s, want %s", s, got, want)
		}
		var w onlyWriter
		newJSONWriter(&w).str(s)
		if got, want := string(w), gqlgenJSON(graphql.MarshalString(s)); got != want {
			t.Errorf("string %q to a plain io.Writer: %s, want %s", s, got, want)
		}
	}
	for _, s := range []string{"id", "a_b", `q"uote`, "back\\slash", "tab\t", "é"} {
		if got, want := jsonKey(s), gqlgenJSON(graphql.MarshalString(s))+":"; got != want {
			t.Errorf("key %q: %s, want %s", s, got, want)
		}
	}
	if got := written(func(jw *jsonWriter) { jw.optStr(nil) }); got != gqlgenJSON(graphql.Null) {
		t.Errorf("null string: %s", got)
	}
}

// onlyWriter is an io.Writer without WriteString.
type onlyWriter []byte

func (w *onlyWriter) Write(p []byte) (int, error) {
	*w = append(*w, p...)
	return len(p), nil
}
