package store

import "sync"

// maxHints bounds the stats a Store keeps as hints (about 100 bytes each).
const maxHints = 10_000

// statsHints are the stats a Store last read, per product and language: a
// hint that sizes a merge's first reads while its stats load (see
// ListComments). A hint may be stale, or missing; it never decides what a
// page holds, unless it is current: read by ReadStats from a table that
// counts its writes, with no write counted since (see current).
type statsHints struct {
	mu  sync.Mutex
	m   map[StatsID]hint
	sum [6]int64 // the hints' counts per rating, summed (prior)
}

// hint is the stats of one product and language as last read and, when
// counted, the table's write count before they were read.
type hint struct {
	st      Stats
	writes  uint64
	counted bool
}

// get returns the hint for id, or nil.
func (h *statsHints) get(id StatsID) *Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	e, ok := h.m[id]
	if !ok {
		return nil
	}
	return &e.st
}

// current returns the stats of ids when every one of them was read with
// the table's write count at writes, which is still its count: no write
// has returned since they were read (table.WriteCounter says why they are
// then what a read would return); false otherwise.
func (h *statsHints) current(ids []StatsID, writes uint64) ([]*Stats, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*Stats, len(ids)) // a miss reads the stats: its make is nothing beside that
	for i, id := range ids {
		e, ok := h.m[id]
		if !ok || !e.counted || e.writes != writes {
			return nil, false
		}
		out[i] = &e.st
	}
	return out, true
}

// put records st as the hint for its product and language (see hint for
// writes and counted); when full, an arbitrary hint makes room. ReadStats
// puts every stats it reads.
func (h *statsHints) put(st *Stats, writes uint64, counted bool) {
	if st == nil {
		return
	}
	id := StatsID{ProductID: st.ProductID, Language: st.Language}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[StatsID]hint{}
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
		h.sum[r] += st.Counts[r] - old.st.Counts[r]
	}
	h.m[id] = hint{st: *st, writes: writes, counted: counted}
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
