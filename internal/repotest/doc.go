// Package repotest holds the tests of the repository as a whole, run from
// the module's root: the root holds main only, every path README.md's
// Layout section names exists, every package has its doc.go, the imports
// follow docs/design.md §1, every document under docs/ is reachable from
// README.md by links that resolve, and no file holds a merge conflict
// marker. It has no code of its own. Function length is golangci-lint's
// funlen (.golangci.yml).
package repotest
