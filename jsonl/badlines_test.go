package jsonl

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/acme/comments-gateway/store"
)

// badInput is 3000 generated lines with every 100th made bad, in turn by
// an unknown field, invalid JSON, a line too long (of maxLine) and a duplicate
// of line 1's id: 30 bad lines, and the line numbers and reasons of the
// first ones.
func badInput(t *testing.T, maxLine int) (input string, want []string) {
	lines := strings.SplitAfter(strings.TrimSuffix(string(genInput(t, 3000)), "\n"), "\n")
	first := strings.TrimSuffix(lines[1], "\n") // line 2: it has an id
	for i := 99; i < len(lines); i += 100 {
		n := i + 1
		switch (n / 100) % 4 {
		case 1:
			lines[i] = strings.Replace(lines[i], `"rating":`, `"stars":`, 1)
			want = append(want, fmt.Sprintf(`line %d: unknown field "stars"`, n))
		case 2:
			lines[i] = "{\n"
			want = append(want, fmt.Sprintf("line %d: invalid JSON: the line ends inside the object", n))
		case 3:
			lines[i] = strings.Repeat("x", 3*maxLine) + "\n"
			want = append(want, fmt.Sprintf("line %d: line is longer than %d bytes", n, maxLine))
		case 0:
			lines[i] = first + "\n"
			want = append(want, fmt.Sprintf("line %d: duplicate id ", n))
		}
	}
	return strings.Join(lines, ""), want
}

// TestBadLinesAreAllCounted: the check goes on past bad lines of every
// kind (an unknown field, invalid JSON, a line too long, a duplicate id, the
// latter also across the duplicate check's runs) and reports the first
// MaxBadLines with their numbers and reasons, in input order, and how many
// there are in all; nothing is delivered.
func TestBadLinesAreAllCounted(t *testing.T) {
	const maxLine = 4096
	input, want := badInput(t, maxLine)
	for _, tc := range []struct {
		name  string
		max   int
		ids   int // maxIDsInMemory
		shown int
		tail  string
	}{
		{"default", 0, maxIDsInMemory, 10, "30 bad lines, the first 10 above; nothing was loaded"},
		{"three", 3, maxIDsInMemory, 3, "30 bad lines, the first 3 above; nothing was loaded"},
		{"all", 50, maxIDsInMemory, 30, "30 bad lines; nothing was loaded"},
		{"runs", 0, 64, 10, "30 bad lines, the first 10 above; nothing was loaded"},
	} {
		old := maxIDsInMemory
		maxIDsInMemory = tc.ids
		_, err := Read(strings.NewReader(input), Options{MaxBadLines: tc.max, MaxLineBytes: maxLine, TempDir: t.TempDir()}, func([]*store.Comment) error {
			t.Fatal("a batch was delivered despite the bad lines")
			return nil
		})
		maxIDsInMemory = old
		var ble *BadLinesError
		if !errors.As(err, &ble) || ble.Total != 30 || len(ble.First) != tc.shown {
			t.Fatalf("%s: got %v, want a *BadLinesError of 30 lines, %d shown", tc.name, err, tc.shown)
		}
		got := strings.Split(err.Error(), "\n")
		for i, w := range want[:tc.shown] {
			if !strings.HasPrefix(got[i], w) {
				t.Errorf("%s: line %d of the error is %q, want %q…", tc.name, i+1, got[i], w)
			}
		}
		if len(got) != tc.shown+1 || got[tc.shown] != tc.tail {
			t.Errorf("%s: the error ends %q, want %q", tc.name, got[len(got)-1], tc.tail)
		}
		var le *LineError
		if !errors.As(err, &le) || le.Line != 100 {
			t.Errorf("%s: errors.As finds %v, want line 100's *LineError", tc.name, le)
		}
	}
}

// TestReadErrorAfterBadLines: an input that cannot be read to its end
// reports the bad lines read so far and the read error, without a count
// it could not make.
func TestReadErrorAfterBadLines(t *testing.T) {
	input, _ := badInput(t, 4096)
	r := io.MultiReader(strings.NewReader(input[:len(input)/2]), iotest.ErrReader(errors.New("disk on fire")))
	_, err := Read(r, Options{}, nil)
	var le *LineError
	if !errors.As(err, &le) || le.Line != 100 || !strings.HasSuffix(err.Error(), "disk on fire") || strings.Contains(err.Error(), "30 bad lines") {
		t.Errorf("got %v", err)
	}
}
