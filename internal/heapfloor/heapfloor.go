package heapfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// maxPercent bounds the GOGC a floor sets, for a nearly empty live heap.
const maxPercent = 100_000

// Hold keeps the heap's collection goal at max(floor, live × (1 +
// percent/100)) bytes, setting GOGC after every collection, until stop is
// called (which leaves GOGC at percent). It sets GOGC to percent at once.
func Hold(floor uint64, percent int) (stop func()) {
	h := &holder{floor: floor, percent: percent,
		live: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	debug.SetGCPercent(percent)
	h.arm()
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.stopped = true
		debug.SetGCPercent(percent)
	}
}

// PercentFor is the GOGC that makes the collection goal of a live heap of
// live bytes max(floor, live × (1 + percent/100)).
func PercentFor(live, floor uint64, percent int) int {
	if live == 0 {
		return maxPercent
	}
	if live >= floor {
		return percent
	}
	return min(maxPercent, max(percent, int(floor*100/live)-100))
}

// holder is one Hold.
type holder struct {
	floor   uint64
	percent int
	live    []metrics.Sample
	mu      sync.Mutex // the finalizer's tune against stop
	stopped bool
}

// sentinel is garbage the moment it is made: its finalizer runs once a
// collection has found it unreachable, that is after every collection
// while each finalizer arms the next. It holds a pointer so that the
// allocator does not batch it with other tiny objects.
type sentinel struct{ h *holder }

// arm makes the sentinel of the next collection.
func (h *holder) arm() {
	runtime.SetFinalizer(&sentinel{h}, func(s *sentinel) {
		s.h.mu.Lock()
		defer s.h.mu.Unlock()
		if !s.h.stopped {
			s.h.tune()
			s.h.arm()
		}
	})
}

// tune sets GOGC from the live heap the last collection measured.
func (h *holder) tune() {
	metrics.Read(h.live)
	if h.live[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	debug.SetGCPercent(PercentFor(h.live[0].Value.Uint64(), h.floor, h.percent))
}
