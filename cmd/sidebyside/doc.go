// Command sidebyside is the load generator of scripts/bench-postgraphile.sh:
// it runs issue 15's four page scenarios against the gateway and against
// PostGraphile (with postgraphile-plugin-connection-filter) over the same
// comments, in alternating rounds, checks that both return the same comment
// ids on every page of every response, and prints requests per second and
// the servers' CPU time per request, read from /proc.
//
// Before the load it walks the filtered list of the product on both systems,
// page by page, and stops with an error at the first page whose ids differ.
// The walk gives each system's own cursors (cursors are opaque and differ
// between the systems) and the ids expected on each page; under load every
// response is checked against those ids, and a mismatch counts as an error.
//
// CPU per request is the CPU time (utime + stime) of every process in the
// process trees given by -gateway-pids and -postgraphile-pids during a
// scenario's run, plus the time of the children the tree's roots reaped in
// that run (PostgreSQL's backends are children of the postmaster), divided
// by the requests answered.
//
// It only targets loopback addresses. Not part of the tests.
package main
