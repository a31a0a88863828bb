package resolvers_test

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/client"
)

// TestBadArgumentLosesOnlyItsField: a bad language on comments nulls
// comments alone; product's other fields and the sibling root fields are
// answered (issue 11: it used to null data).
func TestBadArgumentLosesOnlyItsField(t *testing.T) {
	e := MustEnv(t)
	r := e.MustDo(t, `{ product(id: "big") { id stats { total } bad: comments(language: "en/5") { totalCount } good: comments(first: 1) { totalCount } }
		topProducts(first: 1) { rank } other: product(id: "p1") { id } }`)
	err := MustOneError(t, r, "BAD_USER_INPUT")
	if err.PathString() != "product/bad" {
		t.Errorf("error path %q, want product/bad", err.PathString())
	}
	MustNoData(t, r)
	want := `{"product":{"id":"big","stats":{"total":` + strconv.Itoa(countOf(e.data, "big", "")) + `},"bad":null,"good":{"totalCount":` + strconv.Itoa(countOf(e.data, "big", "")) + `}},"topProducts":[{"rank":1}],"other":{"id":"p1"}}`
	var got, wantData any
	if err := json.Unmarshal(r.Data, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &wantData); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, wantData) {
		t.Errorf("data\n got %s\nwant %s", r.Data, want)
	}
}

// TestRangeErrorsCarryMinMaxGot: a number out of range names its argument
// and carries the range and the value sent, as GitHub's API does.
func TestRangeErrorsCarryMinMaxGot(t *testing.T) {
	e := MustEnv(t)
	for _, c := range []struct {
		query, argument, message string
		min, max, got            float64
	}{
		{`{ product(id: "big") { comments(first: 1000) { totalCount } } }`, "first", "first must be between 0 and 100, got 1000", 0, 100, 1000},
		{`{ product(id: "big") { comments(last: -1) { totalCount } } }`, "last", "last must be between 0 and 100, got -1", 0, 100, -1},
		{`{ product(id: "big") { comments(ratings: [5, 7]) { totalCount } } }`, "ratings", "ratings must be integers from 1 to 5, got 7", 1, 5, 7},
		{`{ topProducts(first: 500) { rank } }`, "first", "first must be between 0 and 100, got 500", 0, 100, 500},
		{`mutation { updateComment(input: {id: "big-c000", rating: 9}) { comment { id } } }`, "input.rating", "input.rating must be an integer from 1 to 5, got 9", 1, 5, 9},
		{`mutation { updateComment(input: {id: "big-c000", title: "` + strings.Repeat("t", 201) + `"}) { comment { id } } }`, "input.title", "input.title must be at most 200 characters, got 201", 1, 200, 201},
	} {
		err := MustOneError(t, e.MustDo(t, c.query), "BAD_USER_INPUT")
		x := err.Extensions
		if err.Message != c.message || x["argument"] != c.argument || x["min"] != c.min || x["max"] != c.max || x["got"] != c.got {
			t.Errorf("%s:\n got %q %v\nwant %q argument %s min %v max %v got %v", c.query, err.Message, x, c.message, c.argument, c.min, c.max, c.got)
		}
	}
}

// TestEveryBadInputFieldIsReported: an input with several bad fields gets
// one error per field, each naming its path, and nothing is written.
func TestEveryBadInputFieldIsReported(t *testing.T) {
	e := MustEnv(t)
	const create = `mutation($in: CreateCommentInput!) { createComment(input: $in) { comment { id } } }`
	in := validCreate(map[string]any{"rating": 7, "title": "", "language": "en_US", "productId": "a/b"})
	e.spy.Reset()
	r := e.MustDo(t, create, client.Var("in", in["in"]))
	MustNoData(t, r)
	want := map[string]string{
		"input.productId": "input.productId must be 1 to 64 characters of [A-Za-z0-9_-]",
		"input.language":  `input.language "en_US" is not a BCP 47 tag: use "en-US"`,
		"input.rating":    "input.rating must be an integer from 1 to 5, got 7",
		"input.title":     "input.title must not be empty: write some visible text (spaces and invisible characters such as U+00A0, U+200B, U+3000 or U+FEFF do not count)",
	}
	if len(r.Errors) != len(want) {
		t.Fatalf("want %d errors, got %s", len(want), r.RawErrors)
	}
	for _, err := range r.Errors {
		arg, _ := err.Extensions["argument"].(string)
		if err.Code() != "BAD_USER_INPUT" || err.PathString() != "createComment" || want[arg] != err.Message {
			t.Errorf("error %+v; want for %q the message %q", err, arg, want[arg])
		}
		delete(want, arg)
	}
	if len(want) > 0 {
		t.Errorf("not reported: %v", want)
	}
	if n := e.spy.Calls("Write"); n != 0 {
		t.Errorf("%d writes after refused input", n)
	}
}

// TestLocaleNamesAreRefusedWithAHint: a POSIX locale (en_US, de_DE.UTF-8)
// is not taken for a language tag (it silently matched nothing before): the
// error names the tag to use.
func TestLocaleNamesAreRefusedWithAHint(t *testing.T) {
	e := MustEnv(t)
	for in, msg := range map[string]string{
		"en_US":       `language "en_US" is not a BCP 47 tag: use "en-US"`,
		"de_DE.UTF-8": `language "de_DE.UTF-8" is not a BCP 47 tag: use "de-DE"`,
		"zh_Hant_TW":  `language "zh_Hant_TW" is not a BCP 47 tag: use "zh-Hant-TW"`,
		"C.UTF-8":     `language "C.UTF-8" is not a BCP 47 tag such as "en" or "pt-BR"`,
	} {
		r := e.MustDo(t, `query($l: String) { product(id: "big") { comments(language: $l) { totalCount } } }`, client.Var("l", in))
		err := MustOneError(t, r, "BAD_USER_INPUT")
		if err.Message != msg || err.Extensions["argument"] != "language" {
			t.Errorf("%s: got %q %v, want %q", in, err.Message, err.Extensions, msg)
		}
	}
}

// TestForeignCursorSaysWhatToPass: a cursor this API did not issue gets a
// message saying to pass endCursor/startCursor unchanged.
func TestForeignCursorSaysWhatToPass(t *testing.T) {
	e := MustEnv(t)
	for arg, q := range map[string]string{
		"after":  `{ product(id: "big") { comments(after: "abc") { totalCount } } }`,
		"before": `{ product(id: "big") { comments(last: 2, before: "abc") { totalCount } } }`,
	} {
		err := MustOneError(t, e.MustDo(t, q), "BAD_USER_INPUT")
		if want := "`abc` is not a cursor from this API: pass `endCursor`/`startCursor` unchanged"; err.Message != want || err.Extensions["argument"] != arg {
			t.Errorf("%s: got %q %v, want %q", arg, err.Message, err.Extensions, want)
		}
	}
}
