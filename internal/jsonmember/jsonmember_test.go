package jsonmember_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/acme/comments-gateway/internal/jsonmember"
)

// TestFoldAgreesWithEncodingJSON: a name Fold matches to a field is the
// one encoding/json decodes into it, including the non-ASCII letters it
// folds onto ASCII ones.
func TestFoldAgreesWithEncodingJSON(t *testing.T) {
	for _, name := range []string{"query", "Query", "QUERY", "extenſions", "operatıonName", "K", "variableſ", "variables"} {
		var v struct {
			Query, Extensions, OperationName, K, Variables *int
		}
		_ = json.Unmarshal([]byte(`{"`+name+`": 1}`), &v)
		decoded := v.Query != nil || v.Extensions != nil || v.OperationName != nil || v.K != nil || v.Variables != nil
		matched := false
		for _, field := range []string{"query", "extensions", "operationName", "k", "variables"} {
			matched = matched || jsonmember.Fold(name) == jsonmember.Fold(field)
		}
		if decoded != matched {
			t.Errorf("%q: encoding/json decodes it into a field: %v; Fold matches a field: %v", name, decoded, matched)
		}
	}
}

func TestDuplicate(t *testing.T) {
	for body, want := range map[string][2]string{
		`{"query": "a", "Query": "b"}`:                        {"query", "Query"},
		`{"extensions": {}, "variables": 1, "EXTENſIONS": 2}`: {"extensions", "EXTENſIONS"},
		`{"query": {"query": 1, "Query": 2}}`:                 {}, // nested members are the variables' own
		`{"query": "a", "operationName": "b"}`:                {},
		`[{"query": "a", "Query": "b"}]`:                      {},
		`{"query": "a", "Query"`:                              {},
	} {
		obj, _ := jsonmember.Parse([]byte(body))
		first, second, ok := obj.Duplicate()
		if ok != (want[0] != "") || first != want[0] || second != want[1] {
			t.Errorf("Duplicate(%s) = %q, %q, %v; want %q", body, first, second, ok, want)
		}
	}
}

func TestKey(t *testing.T) {
	obj := jsonmember.Object{{Name: "Query"}, {Name: "documentId"}}
	for name, want := range map[string]string{"query": "Query", "documentId": "documentId", "DOCUMENTID": "documentId", "extensions": "extensions"} {
		if got, _ := obj.Key(name); got != want {
			t.Errorf("Key(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestParseReadsTheMembersEncodingJSONReads: Parse gives each member's raw
// value as encoding/json does, and refuses what is not one JSON object.
func TestParseReadsTheMembersEncodingJSONReads(t *testing.T) {
	body := ` { "query" : "{ a }", "varia\u0062les": {"n": [1, {"x": "}"}]}, "extensions":null } `
	obj, ok := jsonmember.Parse([]byte(body))
	if !ok {
		t.Fatalf("Parse(%s) refused it", body)
	}
	var want map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &want); err != nil {
		t.Fatal(err)
	}
	if len(obj) != len(want) {
		t.Fatalf("Parse: %d members, want %d", len(obj), len(want))
	}
	for _, m := range obj {
		if string(m.Value) != string(want[m.Name]) {
			t.Errorf("member %q: %s, want %s", m.Name, m.Value, want[m.Name])
		}
	}
	for _, bad := range []string{``, `null`, `[]`, `"s"`, `{} {}`, `{"a": }`, `{"a": 1`} {
		if _, ok := jsonmember.Parse([]byte(bad)); ok {
			t.Errorf("Parse(%s) accepted it", bad)
		}
	}
}

// TestObjectSetDelete: Set and Delete match names as Key does, keep the
// order, and leave the object they are called on as it was.
func TestObjectSetDelete(t *testing.T) {
	obj, _ := jsonmember.Parse([]byte(`{"Query": "a", "documentId": "d", "x": 1}`))
	got := obj.Set("query", json.RawMessage(`"b"`)).Delete("DOCUMENTID").Set("extensions", json.RawMessage(`{}`))
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"Query":"b","x":1,"extensions":{}}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	if string(obj.Get("query")) != `"a"` || obj.Get("documentId") == nil {
		t.Errorf("Set and Delete changed the object they were called on: %v", obj)
	}
}

// TestSameIsFold: Same(a, b) is Fold(a) == Fold(b).
func TestSameIsFold(t *testing.T) {
	names := []string{"", "q", "Q", "query", "QUERY", "Query", "querY ", "quer", "extenſions", "EXTENSIONS", "operatıonName", "OPERATIONNAME", "K", "k", "\u212a", "é", "É", "\xff", "\xfe"}
	for _, a := range names {
		for _, b := range names {
			if got, want := jsonmember.Same(a, b), jsonmember.Fold(a) == jsonmember.Fold(b); got != want {
				t.Errorf("Same(%q, %q) = %v, want %v", a, b, got, want)
			}
		}
	}
}

// TestDuplicateOfALargeObject: past the pairwise size, the same answer.
func TestDuplicateOfALargeObject(t *testing.T) {
	var obj jsonmember.Object
	for i := range 20 {
		obj = append(obj, jsonmember.Member{Name: fmt.Sprintf("m%d", i)})
	}
	if _, _, ok := obj.Duplicate(); ok {
		t.Fatal("no two names fold together")
	}
	obj = append(obj, jsonmember.Member{Name: "M7"}, jsonmember.Member{Name: "m3"})
	if first, second, ok := obj.Duplicate(); !ok || first != "m7" || second != "M7" {
		t.Errorf("Duplicate = %q, %q, %v; want m7, M7", first, second, ok)
	}
}
