package store

import (
	"fmt"
	"testing"
)

// TestHintsPrior: the prior is the sum of the hints' counts, whatever
// replaces or evicts a hint; planBlind shares a merge's first reads by
// it when it counts every selected rating, else equally.
func TestHintsPrior(t *testing.T) {
	var h statsHints
	want := func() (sum [6]int64) {
		for _, st := range h.m {
			for r := range sum {
				sum[r] += st.st.Counts[r]
			}
		}
		return sum
	}
	for i := range maxHints + 50 { // the last 50 evict
		st := &Stats{ProductID: fmt.Sprint("p", i%(maxHints+20)), Counts: [6]int64{0, int64(i % 7), 1, 0, 2, int64(i)}}
		h.put(st, uint64(i), i%2 == 0)
	}
	if got := h.prior(); got != want() {
		t.Fatalf("prior %v, want %v", got, want())
	}
	f := Filter{Ratings: []int{1, 3, 5}}
	equal := planBlind("p", f, 21, OneRoundSizing, [6]int64{0, 10, 0, 0, 0, 90}) // no 3-star in the prior
	if l := equal.Partitions[0].Limit; l != equal.Partitions[2].Limit {
		t.Errorf("a rating the prior lacks: limits %v, want equal", equal.Partitions)
	}
	skewed := planBlind("p", f, 21, OneRoundSizing, [6]int64{0, 10, 0, 20, 0, 170})
	if a, b := skewed.Partitions[0].Limit, skewed.Partitions[2].Limit; a >= b || b < 17 || b > 21 {
		t.Errorf("a skewed prior: limits %d (1-star) and %d (5-star)", a, b)
	}
}
