package e2e

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHelpListsTheCommands: -h, -help, --help and help print the command
// list (not serve's flags), on stdout, and exit 0.
func TestHelpListsTheCommands(t *testing.T) {
	for _, arg := range []string{"-h", "-help", "--help", "help"} {
		out, stderr, err := runGW(t, nil, arg)
		if err != nil {
			t.Errorf("%s: %v\n%s", arg, err, stderr)
		}
		for _, cmd := range []string{"serve", "import", "seed", "create-table", "rebuild-stats", "-version"} {
			if !strings.Contains(out, cmd) {
				t.Errorf("%s does not list %s:\n%s", arg, cmd, out)
			}
		}
	}
}

// TestImportHelpDescribesTheInput: import -h (and help import) exits 0 and
// says what the input is: FILE or -, one JSON object a line, and every
// field.
func TestImportHelpDescribesTheInput(t *testing.T) {
	for _, args := range [][]string{{"import", "-h"}, {"help", "import"}} {
		_, stderr, err := runGW(t, nil, args...)
		if err != nil {
			t.Errorf("%v: %v, want exit status 0", args, err)
		}
		for _, want := range []string{"FILE|-", "standard input", "one comment object a line", "productId", "language", "rating", "author", "title", "body", "createdAt", "authorId", "-store"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%v does not mention %q:\n%s", args, want, stderr)
			}
		}
	}
}

// TestVersionPrintsTheBuild: -version prints the module version and the Go
// version from the binary's build information.
func TestVersionPrintsTheBuild(t *testing.T) {
	for _, arg := range []string{"-version", "--version", "version"} {
		out, _, err := runGW(t, nil, arg)
		if err != nil || !strings.HasPrefix(out, "comments-gateway ") || !strings.Contains(out, "go1.") {
			t.Errorf("%s: %q, %v", arg, out, err)
		}
	}
}

// TestBadArgumentsExitWithTheirError: an unknown command, a malformed
// -store or size flag, a mistyped flag or a missing FILE makes the command
// exit non-zero with an error line naming what to fix (the nearest flag or
// command for a mistyped one), not the usage; help and serve -h exit 0.
func TestBadArgumentsExitWithTheirError(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bogus"}, "unknown command"},
		{[]string{"serve", "-store", "nowhere"}, "want bolt:PATH or dynamodb:TABLE"},
		{[]string{"serve", "-store", "mysql:x"}, "unknown store"},
		{[]string{"create-table", "-store", "bolt:x.db"}, "dynamodb:TABLE"},
		{[]string{"import", "-store", "bolt:" + t.TempDir() + "/x.db"}, "want one FILE"},
		{[]string{"seed", "-products", "0"}, "-products"},
		{[]string{"serve", "-micro-cache-bytes", "lots"}, "want a size such as 64MB"},
		{[]string{"serve", "-micro-cache-bytes", "0"}, "-micro-cache-bytes"},
		{[]string{"serve", "-micro-cache-ttl", "-1s"}, "-micro-cache-ttl"},
		{[]string{"serve", "-cors-origin", "x"}, "did you mean -cors-origins?"},
		{[]string{"improt"}, "did you mean import?"},
	} {
		_, stderr, err := runGW(t, nil, tc.args...)
		if msg := errorLine(stderr); err == nil || !strings.Contains(msg, tc.want) {
			t.Errorf("%v: exit %v, error %q, want it to mention %q\n%s", tc.args, err, msg, tc.want, tail(stderr, 2000))
		}
		if strings.Contains(stderr, "Usage") {
			t.Errorf("%v buries its error under the usage:\n%s", tc.args, tail(stderr, 2000))
		}
	}
	if out, _, err := runGW(t, nil, "help"); err != nil || !strings.Contains(out, "rebuild-stats") {
		t.Errorf("help: %v, %q", err, out)
	}
	if _, stderr, err := runGW(t, nil, "serve", "-h"); err != nil {
		t.Errorf("serve -h: %v, want exit status 0\n%s", err, stderr)
	}
}

// TestImportReportsTheFirstBadLines: an import of a file with 15 bad lines
// into a new bolt file exits non-zero listing the first ten with their
// line numbers and reasons and the count, and leaves no file behind.
func TestImportReportsTheFirstBadLines(t *testing.T) {
	dir := t.TempDir()
	var in strings.Builder
	for i := 1; i <= 30; i++ {
		rating := 1 + i%5
		if i%2 == 0 {
			rating = 9 // lines 2, 4, … 30 are bad
		}
		fmt.Fprintf(&in, `{"productId":"p1","language":"en","rating":%d,"author":"A","title":"T","body":"Body %d.","createdAt":"2025-06-01T09:30:00Z"}`+"\n", rating, i)
	}
	file, db := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "new.db")
	if err := os.WriteFile(file, []byte(in.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := runGW(t, nil, "import", "-store", "bolt:"+db, file)
	if err == nil {
		t.Fatal("the import of bad lines succeeded")
	}
	want := "error: import: line 2: rating must be an integer from 1 to 5, got 9\n"
	for n := 4; n <= 20; n += 2 {
		want += fmt.Sprintf("line %d: rating must be an integer from 1 to 5, got 9\n", n)
	}
	want += "15 bad lines, the first 10 above; nothing was loaded\n"
	if !strings.HasSuffix(stderr, want) {
		t.Errorf("stderr:\n%s\nwant it to end:\n%s", stderr, want)
	}
	if _, err := os.Stat(db); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the failed import left %s behind (stat: %v)", db, err)
	}
}
