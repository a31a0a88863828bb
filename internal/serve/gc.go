package serve

import (
	"os"

	"github.com/acme/comments-gateway/internal/heapfloor"
)

// serve's garbage collection when the environment sets no GOGC: a target of
// serveGCPercent above a heap floor of serveHeapFloor (package heapfloor). A
// serving gateway's live heap is small (the embedded store is
// memory-mapped, DynamoDB remote: a few MB) while each page request
// allocates about 120 KB, so Go's default of 100 collects every few dozen
// requests. At 400 the heap may grow to five times the live heap between
// collections: 25–40% less CPU per page request than at 100 on
// BenchmarkHandler. The floor lets a small heap grow to 64 MB between
// collections (a GOGC of about 1,500 for a 4 MB live heap): 12% less CPU
// per filtered page 1 again, under wrk on the 1M-comment file
// (docs/BENCHMARKS.md, "Request path (served)"). A live heap over 13 MB
// is collected at 400 as before. GOGC and GOMEMLIMIT in the environment
// still rule.
const (
	serveGCPercent = 400
	serveHeapFloor = 64 << 20
)

// TuneGC applies serveGCPercent and serveHeapFloor unless GOGC is set,
// and returns the function that stops the floor.
func TuneGC() (stop func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	return heapfloor.Hold(serveHeapFloor, serveGCPercent)
}
