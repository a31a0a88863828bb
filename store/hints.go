package store

import "sync"

// maxHints bounds the stats a Store keeps as hints (about 100 bytes each).
const maxHints = 10_000

// statsHints are the stats a Store last read, per product and language: a
// hint that sizes a merge's first reads while its stats load (see
// ListComments). A hint may be stale, or missing; it never decides what a
// page holds.
type statsHints struct {
	mu  sync.Mutex
	m   map[StatsID]Stats
	sum [6]int64 // the hints' counts per rating, summed (prior)
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
	old, ok := h.m[id]
	if !ok && len(h.m) >= maxHints {
		for k, v := range h.m {
			old = v
			delete(h.m, k)
			break
		}
	}
	for r := range h.sum {
		h.sum[r] += st.Counts[r] - old.Counts[r]
	}
	h.m[id] = *st
}

// prior returns the counts of all the hints summed, per rating: how the
// ratings of the products this Store has read are shared, which sizes a
// merge that has neither stats nor a hint (planBlind).
func (h *statsHints) prior() [6]int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sum
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
