// Package bolttest opens the embedded store for tests: Open gives a test a
// bolt.Table on a new file in its temporary directory and closes it (a
// failed Close fails the test) when the test ends.
package bolttest
