package jsonl

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// decodeSlow is decode without its fast path: encoding/json and checkKeys.
func decodeSlow(line []byte) (record, uint, *LineError) {
	var p parser
	return p.decodeJSON(line)
}

// fastSeeds are lines of every form decodeFast meets.
var fastSeeds = []string{
	good,
	strings.Replace(good, `"id":"01HXAMPLE0000000000000001",`, ``, 1),
	strings.Replace(good, `"01HXAMPLE0000000000000001"`, `null`, 1),
	strings.Replace(good, `}`, `,"authorId":"user|1"}`, 1),
	strings.Replace(good, `}`, `,"authorId":null}`, 1),
	strings.Replace(good, `}`, `,"verifiedPurchase":true}`, 1),
	strings.Replace(good, `}`, `,"verifiedPurchase" : false }`, 1),
	strings.Replace(good, `}`, `,"verifiedPurchase":null}`, 1),
	strings.Replace(good, `}`, `,"verifiedPurchase":tru}`, 1),
	strings.Replace(good, `}`, `,"reply":{"body":"Thanks","createdAt":"2025-01-01T00:00:00Z","updatedAt":"2025-01-01T00:00:00Z"}}`, 1),
	strings.Replace(good, `"Ann"`, `"A\"n\u00e9\n"`, 1),
	strings.Replace(good, `"Ann"`, `"A\qn"`, 1),
	strings.Replace(good, `"Ann"`, `"A`+"\t"+`n"`, 1),
	strings.Replace(good, `"rating":5`, `"rating" : 5.0e0 `, 1),
	strings.Replace(good, `"rating":5`, `"rating":-0.5E+3`, 1),
	strings.Replace(good, `"rating":5`, `"rating":05`, 1),
	strings.Replace(good, `"rating":5`, `"rating":5.`, 1),
	strings.Replace(good, `"rating":5`, `"rating":null`, 1),
	strings.Replace(good, `"rating":5`, `"rating":"5"`, 1),
	strings.Replace(good, `"rating":5`, `"rating":5,"rating":5`, 1),
	strings.Replace(good, `"rating":5`, `"r\u0061ting":5`, 1),
	strings.Replace(good, `"title":"Great"`, `"title":null`, 1),
	strings.Replace(good, `"title":"Great"`, `"title":nul`, 1),
	strings.Replace(good, `"title":"Great"`, `"Title":"Great"`, 1),
	strings.Replace(good, `"title":"Great"`, `"title":["Great"]`, 1),
	strings.Replace(good, `,`, ` , `, -1),
	" \t" + good + " \r",
	good + ",",
	good + good,
	`{}`, `{`, `[]`, `null`, `{"id":"a",}`, `{"id" "a"}`,
}

// FuzzDecodeFast: what decodeFast accepts, encoding/json with checkKeys
// accepts too, with the same record and fields.
func FuzzDecodeFast(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if !utf8.ValidString(line) {
			return
		}
		rec, set, ok := decodeFast([]byte(line))
		if !ok {
			return
		}
		want, wantSet, err := decodeSlow([]byte(line))
		if err != nil {
			t.Fatalf("%q: fast path accepts, decode fails: %v", line, err)
		}
		if set != wantSet || !sameRecord(rec, want) {
			t.Fatalf("%q: fast %+v %b, decode %+v %b", line, rec, set, want, wantSet)
		}
	})
}

func sameRecord(a, b record) bool {
	ra, rb := a.Rating, b.Rating
	a.Rating, b.Rating = nil, nil
	return reflect.DeepEqual(a, b) && bytes.Equal(bytes.TrimSpace(ra), bytes.TrimSpace(rb))
}

// TestDecodeFastTakesGoodLines: the lines of a good file take the fast
// path (or the import would be as slow as before).
func TestDecodeFastTakesGoodLines(t *testing.T) {
	for i, s := range fastSeeds[:6] {
		if _, _, ok := decodeFast([]byte(s)); !ok {
			t.Errorf("seed %d %q: not decoded by the fast path", i, s)
		}
	}
}
