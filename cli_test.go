package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"net"
	"strings"
	"testing"
)

// runHelp runs the program with args and returns what it printed.
func runHelp(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	err = run(context.Background(), args, func(string) string { return "" }, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), err
}

// TestHelpListsTheCommands: -h, -help, --help and help print the command
// list (not serve's flags), on stdout, without error.
func TestHelpListsTheCommands(t *testing.T) {
	for _, arg := range []string{"-h", "-help", "--help", "help"} {
		out, _, err := runHelp(t, arg)
		if err != nil {
			t.Errorf("%s: %v", arg, err)
		}
		for _, cmd := range []string{"serve", "import", "seed", "create-table", "rebuild-stats", "-version"} {
			if !strings.Contains(out, cmd) {
				t.Errorf("%s does not list %s:\n%s", arg, cmd, out)
			}
		}
	}
}

// TestImportHelpDescribesTheInput: import -h (and help import) says what
// the input is: FILE or -, one JSON object a line, and every field.
func TestImportHelpDescribesTheInput(t *testing.T) {
	for _, args := range [][]string{{"import", "-h"}, {"help", "import"}} {
		_, stderr, err := runHelp(t, args...)
		if !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%v: err = %v, want flag.ErrHelp (exit 0)", args, err)
		}
		for _, want := range []string{"FILE|-", "standard input", "one comment object a line", "productId", "language", "rating", "author", "title", "body", "createdAt", "-store"} {
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
		out, _, err := runHelp(t, arg)
		if err != nil || !strings.HasPrefix(out, "comments-gateway ") || !strings.Contains(out, "go1.") {
			t.Errorf("%s: %q, %v", arg, out, err)
		}
	}
}

func TestBaseURL(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:8080": "http://127.0.0.1:8080",
		"0.0.0.0:8080":   "http://localhost:8080",
		"[::]:8080":      "http://localhost:8080",
		"[::1]:8080":     "http://[::1]:8080",
	} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := baseURL(a); got != want {
			t.Errorf("baseURL(%s) = %s, want %s", addr, got, want)
		}
	}
}
