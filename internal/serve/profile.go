package serve

import "runtime"

// sampleHeapForPprof turns off Go's sampling of allocations for the heap
// profile unless -pprof serves the profiles. The runtime samples one
// allocation every 512 KB by default, recording its stack, and a page
// request allocates about 120 KB: the samples cost 2% of the CPU of a
// filtered page 1 (pprof of the 1M-comment benchmark), for a profile that
// nobody can read without -pprof.
func sampleHeapForPprof(pprof bool) {
	if !pprof {
		runtime.MemProfileRate = 0
	}
}
