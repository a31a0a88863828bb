package store

import "sync"

// maxHints bounds the stats a Store keeps as hints (about 100 bytes each).
const maxHints = 10_000

// statsHints are the stats a Store last read, per product and language: a
// hint that sizes a merge's first reads while its stats load (see
// ListComments). A hint may be stale, or missing; it never decides what a
// page holds.
type statsHints struct {
	mu sync.Mutex
	m  map[StatsID]Stats
}

// get returns the hint for id, or nil.
func (h *statsHints) get(id StatsID) *Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	st, ok := h.m[id]
	if !ok {
		return nil
	}
	return &st
}

// put records st as the hint for its product and language; when full, an
// arbitrary hint makes room.
func (h *statsHints) put(st *Stats) {
	if st == nil {
		return
	}
	id := StatsID{ProductID: st.ProductID, Language: st.Language}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[StatsID]Stats{}
	}
	if _, ok := h.m[id]; !ok && len(h.m) >= maxHints {
		for k := range h.m {
			delete(h.m, k)
			break
		}
	}
	h.m[id] = *st
}

// hintPlan plans page reads of `need` items from a hint instead of the
// stats, or returns false when the hint counts a selected rating as empty
// (it may be stale, and only the stats may skip a partition: the caller
// waits for them). The plan is exact whatever the hint says: a broad read
// keeps every selected rating, and the merge refills whatever runs dry.
func hintPlan(pid string, f Filter, hint *Stats, need int, sz Sizing) (Plan, bool) {
	p := planQuery(pid, f, hint, need, sz)
	if p.Strategy == StrategyEmpty || len(p.Skipped) > 0 {
		return Plan{}, false
	}
	if p.Keep != nil {
		p.Keep = f.Ratings
	}
	return p, true
}
