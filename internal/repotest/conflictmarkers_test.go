package repotest

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoMergeConflictMarkers: no source or document of the tree holds a
// line left by an unresolved merge (one slipped into README.md's command
// table once).
// No linter covers this: gofmt and golangci-lint read only Go files, and a
// marker slips into Markdown, shell, YAML or JSON as easily.
func TestNoMergeConflictMarkers(t *testing.T) {
	skip := map[string]bool{".git": true, "node_modules": true, ".dynamodb": true, "testdata": true}
	text := map[string]bool{".go": true, ".md": true, ".sh": true, ".js": true, ".mjs": true, ".ts": true,
		".json": true, ".yml": true, ".yaml": true, ".graphqls": true, ".graphql": true, ".sql": true, ".lua": true, ".html": true}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skip[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !text[filepath.Ext(path)] {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			if l := sc.Text(); strings.HasPrefix(l, "<<<<<<< ") || strings.HasPrefix(l, ">>>>>>> ") {
				t.Errorf("%s:%d: a merge conflict marker: %q", path, n, l)
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
}
