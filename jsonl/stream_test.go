package jsonl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
)

// lineByLine parses input one line after the other in this goroutine, as
// Read did before its parse stream: the reference of the stream.
func lineByLine(input []byte, max int) []parsedLine {
	sc := newScanner(bytes.NewReader(input), max)
	var p parser
	var out []parsedLine
	for {
		line, err := sc.next()
		if errors.Is(err, io.EOF) {
			return out
		}
		pl := parsedLine{line: sc.line, bytes: sc.bytes, err: err}
		if err == nil {
			if pl.blank = isBlank(line); !pl.blank {
				pl.c, pl.generated, pl.err = p.parse(sc.line, line)
			}
		}
		out = append(out, pl)
		if pl.fatal() {
			return out
		}
	}
}

// streamed returns every line of the parse stream of input.
func streamed(input []byte, max int) []parsedLine {
	st := newStream(bytes.NewReader(input), max)
	defer st.close()
	var out []parsedLine
	for {
		pl, err := st.next()
		if errors.Is(err, io.EOF) {
			return out
		}
		out = append(out, pl)
	}
}

// streamInputs are inputs of many blocks: good, with blank lines and CRLF,
// with a bad line, a line too long, or a bad line in each of two blocks.
func streamInputs(t *testing.T) map[string][]byte {
	lines := strings.SplitAfter(string(genInput(t, 3000)), "\n")
	with := func(edit func(i int, l string) string) []byte {
		var b strings.Builder
		for i, l := range lines {
			b.WriteString(edit(i+1, l))
		}
		return []byte(b.String())
	}
	return map[string][]byte{
		"good": with(func(_ int, l string) string { return l }),
		"blank and CRLF": with(func(i int, l string) string {
			if i%7 == 0 {
				return "  \r\n" + strings.TrimSuffix(l, "\n") + "\r\n"
			}
			return l
		}),
		"bad line": with(func(i int, l string) string {
			if i == 2222 {
				return strings.Replace(l, `"rating":`, `"rating":9,"stars":`, 1)
			}
			return l
		}),
		"long line": with(func(i int, l string) string {
			if i == 1500 {
				return strings.Repeat("x", 5000) + "\n"
			}
			return l
		}),
		"two bad lines": with(func(i int, l string) string {
			if i == 700 || i == 2900 {
				return "{\n"
			}
			return l
		}),
	}
}

// TestStreamIsLineByLine: the parse stream returns exactly what a parse
// line by line returns, bad lines and the lines after them included.
func TestStreamIsLineByLine(t *testing.T) {
	for name, input := range streamInputs(t) {
		want, got := lineByLine(input, 4096), streamed(input, 4096)
		if len(got) != len(want) {
			t.Errorf("%s: %d lines, want %d", name, len(got), len(want))
			continue
		}
		for i := range want {
			w, g := want[i], got[i]
			if fmt.Sprint(w.err) != fmt.Sprint(g.err) {
				t.Errorf("%s: line %d: error %v, want %v", name, i+1, g.err, w.err)
			}
			w.err, g.err = nil, nil
			if !reflect.DeepEqual(w, g) {
				t.Errorf("%s: line %d: %+v, want %+v", name, i+1, g, w)
				break
			}
		}
	}
}

// TestBadLineFarIn: a bad line or a duplicate id thousands of lines in,
// whether the comments are kept or read again, is reported as in a small
// input and nothing is delivered; and the stream's goroutines are gone
// when Read returns.
func TestBadLineFarIn(t *testing.T) {
	input := streamInputs(t)["bad line"]
	lines := strings.SplitAfter(string(streamInputs(t)["good"]), "\n")
	dup := strings.Join(lines[:2600], "") + lines[10] + strings.Join(lines[2600:], "")
	cases := []struct {
		input      []byte
		want, tail string
	}{
		{input, `line 2222: unknown field "stars"; the fields are id, productId, language, rating, author, title, body, createdAt, authorId, status, moderatedAt, moderationReason, verifiedPurchase, reply`, ""},
		{[]byte(dup), `line 2601: duplicate id "`, `", also on line 11`},
	}
	before := runtime.NumGoroutine()
	for _, tc := range cases {
		for _, buffer := range []int64{0, -1} {
			_, err := Read(bytes.NewReader(tc.input), Options{BufferBytes: buffer}, func([]*store.Comment) error {
				t.Fatal("a batch was delivered despite the bad line")
				return nil
			})
			var le *LineError
			if !errors.As(err, &le) || !strings.HasPrefix(err.Error(), tc.want) || !strings.HasSuffix(err.Error(), tc.tail) {
				t.Errorf("buffer %d: got %v, want %s…%s", buffer, err, tc.want, tc.tail)
			}
		}
	}
	// A load that fails half-way stops the second pass's stream too.
	_, err := Read(bytes.NewReader(streamInputs(t)["good"]), Options{BufferBytes: -1, BatchSize: 100}, func([]*store.Comment) error {
		return errors.New("boom")
	})
	if err == nil || !strings.HasSuffix(err.Error(), "boom") {
		t.Errorf("got %v", err)
	}
	// close waited for the goroutines; give the runtime a moment to count
	// them out.
	for i := 0; runtime.NumGoroutine() > before && i < 100; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Read, %d before", n, before)
	}
}

// TestMemSpool: the chunks of a pipe's copy in memory read back as written,
// whole or the first n bytes, across chunk boundaries.
func TestMemSpool(t *testing.T) {
	var want []byte
	var m memSpool
	for i := range 40 {
		p := bytes.Repeat([]byte{byte('a' + i%26)}, i*i*997)
		m.write(p)
		want = append(want, p...)
	}
	if m.n != int64(len(want)) || len(m.chunks) != (len(want)+memChunk-1)/memChunk {
		t.Fatalf("%d bytes in %d chunks, want %d", m.n, len(m.chunks), len(want))
	}
	for _, n := range []int64{0, 1, memChunk - 1, memChunk, memChunk + 1, int64(len(want))} {
		got, err := io.ReadAll(m.reader(n))
		if err != nil || !bytes.Equal(got, want[:n]) {
			t.Errorf("reader(%d): %d bytes, %v", n, len(got), err)
		}
	}
	var all bytes.Buffer
	if err := m.writeTo(&all); err != nil || !bytes.Equal(all.Bytes(), want) {
		t.Errorf("writeTo: %d bytes, %v", all.Len(), err)
	}
}
