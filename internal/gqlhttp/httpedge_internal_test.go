package gqlhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/acme/comments-gateway/internal/jsonmember"
)

// variablesSchema has every kind of input type checkVariables knows.
var variablesSchema = gqlparser.MustLoadSchema(&ast.Source{Name: "test.graphqls", Input: `
enum Color { RED GREEN }
input In { n: Int!, f: Float, c: Color, tags: [String!], d: Int! = 3 }
type Query { q(i: Int, f: Float, s: String, b: Boolean, id: ID, c: Color, in: In, l: [Int!], t: Time): Int }
scalar Time
`})

const testOperation = `query($i: Int, $f: Float, $s: String, $b: Boolean, $id: ID, $c: Color, $in: In, $l: [Int!], $t: Time, $r: Int! = 1) {
  q(i: $i, f: $f, s: $s, b: $b, id: $id, c: $c, in: $in, l: $l, t: $t) a: q(i: $r) }`

// TestCheckVariables: the specification's input coercion of variable
// values, against an independent table of what it accepts and refuses.
func TestCheckVariables(t *testing.T) {
	doc, errs := gqlparser.LoadQueryWithRules(variablesSchema, testOperation, nil)
	if errs != nil {
		t.Fatal(errs)
	}
	op := doc.Operations[0]
	tests := []struct {
		vars string
		want string // a part of the only error's message; "" accepts
	}{
		{`{}`, ""},
		{`{"i": 10, "f": 1.5, "s": "x", "b": true, "id": "a", "c": "RED", "l": [1, 2], "t": "anything"}`, ""},
		{`{"i": -2147483648, "f": 7, "id": 12, "l": 3}`, ""}, // an integer Float and ID; a single value for a list
		{`{"i": 4.0}`, ""},
		{`{"i": null, "s": null, "in": null}`, ""},
		{`{"i": "10"}`, `Variable "$i" got invalid value "10"; Int cannot represent non-integer value: "10"`},
		{`{"i": 4.5}`, "Int cannot represent non-integer value: 4.5"},
		{`{"i": true}`, "Int cannot represent non-integer value: true"},
		{`{"i": 2147483648}`, "Int cannot represent non 32-bit signed integer value: 2147483648"},
		{`{"i": 1e400}`, "Int cannot represent non 32-bit signed integer value"},
		{`{"f": "1.5"}`, `Float cannot represent non numeric value: "1.5"`},
		{`{"f": 1e400}`, "Float cannot represent non numeric value"},
		{`{"s": 5}`, "String cannot represent a non string value: 5"},
		{`{"s": ["x"]}`, `String cannot represent a non string value: ["x"]`},
		{`{"b": "true"}`, `Boolean cannot represent a non boolean value: "true"`},
		{`{"b": 1}`, "Boolean cannot represent a non boolean value: 1"},
		{`{"id": 1.5}`, "ID cannot represent value: 1.5"},
		{`{"id": false}`, "ID cannot represent value: false"},
		{`{"c": "red"}`, `Value "red" does not exist in "Color" enum.`},
		{`{"c": 1}`, `Value 1 does not exist in "Color" enum.`},
		{`{"l": [1, "2"]}`, `Variable "$l" got invalid value "2" at "l[1]"; Int cannot represent non-integer value: "2"`},
		{`{"l": [1, null]}`, `at "l[1]"; Expected non-nullable type "Int!" not to be null.`},
		{`{"in": {"n": 1}}`, ""},
		{`{"in": {"n": 1, "tags": "a", "c": "GREEN", "f": 2}}`, ""},
		{`{"in": {"n": "1"}}`, `at "in.n"; Int cannot represent non-integer value: "1"`},
		{`{"in": {}}`, `Field "n" of required type "Int!" was not provided.`},
		{`{"in": {"n": null}}`, `Expected non-nullable type "Int!" not to be null.`},
		{`{"in": {"n": 1, "x": 2}}`, `Field "x" is not defined by type "In".`},
		{`{"in": {"n": 1, "tags": ["a", 2]}}`, `at "in.tags[1]"; String cannot represent a non string value: 2`},
		{`{"in": 5}`, `Expected type "In" to be an object.`},
		{`{"r": null}`, `Variable "$r" of non-null type "Int!" must not be null.`},
		{`{"i": "` + strings.Repeat("x", 100) + `"}`, `"xxxxxxxx`},
	}
	for _, tc := range tests {
		t.Run(tc.vars, func(t *testing.T) {
			dec := json.NewDecoder(strings.NewReader(tc.vars))
			dec.UseNumber()
			var vars map[string]any
			if err := dec.Decode(&vars); err != nil {
				t.Fatal(err)
			}
			errs := checkVariables(variablesSchema, op, vars)
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Errorf("refused: %v", errs)
			case tc.want != "" && (len(errs) != 1 || !strings.Contains(errs[0].Message, tc.want)):
				t.Errorf("got %v, want one error containing %q", errs, tc.want)
			case len(errs) == 1 && len(errs[0].Message) > 200:
				t.Errorf("message of %d bytes (values must be cut): %s", len(errs[0].Message), errs[0].Message)
			}
		})
	}
	// A required variable without a default.
	doc, _ = gqlparser.LoadQueryWithRules(variablesSchema, `query($n: Int!) { q(i: $n) }`, nil)
	if errs := checkVariables(variablesSchema, doc.Operations[0], nil); len(errs) != 1 || errs[0].Message != `Variable "$n" of required type "Int!" was not provided.` {
		t.Errorf("missing required variable: %v", errs)
	}
}

// TestEdgePresenterHidesSuggestions: every "Did you mean" gqlparser writes is
// stripped, the enum values' included (the gateway's schema has no enum
// argument, so this uses a test schema).
func TestEdgePresenterHidesSuggestions(t *testing.T) {
	present := EdgePresenter(graphql.DefaultErrorPresenter, true)
	for _, query := range []string{
		`{ q(c: REDD) }`,                    // enum value
		`{ q(ii: 1) }`,                      // argument
		`{ q(in: {nn: 1}) }`,                // input field
		`{ ...F } fragment F on Quer { q }`, // type
		`{ qq }`,                            // field (gqlgen's SetDisableSuggestion covers this one only)
	} {
		_, errs := gqlparser.LoadQueryWithRules(variablesSchema, query, nil)
		if len(errs) == 0 {
			t.Fatalf("%s: no validation error", query)
		}
		suggested := false
		for _, e := range errs {
			suggested = suggested || strings.Contains(e.Message, "Did you mean")
			got := present(context.Background(), e)
			if strings.Contains(got.Message, "Did you mean") || strings.Contains(got.Message, "RED") && !strings.Contains(query, "RED") {
				t.Errorf("%s: %q still suggests", query, got.Message)
			}
		}
		if !suggested {
			t.Errorf("%s: gqlparser suggested nothing (%v): the test no longer covers a suggestion", query, errs)
		}
	}
}

// TestCapErrorList: at most MaxErrors errors and one counting the rest.
func TestCapErrorList(t *testing.T) {
	for _, n := range []int{0, 1, MaxErrors, MaxErrors + 1, 9000} {
		var errs gqlerror.List
		for range n {
			errs = append(errs, gqlerror.Errorf("e"))
		}
		got := capErrorList(errs)
		want := min(n, MaxErrors)
		if n > MaxErrors {
			want++
		}
		if len(got) != want {
			t.Errorf("%d errors: %d after the cap, want %d", n, len(got), want)
		}
		if n > MaxErrors && (got[MaxErrors].Extensions["code"] != CodeTooManyErrors || got[MaxErrors].Extensions["omitted"] != n-MaxErrors) {
			t.Errorf("%d errors: last %+v", n, got[MaxErrors])
		}
	}
}

// TestHasLoneSurrogate: \u escapes of half a surrogate pair are found, a
// full pair and escaped backslashes are not.
func TestHasLoneSurrogate(t *testing.T) {
	for in, want := range map[string]bool{
		`{"a":"x"}`:                         false,
		`{"a":"\u00e9\u0041"}`:              false,
		`{"a":"\ud83d\ude00"}`:              false,
		`{"a":"\uD83D\uDE00 \ud800\udfff"}`: false,
		`{"a":"\\ud800"}`:                   false, // an escaped backslash, then text
		`{"a":"\ud800"}`:                    true,
		`{"a":"\udc00"}`:                    true,
		`{"a":"\ud800\u0041"}`:              true,
		`{"a":"\ud83d"}`:                    true,
		`{"a":"x\ud83d`:                     true,
		`{"a":"\\\ud800"}`:                  true,
	} {
		if got := hasLoneSurrogate([]byte(in)); got != want {
			t.Errorf("%s: %v, want %v", in, got, want)
		}
	}
	// encoding/json agrees: a lone surrogate decodes to U+FFFD.
	var s string
	if err := json.Unmarshal([]byte(`"\ud800"`), &s); err != nil || !bytes.Equal([]byte(s), []byte("\uFFFD")) {
		t.Errorf("encoding/json decodes a lone surrogate to %q, %v", s, err)
	}
}

// TestEdgePresenterNamesNoGoType: gqlgen's unmarshallers' messages say
// what was expected, not the Go type they got.
func TestEdgePresenterNamesNoGoType(t *testing.T) {
	present := EdgePresenter(graphql.DefaultErrorPresenter, false)
	for msg, want := range map[string]string{
		"json.Number is not a map":                "expected a JSON object",
		"[]interface {} is not a map":             "expected a JSON object",
		"string is not a map":                     "expected a JSON object",
		"bool is not an int":                      "expected an integer",
		"map[string]interface {} is not a string": "expected a string",
		"the product id is not a valid id":        "the product id is not a valid id",
	} {
		if got := present(context.Background(), gqlerror.Errorf("%s", msg)).Message; got != want {
			t.Errorf("%q presented as %q, want %q", msg, got, want)
		}
	}
}

// TestDecodeRequest: a POST body decodes in one pass to the operation's
// parameters (numbers of variables and extensions as json.Number, null
// members as absent), and each malformed body gets the message that names
// what is wrong.
func TestDecodeRequest(t *testing.T) {
	p, msg := decodeRequest([]byte(`{"query":"{ a }","operationName":"A","variables":{"n":1.50,"s":"x"},"extensions":{"e":{"k":2}},"other":[1]}`))
	if msg != "" {
		t.Fatal(msg)
	}
	want := &graphql.RawParams{Query: "{ a }", OperationName: "A",
		Variables:  map[string]any{"n": json.Number("1.50"), "s": "x"},
		Extensions: map[string]any{"e": map[string]any{"k": json.Number("2")}}}
	if !reflect.DeepEqual(p, want) {
		t.Fatalf("got %+v, want %+v", p, want)
	}
	p, msg = decodeRequest([]byte(` {"query":null,"operationName":null,"variables":null,"extensions":null} `))
	if msg != "" || !reflect.DeepEqual(p, &graphql.RawParams{}) {
		t.Fatalf("nulls: %+v %q", p, msg)
	}
	for body, want := range map[string]string{
		`null`:                             "not null",
		`[{"query":"{ a }"}]`:              "batched requests",
		`"query"`:                          "must be a JSON object",
		`{"query": "{ a }"`:                "the request body",
		`{"query":"{ a }"} x`:              "data after its JSON object",
		`{"query": 1}`:                     `"query" must be a string`,
		`{"operationName": {}}`:            `"operationName" must be a string`,
		`{"query":"{ a }","variables":[]}`: `"variables" must be a JSON object`,
		`{"extensions":"x"}`:               `"extensions" must be a JSON object`,
	} {
		if _, msg := decodeRequest([]byte(body)); !strings.Contains(msg, want) {
			t.Errorf("%s: %q, want it to say %q", body, msg, want)
		}
	}
}

func TestClipCutsOnACharacterBoundary(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"ééé", 3, "é…"}, // é is two bytes: the second one would be split
		{"ééé", 4, "éé…"},
		{"é", 1, "…"},
	} {
		if got := Clip(c.s, c.n); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

// TestDecodeRequestAsEncodingJSON: the request decodes to what
// encoding/json decodes it to with UseNumber (the edge's decoder before
// package jsonvalue): duplicate members, huge and exotic numbers, escapes,
// nesting; and every body encoding/json refuses is refused with the same
// message.
func TestDecodeRequestAsEncodingJSON(t *testing.T) {
	for _, body := range []string{
		`{"query":"query Q($p: ID!) {\n  product(id: $p) { id }\n}\t\u00e9\u20ac","variables":{"p":"SKU-1"}}`,
		`{"query":"{ a }","variables":{"a":1,"a":{"b":2}},"variables":{"c":3}}`, // a later "variables" adds to the first
		`{"query":"{ a }","variables":{"n":1e400,"m":-0.0,"big":123456789012345678901234567890,"f":1.50}}`,
		`{"query":"{ a }","variables":{"x":[[],{},[null,true,false]],"y":"\ud83d\ude00 \ud800 x","z":{"k":{"k":{"k":[1]}}}}}`,
		`{"query":"{ a }","variables":null,"variables":{"a":1}}`,
		`{"query":"{ a }","variables":{"a":1},"variables":null}`,
		`{"query":"a","query":"b","operationName":"\"quoted\" \\ name"}`,
		`{"query":"{ a }","extensions":{"persistedQuery":{"version":1,"sha256Hash":"abc"}}}`,
		`{"query": 1}`, `{"variables":[1]}`, `{"variables":"x"}`, `{"operationName":true}`,
		`{"query":"{ a }"`, `{"query":"{ a }"} {}`, `[]`, `null`, `{"variables":{"a":01}}`,
	} {
		got, gotMsg := decodeRequest([]byte(body))
		want, wantMsg := decodeRequestStd([]byte(body))
		if gotMsg != wantMsg || !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %#v %q\nwant %#v %q", body, got, gotMsg, want, wantMsg)
		}
	}
}

// decodeRequestStd is the request decode with encoding/json alone.
func decodeRequestStd(body []byte) (*graphql.RawParams, string) {
	obj, ok := jsonmember.Parse(body)
	if !ok {
		return nil, notARequest(body)
	}
	p := &graphql.RawParams{}
	strs := map[string]*string{"query": &p.Query, "operationName": &p.OperationName}
	objs := map[string]*map[string]any{"variables": &p.Variables, "extensions": &p.Extensions}
	for _, m := range obj {
		msg := ""
		for name, dst := range strs {
			if jsonmember.Same(m.Name, name) && json.Unmarshal(m.Value, dst) != nil {
				msg = fmt.Sprintf("%q must be a string", name)
			}
		}
		for name, dst := range objs {
			if !jsonmember.Same(m.Name, name) {
				continue
			}
			dec := json.NewDecoder(bytes.NewReader(m.Value))
			dec.UseNumber()
			switch {
			case m.Value[0] == 'n':
				*dst = nil
			case m.Value[0] != '{':
				msg = fmt.Sprintf("%q must be a JSON object", name)
			case dec.Decode(dst) != nil:
				msg = "encoding/json refused it"
			}
		}
		if msg != "" {
			return nil, msg
		}
	}
	return p, ""
}

// TestDecodeObjectAsEncodingJSON: a GET request's variables decode as
// encoding/json decodes them, and what is not one valid JSON object gets
// encoding/json's account of it.
func TestDecodeObjectAsEncodingJSON(t *testing.T) {
	for raw, wantMsg := range map[string]string{
		` {"p":"SKU-1","after":"c2Vl\u006b","n":[1,2.5e3]} `: "",
		`{"a":1,"a":2}`:   "",
		`{"a":1`:          `"variables" is not valid JSON: it ends before its JSON value does`,
		`{"a":1}}`:        `"variables" has data after its JSON object`,
		`{"a":tru}`:       `"variables" is not valid JSON: invalid character '}' in literal true (expecting 'e') (at byte 9)`,
		`[1]`:             `"variables" must be a JSON object`,
		`{"a":1} {"b":2}`: `"variables" has data after its JSON object`,
	} {
		var got map[string]any
		msg := decodeObject("variables", []byte(raw), &got)
		if msg != wantMsg {
			t.Errorf("%s: %q, want %q", raw, msg, wantMsg)
			continue
		}
		if msg != "" {
			continue
		}
		var want map[string]any
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %#v, want %#v (%v)", raw, got, want, err)
		}
	}
}

// TestMarshalExtensionsAsJSON: a reply's extensions are written as
// json.Marshal writes them, on the plain path and off it.
func TestMarshalExtensionsAsJSON(t *testing.T) {
	for _, ext := range []map[string]any{
		{"cost": map[string]any{"itemsRead": int64(21), "requests": int64(1), "complexity": 23}},
		{"cost": map[string]any{"z": -1, "a": map[string]any{}, "m": map[string]any(nil)}, "b": 0},
		{"cost": map[string]any{"readCapacityUnits": 2.5, "itemsRead": int64(3)}},       // a float: json.Marshal
		{"plan": []string{"a<b"}, "cost": map[string]any{"throttleStatus": struct{}{}}}, // other types
		{"c<": 1, "": 2, "é": 3, "a b": 4},                                              // names JSON escapes or sorts by bytes
	} {
		got, err := marshalExtensions(ext)
		want, wantErr := json.Marshal(ext)
		if string(got) != string(want) || (err == nil) != (wantErr == nil) {
			t.Errorf("%#v:\n got %s %v\nwant %s %v", ext, got, err, want, wantErr)
		}
	}
}
