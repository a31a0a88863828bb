package repotest

import (
	"bufio"
	"errors"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The tree's Go packages, their docs and their imports are what README.md's
// Layout section and docs/design.md say they are. No prose lists every
// package: each says what it owns in its doc.go (TestEveryPackageHasDocGo),
// and `go list -f '{{.ImportPath}} {{.Doc}}' ./...` prints the map.

// TestReadmeLayoutPathsExist pins README.md's Layout section to the tree:
// every path its path lists name (the first field of each line of its
// plain code blocks; the ```sh block is the command that prints the
// package map) exists, and none is listed twice.
func TestReadmeLayoutPathsExist(t *testing.T) {
	blocks := readmeLayoutBlocks(t)
	if len(blocks) == 0 {
		t.Fatal("README.md: the Layout section has no code block listing where to start reading")
	}
	for _, block := range blocks {
		for _, p := range block {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("README.md Layout: %s does not exist", p)
			}
		}
		if dup := duplicates(block); len(dup) > 0 {
			t.Errorf("README.md Layout: listed more than once: %v", dup)
		}
	}
}

// TestEveryPackageHasDocGo checks that every package with non-test Go files
// has its package comment in doc.go, and only there.
func TestEveryPackageHasDocGo(t *testing.T) {
	fset := token.NewFileSet()
	for _, dir := range packageDirs(t) {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		nonTest := 0
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			nonTest++
			af, err := parser.ParseFile(fset, f, nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			isDoc := filepath.Base(f) == "doc.go"
			switch {
			case isDoc && af.Doc == nil:
				t.Errorf("%s has no package comment", f)
			case !isDoc && af.Doc != nil:
				t.Errorf("%s has a package comment; it belongs in %s", f, filepath.Join(dir, "doc.go"))
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "doc.go")); nonTest > 0 && err != nil {
			t.Errorf("package %s has no doc.go with its package comment", dir)
		}
	}
}

// TestDependencyDirection checks the import rules of docs/design.md §1 on
// the non-test imports: the storage contract (store/table) imports no
// package of the module, store imports only store/table; only the
// binary's wiring (package main and the packages of its commands, wiring)
// and a backend's own subpackages import a backend, the backends never
// import each other, and the store's packages import no package of the
// module outside store/ (the wiring installs what observes them). And
// the edge packages (edgePackages) depend, directly or not, on no domain
// package (domainPackages), the live transport (livePackages) on none
// but the events and the store, and the operation policy (policyPackages)
// on none but the store and the live transport: what `go list -deps`
// names for them.
func TestDependencyDirection(t *testing.T) {
	module := modulePath(t)
	for _, edge := range edgePackages {
		for _, dep := range goListDeps(t, "./"+edge) {
			rel, ok := strings.CutPrefix(dep, module+"/")
			if ok && slices.ContainsFunc(domainPackages, func(d string) bool { return strings.HasPrefix(rel+"/", d) }) {
				t.Errorf("%s depends on %s: the edge knows GraphQL over HTTP, not comments; pass what it needs in as a value or a small interface", edge, dep)
			}
		}
	}
	rules := []struct {
		pkgs map[string][]string
		why  string
	}{
		{livePackages, "the live transport knows connections, operations and events (%v), not the resolvers, the schema's code or a backend; pass what it needs in its Deps"},
		{policyPackages, "the operation policy knows requests, operations, principals and the store's codes (%v), not the resolvers or the schema's code; pass what it needs in as a value or a small interface"},
	}
	for _, rule := range rules {
		for pkg, allowed := range rule.pkgs {
			for _, dep := range goListDeps(t, "./"+pkg) {
				rel, ok := strings.CutPrefix(dep, module+"/")
				if ok && rel != pkg && !slices.Contains(allowed, rel) &&
					slices.ContainsFunc(domainPackages, func(d string) bool { return strings.HasPrefix(rel+"/", d) }) {
					t.Errorf("%s depends on %s: "+rule.why, pkg, dep, allowed)
				}
			}
		}
	}
	backends := []string{"store/bolt/", "store/dynamo/"}
	wiring := []string{"./", "internal/command/", "internal/serve/", "internal/storespec/"}
	for _, dir := range packageDirs(t) {
		p, err := build.ImportDir(dir, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			continue // only test files: no non-test imports
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range p.Imports {
			rel, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			rel += "/"
			switch {
			case dir == "store/" && rel != "store/table/":
				t.Errorf("store imports %s: the domain imports no package of the module but the storage contract, store/table", imp)
			case dir == "store/table/":
				t.Errorf("store/table imports %s: the storage contract imports no package of the module (no domain package)", imp)
			case slices.Contains(backends, rel) && !slices.Contains(wiring, dir) && !strings.HasPrefix(dir, rel):
				t.Errorf("%s imports the backend %s: only the binary's wiring chooses a backend (package storespec)", dir, imp)
			case strings.HasPrefix(dir, "store/") && !strings.HasPrefix(rel, "store/"):
				t.Errorf("%s imports %s: the store's packages import only store packages (main installs tracing, metrics come through table.Accountant)", dir, imp)
			}
		}
	}
}

// edgePackages serve GraphQL over HTTP for any schema: they know requests,
// replies and operations, not what the operations are about.
var edgePackages = []string{"internal/gqlhttp"}

// livePackages carry GraphQL operations over live connections, each with
// the only domain packages it may depend on: the events (live) and their
// filters (store, with the storage contract it imports, store/table).
var livePackages = map[string][]string{"live/livehttp": {"live", "store", "store/table"}}

// policyPackages decide what an operation may ask for and who may ask it,
// each with the only domain packages it may depend on: the store (its
// error codes and usage, with store/table) and the live transport (which
// requests are live ones, with the events it imports).
var policyPackages = map[string][]string{"internal/policy": {"store", "store/table", "live", "live/livehttp"}}

// domainPackages are the packages that know comments, each with the
// packages under it: the store (its types, rules and backends), the
// schema's generated code, the resolvers, live updates, node ids and the
// demo data. Anything importing one of them (package metrics counts store
// calls) is domain too, which `go list -deps` shows.
var domainPackages = []string{"store/", "graph/", "resolvers/", "live/", "nodeid/", "demo/"}

// goListDeps returns the import paths of pkg's non-test dependencies, pkg
// included, as `go list -deps` prints them.
func goListDeps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, ee.Stderr)
		}
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// readmeLayoutBlocks returns the plain code blocks (``` without a
// language) of README.md's "## Layout" section, each as the first field (a
// path) of its non-empty lines.
func readmeLayoutBlocks(t *testing.T) [][]string {
	t.Helper()
	f, err := os.Open("README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks [][]string
	in, fenced, plain := false, false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## Layout"
		case !in:
		case strings.HasPrefix(line, "```"):
			fenced = !fenced
			plain = fenced && line == "```"
			if plain {
				blocks = append(blocks, nil)
			}
		case plain && strings.TrimSpace(line) != "":
			b := &blocks[len(blocks)-1]
			*b = append(*b, strings.Fields(line)[0])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks
}

// packageDirs returns the directories of the module that hold Go files,
// written "./" for the root, else "dir/", sorted.
// It skips node_modules, testdata, hidden and underscore directories, and
// nested modules.
func packageDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && (name == "node_modules" || name == "testdata" ||
				strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); path != "." && err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") {
			if dir := filepath.ToSlash(filepath.Dir(path)) + "/"; !slices.Contains(dirs, dir) {
				dirs = append(dirs, dir)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(dirs)
	return dirs
}

// modulePath returns the module path declared in go.mod.
func modulePath(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(m), `"`)
		}
	}
	t.Fatal("go.mod declares no module")
	return ""
}

// duplicates returns the values that occur more than once in list.
func duplicates(list []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range list {
		if seen[s] && !slices.Contains(out, s) {
			out = append(out, s)
		}
		seen[s] = true
	}
	return out
}
