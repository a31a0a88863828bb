package command

import (
	"os"
	"runtime/debug"
)

// The import's garbage collection, when the environment sets neither GOGC
// nor GOMEMLIMIT: a target of importGCPercent, capped by a soft memory
// limit of importMemoryLimit. An import's live heap is small (the blocks
// being parsed, the chunks being encoded and written, at most 500,000 ids of
// the duplicate check: 50–70 MB) while it allocates about 1.5 KB a comment,
// so at Go's default of 100 it collects every 50 MB or so (365 collections
// for 1M comments); at 400 it collects a quarter as often, and the limit
// keeps the heap under 256 MB whatever the input (the collector works
// harder as the heap nears it).
const (
	importGCPercent   = 400
	importMemoryLimit = 192 << 20
)

// tuneImportGC applies importGCPercent and importMemoryLimit unless GOGC or
// GOMEMLIMIT is set, and returns a function that restores what it changed.
func tuneImportGC() (restore func()) {
	_, gogc := os.LookupEnv("GOGC")
	_, limit := os.LookupEnv("GOMEMLIMIT")
	if gogc || limit {
		return func() {}
	}
	oldPercent := debug.SetGCPercent(importGCPercent)
	oldLimit := debug.SetMemoryLimit(importMemoryLimit)
	return func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}
}
