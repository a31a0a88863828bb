package policy

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestVariablesKeyIsOneToOne: different variables never share a key (the
// cost cache would apply one's measure to the other), equal ones always
// do, and variables too long to encode in the limit get none.
func TestVariablesKeyIsOneToOne(t *testing.T) {
	sets := []map[string]any{
		nil,
		{},
		{"p": "1"},
		{"p": json.Number("1")},
		{"p": json.Number("1.0")},
		{"p": true},
		{"p": "true"},
		{"p": nil},
		{"p": "null"},
		{"p": []any{}},
		{"p": []any{"a"}},
		{"p": "a"},
		{"p": []any{"a", "b"}},
		{"p": []any{"a,b"}},
		{"p": `a","q":"b`},
		{"p": "a", "q": "b"},
		{"p": map[string]any{}},
		{"p": map[string]any{"q": "b"}},
		{"p": "{\"q\":\"b\"}"},
		{"p": "a\x00b"},
		{"p": "a\\x00b"},
		{"p": "é"},
		{"p": "\\u00e9"},
		{"p": "<"},
		{"p": "\\u003c"},
		{"p\x00": "a"},
		{"p": int64(1)}, // not what the transports decode: JSON, tagged apart
	}
	seen := map[string]int{}
	for i, vars := range sets {
		key, ok := variablesKey("00ff", "Page", vars)
		if !ok {
			t.Fatalf("%#v: no key", vars)
		}
		if j, dup := seen[key]; dup {
			t.Errorf("%#v and %#v share the key %q", sets[j], vars, key)
		}
		seen[key] = i
	}
	a := map[string]any{"p": "x", "after": "c", "n": []any{json.Number("2"), map[string]any{"b": 1.5, "a": nil}}}
	b := map[string]any{"n": []any{json.Number("2"), map[string]any{"a": nil, "b": 1.5}}, "after": "c", "p": "x"}
	if ka, _ := variablesKey("00ff", "Page", a); ka != mustKey(t, b) {
		t.Errorf("equal variables, two keys: %q and %q", ka, mustKey(t, b))
	}
	if k1, k2 := mustKey(t, map[string]any{"p": "x"}), func() string { k, _ := variablesKey("00fe", "Page", map[string]any{"p": "x"}); return k }(); k1 == k2 {
		t.Error("two documents share a key")
	}
	if _, ok := variablesKey("00ff", "Page", map[string]any{"p": strings.Repeat("x", maxCachedVariables)}); ok {
		t.Error("variables over the limit got a key")
	}
	for _, vars := range []map[string]any{{"p": math.NaN()}, {"p": make(chan int)}} {
		if k, ok := variablesKey("00ff", "Page", vars); ok {
			t.Errorf("%#v has no JSON, yet got the key %q", vars, k)
		}
	}
}

func mustKey(t *testing.T, vars map[string]any) string {
	t.Helper()
	k, ok := variablesKey("00ff", "Page", vars)
	if !ok {
		t.Fatalf("%#v: no key", vars)
	}
	return k
}

// TestAppendQuotedIsStrconvs: appendQuoted quotes as strconv.AppendQuote
// does, every byte alone and among printable ASCII.
func TestAppendQuotedIsStrconvs(t *testing.T) {
	strs := []string{"", "plain", "01GP4GXWR84Z3AYM578ERXGEW1", "with space~", "é", "\u2028", "\xff", "a\"b", `a\b`}
	for c := range 256 {
		strs = append(strs, string(rune(c)), "x"+string([]byte{byte(c)})+"y")
	}
	for _, s := range strs {
		if got, want := string(appendQuoted([]byte("k"), s)), string(strconv.AppendQuote([]byte("k"), s)); got != want {
			t.Errorf("%q: %s, strconv %s", s, got, want)
		}
	}
}
