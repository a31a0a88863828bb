// Command sidebyside is the load generator of scripts/bench-postgraphile.sh:
// it runs issue 15's four page scenarios against the gateway and against
// PostGraphile (with postgraphile-plugin-connection-filter) over the same
// comments, in alternating rounds, checks that both return the same comment
// ids on every page of every response, and prints requests per second and
// the servers' CPU time per request, read from /proc.
// -postgraphile-version (5, or 4) picks how the page query is spelled.
//
// Before the load it walks the filtered list of the product on both systems,
// page by page, and stops with an error at the first page whose ids,
// totalCount or hasNextPage differ. The walk gives each system's own cursors
// (cursors are opaque and differ between the systems), the ids expected on
// each page, and each page's request body and reply bytes on each system
// (the second reply to the request, as a load sees it).
//
// The load measures the servers, not itself: each client replays the
// request bodies the walk encoded (no encoding per request), over one
// kept-alive connection, reading replies into a buffer it reuses. Every reply
// is still checked: one byte-identical to the walk's reply for that page is
// right without decoding; any other is decoded and is right only when it has
// no GraphQL error and the walk's ids, totalCount and hasNextPage (the
// "slow" column counts these; an error counts otherwise). The table gives the
// load generator's own CPU per request (utime + stime of /proc/self during
// the run), so that a reader sees what the client costs: a client that costs
// a large share of a core caps the cheaper server's req/s.
//
// -wrk PATH drives the load with wrk instead (2 threads, -concurrency
// connections) and replay.lua, which sends the same bodies round robin and
// counts every reply that is not a 200 byte-identical to one the walk
// recorded as an error (wrk does not decode JSON); wrk's CPU time is the
// client's. -only runs the scenarios whose name starts with its value.
//
// CPU per request is the CPU time (utime + stime) of every process in the
// process trees given by -gateway-pids and -postgraphile-pids during a
// scenario's run, plus the time of the children the tree's roots reaped in
// that run (PostgreSQL's backends are children of the postmaster), divided
// by the requests answered.
//
// The summary gives two views of the rounds: the ratio of each system's
// median, and each round's own ratio (the two systems' runs of a round
// next to each other in time) as a median and a range. On a shared box
// the peer's CPU a request can move by half between runs; the range says
// how far a single round can be trusted.
//
// It only targets loopback addresses. Not part of the tests.
package main
