package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/acme/comments-gateway/demo"
	"github.com/acme/comments-gateway/store"
)

// good is a valid line; the tests derive bad lines from it.
const good = `{"id":"01HXAMPLE0000000000000001","productId":"P0001","language":"EN-gb","rating":5,"author":"Ann","title":"Great","body":"Works well.","createdAt":"2024-05-01T12:34:56.789+02:00"}`

// line returns good with the given fields replaced (a nil value deletes the
// field), in a stable order.
func line(t testing.TB, replace map[string]any) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(good), &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range replace {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// collect reads input and returns the delivered batches.
func collect(t testing.TB, r io.Reader, opts Options) ([][]*store.Comment, Summary, error) {
	t.Helper()
	var batches [][]*store.Comment
	sum, err := Read(r, opts, func(b []*store.Comment) error {
		batches = append(batches, b)
		return nil
	})
	return batches, sum, err
}

func flatten(batches [][]*store.Comment) []*store.Comment {
	var all []*store.Comment
	for _, b := range batches {
		all = append(all, b...)
	}
	return all
}

func TestGoodFile(t *testing.T) {
	input := strings.Join([]string{
		good,
		"",
		line(t, map[string]any{"id": "second", "productId": "P0002", "language": "de", "rating": 1, "createdAt": "2023-01-02T03:04:05Z"}),
		"   \t",
		line(t, map[string]any{"id": nil, "language": "pt-br", "rating": 3.0, "body": "Ünïcödé ✓ 日本語", "createdAt": "2022-12-31T23:59:59.123456789Z"}),
		`  {"createdAt":"2024-01-01T00:00:00Z","body":"b","title":"t","author":"a","rating":4,"language":"ja","productId":"P0003","id":null}  `,
	}, "\n") + "\n"
	batches, sum, err := collect(t, strings.NewReader(input), Options{BatchSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	all := flatten(batches)
	if len(batches) != 2 || len(batches[0]) != 3 || len(all) != 4 {
		t.Fatalf("got batches of %v", lens(batches))
	}
	want0 := &store.Comment{
		ID: "01HXAMPLE0000000000000001", ProductID: "P0001", Language: "en-GB", Rating: 5,
		Author: "Ann", Title: "Great", Body: "Works well.",
		CreatedAt: time.Date(2024, 5, 1, 10, 34, 56, 789_000_000, time.UTC),
	}
	if !reflect.DeepEqual(all[0], want0) {
		t.Errorf("comment 0:\n got %+v\nwant %+v", all[0], want0)
	}
	if all[1].ID != "second" || all[1].Rating != 1 || all[1].Language != "de" {
		t.Errorf("comment 1: %+v", all[1])
	}
	c := all[2]
	if c.Language != "pt-BR" || c.Rating != 3 || c.Body != "Ünïcödé ✓ 日本語" || c.CreatedAt.Nanosecond() != 123456789 {
		t.Errorf("comment 2: %+v", c)
	}
	u, err := ulid.ParseStrict(c.ID)
	if err != nil || !u.Timestamp().Equal(c.CreatedAt.Truncate(time.Millisecond)) {
		t.Errorf("generated id %q: %v, time %v", c.ID, err, u.Timestamp())
	}
	if all[3].ProductID != "P0003" || all[3].Language != "ja" {
		t.Errorf("comment 3: %+v", all[3])
	}
	for _, c := range all {
		if err := c.Validate(); err != nil {
			t.Errorf("delivered an invalid comment: %v", err)
		}
	}
	want := Summary{Lines: 6, Bytes: int64(len(input)), Comments: 4, GeneratedIDs: 2, Products: 3, Languages: 4, Elapsed: sum.Elapsed}
	if sum != want {
		t.Errorf("summary\n got %+v\nwant %+v", sum, want)
	}

	// The same input gives the same generated ids.
	again, _, err := collect(t, strings.NewReader(input), Options{})
	if err != nil || flatten(again)[2].ID != c.ID || flatten(again)[3].ID != all[3].ID {
		t.Errorf("generated ids differ between reads (%v)", err)
	}
}

func lens(batches [][]*store.Comment) []int {
	var n []int
	for _, b := range batches {
		n = append(n, len(b))
	}
	return n
}

func TestBadLines(t *testing.T) {
	long := strings.Repeat("x", store.MaxBodyLen+1)
	tests := []struct {
		name string
		line string
		want string // the message after "line 3: "
	}{
		{"bad JSON", `{"id":"a",`, "invalid JSON: the line ends inside the object"},
		{"bad JSON char", `{"id" "a"}`, "invalid JSON at byte 7: invalid character '\"' after object key"},
		{"not JSON", `hello`, "invalid JSON at byte 1: invalid character 'h' looking for beginning of value"},
		{"array", `[1,2]`, "expected a JSON object, got array"},
		{"null line", `null`, "expected a JSON object, got null"},
		{"trailing garbage", good + ` x`, "unexpected data after the JSON object"},
		{"two objects", good + good, "unexpected data after the JSON object"},
		{"unknown field", line(t, map[string]any{"stars": 5}), `unknown field "stars"; the fields are id, productId, language, rating, author, title, body, createdAt, authorId, status, moderatedAt, moderationReason, verifiedPurchase, reply`},
		{"wrong case field", strings.Replace(good, `"productId"`, `"ProductID"`, 1), `unknown field "ProductID" (field names are case-sensitive); the fields are id, productId, language, rating, author, title, body, createdAt, authorId, status, moderatedAt, moderationReason, verifiedPurchase, reply`},
		{"duplicate field", strings.Replace(good, `"rating":5`, `"rating":5,"rating":1`, 1), `field "rating" appears twice`},
		{"missing field", line(t, map[string]any{"author": nil}), "author is required"},
		{"missing fields", line(t, map[string]any{"author": nil, "rating": nil}), "rating, author are required"},
		{"null field", strings.Replace(good, `"title":"Great"`, `"title":null`, 1), "title is required"},
		{"rating 7", line(t, map[string]any{"rating": 7}), "rating must be an integer from 1 to 5, got 7"},
		{"rating 0", line(t, map[string]any{"rating": 0}), "rating must be an integer from 1 to 5, got 0"},
		{"rating 4.5", line(t, map[string]any{"rating": 4.5}), "rating must be an integer from 1 to 5, got 4.5"},
		{"rating string", line(t, map[string]any{"rating": "5"}), "rating must be a number, got string"},
		{"rating huge", strings.Replace(good, `"rating":5`, `"rating":1e400`, 1), "rating must be an integer from 1 to 5, got 1e400"},
		{"rating boolean", line(t, map[string]any{"rating": true}), "rating must be a number, got boolean"},
		{"rating object", line(t, map[string]any{"rating": map[string]any{"value": 5}}), "rating must be a number, got object"},
		{"escaped duplicate", strings.Replace(good, `"rating":5`, `"rating":5,"r\u0061ting":5`, 1), `field "rating" appears twice`},
		{"long bad product", line(t, map[string]any{"productId": strings.Repeat("é", 100)}), `productId must be 1 to 64 characters of [A-Za-z0-9_-], got "` + strings.Repeat("é", 80) + `"…`},
		{"author number", line(t, map[string]any{"author": 42}), "author must be a string, got number"},
		{"bad language", line(t, map[string]any{"language": "en/5"}), `language "en/5" is not a BCP 47 tag`},
		{"empty language", line(t, map[string]any{"language": ""}), `language must be a BCP 47 tag such as "en" or "pt-BR"`},
		{"empty author", line(t, map[string]any{"author": " \u00a0\u200b\u3000\ufeff"}), "author must not be empty: write some visible text (spaces and invisible characters such as U+00A0, U+200B, U+3000 or U+FEFF do not count)"},
		{"tab in author", line(t, map[string]any{"author": "A\tB"}), "author must not contain control characters: U+0009 at character 2; remove it (no control character is allowed)"},
		{"NUL in body", line(t, map[string]any{"body": "ok\n\u0000"}), "body must not contain control characters: U+0000 at character 4; remove it (only newline and tab are allowed)"},
		{"over-long body", line(t, map[string]any{"body": long}), fmt.Sprintf("body must be at most %d characters, got %d", store.MaxBodyLen, store.MaxBodyLen+1)},
		{"bad id", line(t, map[string]any{"id": "a/b"}), `id must be 1 to 64 characters of [A-Za-z0-9_-], got "a/b"`},
		{"empty id", line(t, map[string]any{"id": ""}), `id must be 1 to 64 characters of [A-Za-z0-9_-], got ""`},
		{"bad product", line(t, map[string]any{"productId": "P 1"}), `productId must be 1 to 64 characters of [A-Za-z0-9_-], got "P 1"`},
		{"bad time", line(t, map[string]any{"createdAt": "2024-05-01 12:00"}), `createdAt must be an RFC 3339 time such as "2024-05-01T12:34:56Z", got "2024-05-01 12:00"`},
		{"time without zone", line(t, map[string]any{"createdAt": "2024-05-01T12:00:00"}), `createdAt must be an RFC 3339 time such as "2024-05-01T12:34:56Z", got "2024-05-01T12:00:00"`},
		{"time with comma", line(t, map[string]any{"createdAt": "2024-05-01T12:00:00,5Z"}), `createdAt must be an RFC 3339 time such as "2024-05-01T12:34:56Z", got "2024-05-01T12:00:00,5Z"`},
		{"time offset 24h", line(t, map[string]any{"createdAt": "2024-05-01T12:00:00.5+24:00"}), `createdAt must be an RFC 3339 time such as "2024-05-01T12:34:56Z", got "2024-05-01T12:00:00.5+24:00"`},
		{"time lowercase", line(t, map[string]any{"createdAt": "2024-05-01t12:00:00z"}), `createdAt must be an RFC 3339 time such as "2024-05-01T12:34:56Z", got "2024-05-01t12:00:00z"`},
		{"time before 1970", line(t, map[string]any{"id": nil, "createdAt": "1969-12-31T23:59:59Z"}), "createdAt must be between 1970 and 9999"},
		{"invalid UTF-8", strings.Replace(good, "Ann", "A\xffn", 1), "not valid UTF-8"},
	}
	other := line(t, map[string]any{"id": "other"})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input := other + "\n\n" + tt.line + "\n" + good + "\n"
			called := false
			_, err := Read(strings.NewReader(input), Options{}, func([]*store.Comment) error {
				called = true
				return nil
			})
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("got %v, want a *LineError", err)
			}
			if want := "line 3: " + tt.want; err.Error() != want {
				t.Errorf("got  %s\nwant %s", err, want)
			}
			if called {
				t.Error("a batch was delivered despite the bad line")
			}
		})
	}
}

func TestEscapedKeys(t *testing.T) {
	// Escapes in keys decode as encoding/json decodes them.
	in := strings.Replace(good, `"rating":5`, `"r\u0061ting":4`, 1)
	batches, _, err := collect(t, strings.NewReader(in), Options{})
	if err != nil || flatten(batches)[0].Rating != 4 {
		t.Fatalf("got %v", err)
	}
}

func TestTimes(t *testing.T) {
	for in, want := range map[string]time.Time{
		"2024-05-01T12:34:56Z":                time.Date(2024, 5, 1, 12, 34, 56, 0, time.UTC),
		"2024-05-01T12:34:56.5Z":              time.Date(2024, 5, 1, 12, 34, 56, 500_000_000, time.UTC),
		"2024-05-01T12:34:56.123456789-23:59": time.Date(2024, 5, 2, 12, 33, 56, 123456789, time.UTC),
		"2024-05-01T00:00:00+01:00":           time.Date(2024, 4, 30, 23, 0, 0, 0, time.UTC),
		"1970-01-01T00:00:00Z":                time.Unix(0, 0).UTC(),
		"9999-12-31T23:59:59.999Z":            time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC),
	} {
		batches, _, err := collect(t, strings.NewReader(line(t, map[string]any{"id": nil, "createdAt": in})), Options{})
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		c := flatten(batches)[0]
		if !c.CreatedAt.Equal(want) || c.CreatedAt.Location() != time.UTC {
			t.Errorf("%s: got %v, want %v", in, c.CreatedAt, want)
		}
		if u := ulid.MustParseStrict(c.ID); u.Time() != ulid.Timestamp(want) {
			t.Errorf("%s: id %s has time %v", in, c.ID, u.Timestamp())
		}
	}
}

func TestDuplicateIDs(t *testing.T) {
	input := strings.Join([]string{
		line(t, map[string]any{"id": "a"}),
		line(t, map[string]any{"id": "b"}),
		line(t, map[string]any{"id": "a", "body": "Another body."}),
	}, "\n")
	_, _, err := collect(t, strings.NewReader(input), Options{})
	if want := `line 3: duplicate id "a", also on line 1`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}

	// Two identical comments without ids would get the same id.
	noID := line(t, map[string]any{"id": nil})
	input = strings.Join([]string{noID, line(t, map[string]any{"id": "x"}), noID}, "\n")
	_, _, err = collect(t, strings.NewReader(input), Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "line 3: same comment as line 1 (neither has an id") {
		t.Errorf("got %v", err)
	}
	// Different content without ids: different ids.
	input = noID + "\n" + line(t, map[string]any{"id": nil, "body": "Other."})
	if _, sum, err := collect(t, strings.NewReader(input), Options{}); err != nil || sum.Comments != 2 {
		t.Errorf("got %v, %+v", err, sum)
	}
}

func TestLineEndings(t *testing.T) {
	a := line(t, map[string]any{"id": "a"})
	b := line(t, map[string]any{"id": "b"})
	for name, input := range map[string]string{
		"LF":                a + "\n" + b + "\n",
		"CRLF":              a + "\r\n" + b + "\r\n",
		"no final newline":  a + "\n" + b,
		"CRLF, no final":    a + "\r\n\r\n" + b,
		"BOM":               "\xEF\xBB\xBF" + a + "\r\n" + b + "\r\n",
		"blank lines":       "\n\n" + a + "\n   \n\t\n" + b + "\n\n",
		"CRLF blank lines":  "\r\n" + a + "\r\n\r\n" + b + "\r\n",
		"pretty whitespace": strings.ReplaceAll(a, ",", " ,\t") + "\n" + b,
	} {
		t.Run(name, func(t *testing.T) {
			batches, sum, err := collect(t, strings.NewReader(input), Options{})
			if err != nil {
				t.Fatal(err)
			}
			all := flatten(batches)
			if len(all) != 2 || all[0].ID != "a" || all[1].ID != "b" || all[1].Body != "Works well." {
				t.Fatalf("got %d comments: %+v", len(all), all)
			}
			if sum.Bytes != int64(len(input)) {
				t.Errorf("bytes %d, want %d", sum.Bytes, len(input))
			}
		})
	}
	// The line number counts blank lines, with CRLF too.
	_, _, err := collect(t, strings.NewReader(a+"\r\n\r\n"+`{"oops"`+"\r\n"), Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "line 3: ") {
		t.Errorf("got %v", err)
	}
}

func TestEmptyInput(t *testing.T) {
	for _, input := range []string{"", "\n", "\r\n  \n"} {
		batches, sum, err := collect(t, strings.NewReader(input), Options{})
		if err != nil || len(batches) != 0 || sum.Comments != 0 {
			t.Errorf("%q: got %v, %d batches, %+v", input, err, len(batches), sum)
		}
	}
}

func TestLongLine(t *testing.T) {
	const max = 1000
	ok := line(t, map[string]any{"id": "a", "body": strings.Repeat("b", max-len(line(t, map[string]any{"id": "a", "body": ""})))})
	if len(ok) != max {
		t.Fatalf("test line is %d bytes", len(ok))
	}
	tooLong := line(t, map[string]any{"id": "c", "body": strings.Repeat("b", 5*max)})
	for name, tc := range map[string]struct {
		input string
		err   string
	}{
		"at the limit, CRLF":   {ok + "\r\n" + ok[:len(ok)-20] + `"}`, "line 2: "},
		"at the limit, no EOL": {good + "\n" + ok, ""},
		"one over, no EOL":     {good + "\n" + ok[:8] + " " + ok[8:], fmt.Sprintf("line 2: line is longer than %d bytes", max)},
		"far over":             {good + "\n\n" + tooLong + "\n" + good, fmt.Sprintf("line 3: line is longer than %d bytes", max)},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := collect(t, strings.NewReader(tc.input), Options{MaxLineBytes: max})
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("got %v", err)
			case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)):
				t.Fatalf("got %v, want %s…", err, tc.err)
			}
		})
	}
	// The default limit is 1 MiB: a 1.5 MiB line fails, a 40 kB one passes.
	huge := `{"id":"` + strings.Repeat("a", 1<<20+1<<19) + `"}`
	if _, _, err := collect(t, strings.NewReader(good+"\n"+huge+"\n"), Options{}); err == nil || err.Error() != "line 2: line is longer than 1048576 bytes" {
		t.Errorf("got %v", err)
	}
	big := line(t, map[string]any{"body": strings.Repeat("\u00e9", store.MaxBodyLen)})
	if _, _, err := collect(t, strings.NewReader(big), Options{}); err != nil {
		t.Errorf("a 10,000-character body: %v", err)
	}
}

// pipe hides a reader's Seek, as a pipe would.
type pipe struct{ r io.Reader }

func (p pipe) Read(b []byte) (int, error) { return p.r.Read(b) }

func TestPipeIsSpooled(t *testing.T) {
	input := genInput(t, 2000)
	dir := t.TempDir()
	var progress []Progress
	batches, sum, err := collect(t, pipe{bytes.NewReader(input)}, Options{BatchSize: 700, TempDir: dir, BufferBytes: -1, Progress: func(p Progress) {
		progress = append(progress, p)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := lens(batches); !reflect.DeepEqual(got, []int{700, 700, 600}) {
		t.Errorf("batches %v", got)
	}
	for _, opts := range []Options{{BatchSize: 700}, {BatchSize: 700, BufferBytes: -1, TempDir: dir}, {BatchSize: 700, BufferBytes: int64(len(input)) / 2, TempDir: dir}} {
		seekable, _, err := collect(t, bytes.NewReader(input), opts)
		if err != nil || !reflect.DeepEqual(flatten(seekable), flatten(batches)) {
			t.Errorf("%+v: a pipe and a seekable reader read differently (%v)", opts, err)
		}
		kept, _, err := collect(t, pipe{bytes.NewReader(input)}, opts)
		if err != nil || !reflect.DeepEqual(flatten(kept), flatten(batches)) {
			t.Errorf("%+v: pipes read differently (%v)", opts, err)
		}
	}
	if sum.Comments != 2000 || sum.Lines != 2000 || sum.Bytes != int64(len(input)) {
		t.Errorf("summary %+v", sum)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("spool file left behind: %v", left)
	}
	// Progress: checking with an unknown size, then loading to the total.
	first, last := progress[0], progress[len(progress)-1]
	if first.Phase != Checking || first.TotalBytes != -1 || last.Phase != Loading || last.Comments != 2000 || last.TotalComments != 2000 || last.TotalBytes != int64(len(input)) {
		t.Errorf("progress from %+v to %+v", first, last)
	}

	// A bad line in a pipe loads nothing, and the spool is removed too.
	bad := append(append([]byte{}, input...), "{}\n"...)
	called := false
	_, err = Read(pipe{bytes.NewReader(bad)}, Options{TempDir: dir}, func([]*store.Comment) error { called = true; return nil })
	if err == nil || called || !strings.HasPrefix(err.Error(), "line 2001: ") {
		t.Errorf("got %v, called %v", err, called)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("spool file left behind: %v", left)
	}
}

func TestOSPipe(t *testing.T) {
	// An *os.File that is a pipe (stdin in `cat x | comments import -`)
	// has a Seek that fails: it must be spooled, not rewound.
	input := genInput(t, 500)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	go func() {
		pw.Write(input)
		pw.Close()
	}()
	batches, sum, err := collect(t, pr, Options{BufferBytes: -1, TempDir: t.TempDir()})
	if err != nil || len(flatten(batches)) != 500 || sum.Bytes != int64(len(input)) {
		t.Fatalf("got %v, %+v", err, sum)
	}
	want, _, _ := collect(t, bytes.NewReader(input), Options{})
	if !reflect.DeepEqual(flatten(batches), flatten(want)) {
		t.Error("an OS pipe reads differently")
	}
}

func TestSpoolDir(t *testing.T) {
	input := genInput(t, 300)
	missing := filepath.Join(t.TempDir(), "missing")
	// A pipe that fits the buffer never touches the disk.
	if _, sum, err := collect(t, pipe{bytes.NewReader(input)}, Options{TempDir: missing}); err != nil || sum.Comments != 300 {
		t.Errorf("small pipe: %v, %+v", err, sum)
	}
	// A bigger one needs the spool; when it cannot be written, nothing is
	// delivered.
	called := false
	_, err := Read(pipe{bytes.NewReader(input)}, Options{TempDir: missing, BufferBytes: 1000}, func([]*store.Comment) error { called = true; return nil })
	if err == nil || called || !strings.HasPrefix(err.Error(), "spooling the input: ") {
		t.Errorf("got %v, called %v", err, called)
	}
	// A bad line is reported as such, before the spool's trouble.
	bad := append([]byte("{}\n"), input...)
	if _, _, err := collect(t, pipe{bytes.NewReader(bad)}, Options{TempDir: missing, BufferBytes: -1}); err == nil || !strings.HasPrefix(err.Error(), "line 1: ") {
		t.Errorf("got %v", err)
	}
}

func TestFileFromOffset(t *testing.T) {
	// A regular file is re-read from where Read found it, not from byte 0.
	path := filepath.Join(t.TempDir(), "in.jsonl")
	skip := "not part of the input\n"
	if err := os.WriteFile(path, []byte(skip+good+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(int64(len(skip)), io.SeekStart); err != nil {
		t.Fatal(err)
	}
	var sizes []int64
	batches, _, err := collect(t, f, Options{Progress: func(p Progress) { sizes = append(sizes, p.TotalBytes) }})
	if err != nil || len(flatten(batches)) != 1 {
		t.Fatalf("got %v, %d comments", err, len(flatten(batches)))
	}
	if sizes[0] != int64(len(good)+1) {
		t.Errorf("total bytes %d, want %d", sizes[0], len(good)+1)
	}
}

func TestCheckOnly(t *testing.T) {
	input := genInput(t, 100)
	sum, err := Read(pipe{bytes.NewReader(input)}, Options{}, nil)
	if err != nil || sum.Comments != 100 {
		t.Errorf("got %v, %+v", err, sum)
	}
}

func TestLoadError(t *testing.T) {
	input := append([]byte("\n"), genInput(t, 25)...) // comment i is on line i+1
	boom := errors.New("table unavailable")
	for _, buffer := range []int64{0, -1} {
		calls := 0
		sum, err := Read(bytes.NewReader(input), Options{BatchSize: 10, BufferBytes: buffer}, func([]*store.Comment) error {
			calls++
			if calls == 2 {
				return boom
			}
			return nil
		})
		if !errors.Is(err, boom) || err.Error() != "loading the batch of lines 12–21: table unavailable" {
			t.Errorf("buffer %d: got %v", buffer, err)
		}
		if sum.Comments != 10 || calls != 2 {
			t.Errorf("buffer %d: delivered %d comments in %d calls", buffer, sum.Comments, calls)
		}
	}
}

// changing serves one input on the first pass and another on the second.
type changing struct {
	inputs [][]byte
	r      *bytes.Reader
	n      int
	read   bool // since the last switch
}

func (c *changing) Read(p []byte) (int, error) { c.read = true; return c.r.Read(p) }

func (c *changing) Seek(off int64, whence int) (int64, error) {
	if whence == io.SeekStart && c.read && c.n+1 < len(c.inputs) {
		c.n++
		c.r, c.read = bytes.NewReader(c.inputs[c.n]), false
	}
	return c.r.Seek(off, whence)
}

func TestInputChanged(t *testing.T) {
	in := genInput(t, 20)
	bad := bytes.Replace(in, []byte(`"rating":`), []byte(`"rating":9,"x":`), 1)
	c := &changing{inputs: [][]byte{in, bad}, r: bytes.NewReader(in)}
	_, err := Read(c, Options{BufferBytes: -1}, func([]*store.Comment) error { return nil })
	if err == nil || !strings.HasPrefix(err.Error(), "input changed while it was read: line 1: ") {
		t.Errorf("got %v", err)
	}
}

func TestSummaryString(t *testing.T) {
	for _, tc := range []struct {
		s    Summary
		want string
	}{
		{Summary{Comments: 100000, Products: 12, Languages: 9, Elapsed: 3125 * time.Millisecond}, "imported 100000 comments (12 products, 9 languages) in 3.1s, 32000 comments/s"},
		{Summary{Comments: 1, Products: 1, Languages: 1, Elapsed: 2 * time.Millisecond}, "imported 1 comment (1 product, 1 language) in 0.0s, 500 comments/s"},
		{Summary{}, "imported 0 comments (0 products, 0 languages) in 0.0s"},
		{Summary{Comments: 6000000, Products: 4000, Languages: 30, Elapsed: 125400 * time.Millisecond}, "imported 6000000 comments (4000 products, 30 languages) in 2m5s, 47847 comments/s"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

func TestBar(t *testing.T) {
	var out bytes.Buffer
	clock := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	b := &Bar{w: &out, tty: true, now: func() time.Time { return clock }}
	draws := func() int { return strings.Count(out.String(), "\r") }

	// Checking 2 s of updates every 10 ms: a redraw at most every 100 ms.
	for i := 0; i <= 200; i++ {
		b.Update(Progress{Phase: Checking, Lines: i * 100, Bytes: int64(i) * 50_000, TotalBytes: 10_000_000, TotalComments: -1})
		clock = clock.Add(10 * time.Millisecond)
	}
	if n := draws(); n < 19 || n > 21 {
		t.Errorf("%d redraws in 2s", n)
	}
	last := out.String()[strings.LastIndex(out.String(), "\r")+1:]
	if want := "checking  [####################] 100%  10.0/10.0 MB  20000 lines  5.0 MB/s"; strings.TrimRight(last, " ") != want {
		t.Errorf("got  %q\nwant %q", last, want)
	}

	// A new phase draws at once.
	b.Clear()
	out.Reset()
	b.Update(Progress{Phase: Loading, Comments: 0, TotalComments: 100000})
	clock = clock.Add(time.Second)
	b.Update(Progress{Phase: Loading, Comments: 45000, TotalComments: 100000})
	if got, want := out.String(), "\r"+`importing [--------------------]   0%  0/100000 comments`+"\r"+`importing [#########-----------]  45%  45000/100000 comments  45000/s`; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// A shorter line overwrites the rest of a longer one; Clear erases it.
	out.Reset()
	b.drawn = 90
	clock = clock.Add(time.Second)
	b.Update(Progress{Phase: Loading, Comments: 50000, TotalComments: 100000})
	if l := len(out.String()); l != 91 {
		t.Errorf("redraw of %d bytes, want 91", l)
	}
	out.Reset()
	drawn := b.drawn
	b.Clear()
	if got := out.String(); drawn != 69 || got != "\r"+strings.Repeat(" ", drawn)+"\r" {
		t.Errorf("clear wrote %q", got)
	}
	// Unknown size: no percentage. A narrow terminal: truncated.
	b = &Bar{w: &out, tty: true, width: 30, now: func() time.Time { return clock }}
	out.Reset()
	b.Update(Progress{Phase: Checking, Lines: 7, Bytes: 2_500_000, TotalBytes: -1, TotalComments: -1})
	if got := out.String(); got != "\rchecking  2.5 MB  7 lines" {
		t.Errorf("got %q", got)
	}
	b.now = func() time.Time { return clock.Add(time.Second) }
	out.Reset()
	b.Update(Progress{Phase: Checking, Lines: 7, Bytes: 2_500_000, TotalBytes: 5_000_000, TotalComments: -1})
	if got := out.String(); got != "\rchecking  [##########--------" {
		t.Errorf("got %q", got)
	}

	// Not a terminal: nothing at all.
	out.Reset()
	nb := NewBar(&out)
	nb.Update(Progress{Phase: Loading, Comments: 1, TotalComments: 2})
	nb.Clear()
	if out.Len() != 0 {
		t.Errorf("wrote %q to a non-terminal", out.String())
	}
}

// genInput returns n lines of demo comments as JSON lines, without ids on
// every third line.
func genInput(t testing.TB, n int) []byte {
	t.Helper()
	cfg := demo.DefaultConfig()
	cfg.Comments = n
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for i, c := range demo.Generate(demo.NewRand(1), cfg) {
		rec := map[string]any{
			"productId": c.ProductID, "language": c.Language, "rating": c.Rating,
			"author": c.Author, "title": c.Title, "body": c.Body,
			"createdAt": c.CreatedAt.Format(time.RFC3339Nano),
		}
		if i%3 != 0 {
			rec["id"] = c.ID
		}
		if err := enc.Encode(rec); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// BenchmarkRead reads 100,000 lines (30 MB): "buffered" parses them once and
// keeps the comments (the default for inputs up to 64 MiB), "reread" parses
// them twice (larger inputs).
func BenchmarkRead(b *testing.B) {
	input := genInput(b, 100_000)
	for _, bc := range []struct {
		name   string
		buffer int64
	}{{"buffered", 0}, {"reread", -1}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(input)))
			b.ReportAllocs()
			for b.Loop() {
				sum, err := Read(bytes.NewReader(input), Options{BufferBytes: bc.buffer}, func([]*store.Comment) error { return nil })
				if err != nil || sum.Comments != 100_000 {
					b.Fatal(err, sum)
				}
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add(good)
	f.Add(`{"id":null,"rating":{"a":[1,{"b":"}"}]}}`)
	f.Add(`{"r\u0061ting":5}`)
	f.Add(`{"id":"a","id":"b"}`)
	f.Add(line(f, map[string]any{"id": nil, "createdAt": "2024-05-01T12:00:00.5+23:00"}))
	f.Add(line(f, map[string]any{"rating": 4.0, "language": "zh-hant-tw"}))
	f.Fuzz(func(t *testing.T, s string) {
		var p parser
		c, _, err := p.parse(1, []byte(s))
		if err == nil {
			if !json.Valid([]byte(s)) {
				t.Fatalf("accepted invalid JSON %q", s)
			}
			if verr := c.Validate(); verr != nil {
				t.Fatalf("accepted an invalid comment %+v: %v", c, verr)
			}
		} else if !strings.HasPrefix(err.Error(), "line 1: ") {
			t.Fatalf("error without line number: %v", err)
		}
	})
}

// TestOwnerRoundTrips: a comment's owner (authorId), which Writer writes
// for an owned comment, is read back, and checked like the other fields; a
// null authorId is no owner.
func TestOwnerRoundTrips(t *testing.T) {
	c := &store.Comment{ID: "01HXAMPLE0000000000000001", ProductID: "P0001", Language: "en", Rating: 4, Author: "Ann",
		Title: "Hi", Body: "Body", CreatedAt: time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC), AuthorID: "auth0|ann"}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.Write(c); err != nil || w.Flush() != nil {
		t.Fatal(err)
	}
	batches, _, err := collect(t, &buf, Options{})
	if err != nil {
		t.Fatalf("reading back %s: %v", buf.String(), err)
	}
	if got := flatten(batches); len(got) != 1 || !reflect.DeepEqual(got[0], c) {
		t.Errorf("read back %+v, want %+v", got, c)
	}
	for in, want := range map[string]string{
		line(t, map[string]any{"authorId": "u-1"}):               "u-1",
		strings.Replace(good, `}`, `,"authorId":null}`, 1):       "",
		strings.Replace(good, `}`, `,"author\u0049d":"u-2"}`, 1): "u-2",
	} {
		batches, _, err := collect(t, strings.NewReader(in), Options{})
		if got := flatten(batches); err != nil || len(got) != 1 || got[0].AuthorID != want {
			t.Errorf("%s: %v, %v; want owner %q", in, got, err, want)
		}
	}
	if _, _, err := collect(t, strings.NewReader(line(t, map[string]any{"authorId": "a\x01b"})), Options{}); err == nil {
		t.Error("an authorId with a control character was accepted")
	}
}
