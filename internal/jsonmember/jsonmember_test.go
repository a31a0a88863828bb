package jsonmember_test

import (
	"encoding/json"
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
		first, second, ok := jsonmember.Duplicate([]byte(body))
		if ok != (want[0] != "") || first != want[0] || second != want[1] {
			t.Errorf("Duplicate(%s) = %q, %q, %v; want %q", body, first, second, ok, want)
		}
	}
}

func TestKey(t *testing.T) {
	obj := map[string]json.RawMessage{"Query": nil, "documentId": nil}
	for name, want := range map[string]string{"query": "Query", "documentId": "documentId", "DOCUMENTID": "documentId", "extensions": "extensions"} {
		if got := jsonmember.Key(obj, name); got != want {
			t.Errorf("Key(%q) = %q, want %q", name, got, want)
		}
	}
}
