package testutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Doc is one document of the module's user documentation.
type Doc struct {
	Path string // relative to the module's root, slash-separated: "README.md", "docs/api.md"
	Text string
}

// Docs returns the module's user documentation, the documents whose
// examples and tables tests hold to the code: README.md, then every
// docs/**/*.md but those under docs/archive/ (dated records, kept as they
// were written), in path order.
func Docs(tb testing.TB) []Doc {
	tb.Helper()
	root := ModuleRoot(tb)
	paths := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && rel == "docs/archive":
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(rel, ".md"):
			paths = append(paths, rel)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	docs := make([]Doc, len(paths))
	for i, p := range paths {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			tb.Fatal(err)
		}
		docs[i] = Doc{Path: p, Text: string(b)}
	}
	return docs
}

// DocWith returns the one document of Docs that contains marker (a table's
// title, a quoted message), wherever it has moved; the test fails when no
// document or more than one contains it.
func DocWith(tb testing.TB, marker string) Doc {
	tb.Helper()
	var found []Doc
	for _, d := range Docs(tb) {
		if strings.Contains(d.Text, marker) {
			found = append(found, d)
		}
	}
	if len(found) != 1 {
		var names []string
		for _, d := range found {
			names = append(names, d.Path)
		}
		tb.Fatalf("want exactly one document (README.md or docs/) containing %q, found %d %v", marker, len(found), names)
	}
	return found[0]
}

// ModuleRoot returns the directory of the module's go.mod, the nearest one
// above the working directory (a test runs in its package's directory).
func ModuleRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}
