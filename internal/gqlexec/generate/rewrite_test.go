package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedIsRewritten: the committed graph/ is this command's output,
// not gqlgen's alone (which would build the slow path): nothing is left to
// rewrite, and every required replacement is in place.
func TestGeneratedIsRewritten(t *testing.T) {
	for _, name := range []string{"generated.go", "federation.go"} {
		src, err := os.ReadFile(filepath.Join("..", "..", "..", "graph", name))
		if err != nil {
			t.Fatal(err)
		}
		out, err := replace(src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(out, src) {
			t.Errorf("graph/%s holds gqlgen's text that the rewrite replaces: run go generate ./...", name)
		}
		for _, r := range replacements {
			if r.owner != "" && bytes.Contains(src, []byte(r.owner)) && !bytes.Contains(src, []byte(r.to)) {
				t.Errorf("graph/%s lacks %q", name, r.to)
			}
		}
	}
}

// TestRewriteFailsLoudly: a file that defines a required replacement's owner
// without its text (a gqlgen upgrade changed it) is an error, not a silent
// slow build.
func TestRewriteFailsLoudly(t *testing.T) {
	src := []byte("func (ec *executionContext) _CommentConnection(ctx context.Context) {}\n")
	if _, err := replace(src); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("replace: %v, want a not-found error", err)
	}
}
