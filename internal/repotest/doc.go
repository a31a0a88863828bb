// Package repotest holds the tests of the repository as a whole, run from
// the module's root: the root holds main only, README.md's Layout section
// lists every package, every package has its doc.go, the imports follow
// docs/design.md §1, and no file holds a merge conflict marker. It has no
// code of its own. Function length is golangci-lint's funlen
// (.golangci.yml).
package repotest
