package main

import (
	"os"
	"runtime/debug"
)

// serveGCPercent is serve's garbage collection target when the environment
// sets no GOGC. A serving gateway's live heap is small (the embedded store
// is memory-mapped, DynamoDB remote) while each page request allocates about
// 250 KB, so Go's default of 100 collects every hundred-odd requests; at 400
// the heap may grow to five times the live heap between collections (tens of
// MB) for a quarter of the collections: 25–40% less CPU per page request on
// BenchmarkHandler (docs/BENCHMARKS.md, "Request path"). GOGC and GOMEMLIMIT
// in the environment still rule.
const serveGCPercent = 400

// tuneServeGC applies serveGCPercent unless GOGC is set.
func tuneServeGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(serveGCPercent)
	}
}
