package jsonvalue_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/acme/comments-gateway/internal/jsonvalue"
)

// decodeStd is what Object must agree with: encoding/json's Decoder with
// UseNumber, into a map.
func decodeStd(t *testing.T, b []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	return m
}

var objects = []string{
	`{}`,
	` { "p" : "SKU-1", "after" : null } `,
	`{"n": [1, -2.5e+10, 0, 1e400, 123456789012345678901234567890], "e": [], "o": {}}`,
	`{"a": 1, "a": 2, "b": {"a": 1, "a": {"x": true}}}`,                  // the later member wins
	`{"s": "tab\tquote\"slash\/back\\\\ nl\n \u00e9 \u20ac é 😀 \b\f\r"}`, // escapes and UTF-8
	`{"pair": "\ud83d\ude00", "lone": "\ud800", "loneLow": "x\udc00y", "half": "\ud800\u0041"}`,
	`{"bad utf8": "a` + "\xff\xfe" + `b", "` + "\xed\xa0\x80" + `": 1}`,
	`{"nested": [[[{"deep": [true, false, null]}]]], "ws": [ 1 , 2 ,3 ]}`,
	`{"Query": "x", "query": "y", "ſ": "long s"}`,
}

// TestObjectAgreesWithEncodingJSON: the same values, types and maps as
// encoding/json, duplicates, huge numbers and every escape included.
func TestObjectAgreesWithEncodingJSON(t *testing.T) {
	for _, text := range objects {
		if got, want := jsonvalue.Object([]byte(text)), decodeStd(t, []byte(text)); !reflect.DeepEqual(got, want) {
			t.Errorf("Object(%s)\n got %#v\nwant %#v", text, got, want)
		}
	}
}

// FuzzObject: for any valid JSON object, Object gives what encoding/json
// gives.
func FuzzObject(f *testing.F) {
	for _, text := range objects {
		f.Add([]byte(text))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) || bytes.TrimSpace(b)[0] != '{' {
			return
		}
		if got, want := jsonvalue.Object(b), decodeStd(t, b); !reflect.DeepEqual(got, want) {
			t.Fatalf("Object(%q)\n got %#v\nwant %#v", b, got, want)
		}
	})
}

// FuzzString: for any valid JSON string, String gives what encoding/json
// gives.
func FuzzString(f *testing.F) {
	for _, s := range []string{`""`, `"abc"`, `"a\nb\u00e9\ud83d\ude00"`, `"\ud800"`, "\"\xff\"", `"\\\"\/"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		b = bytes.TrimSpace(b) // String takes the string alone
		var want string
		if json.Unmarshal(b, &want) != nil || !bytes.HasPrefix(b, []byte(`"`)) {
			return
		}
		if got := jsonvalue.String(b); got != want {
			t.Fatalf("String(%q) = %q, want %q", b, got, want)
		}
	})
}
