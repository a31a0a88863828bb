package repotest

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestMain runs the tests from the module's root, the tree they check.
func TestMain(m *testing.M) {
	if err := os.Chdir("../.."); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// maxMainLines is how long server.go, the binary's main, may be: main
// calls package command, which holds the commands.
const maxMainLines = 40

// TestRootHoldsMainOnly: the root's Go files are main (server.go, at most
// maxMainLines lines), the module's doc.go and generate.go; the commands
// live in internal/command, serve's wiring in internal/serve.
func TestRootHoldsMainOnly(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !slices.Contains([]string{"doc.go", "generate.go", "server.go"}, f) {
			t.Errorf("%s is at the root: package main holds main (server.go), doc.go and generate.go only; commands go to internal/command", f)
		}
	}
	b, err := os.ReadFile("server.go")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n > maxMainLines {
		t.Errorf("server.go has %d lines, want at most %d: main only", n, maxMainLines)
	}
}
