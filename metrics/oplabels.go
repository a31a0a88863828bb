package metrics

import (
	"hash/maphash"
	"sync"
)

// The operation label's values are chosen by frequency, not arrival:
// operation names come from clients, so at most maxOperations of them are
// labels at a time and the rest count as "other". A name that is not a
// label is counted in a count-min sketch (fixed memory, whatever the
// names); when its count reaches promoteMin and is more than twice the
// least frequent label's, it takes that label's place, whose series are
// deleted. Every count is halved each halveEvery requests, so the labels
// follow the recent traffic: a name that stopped being used loses its
// place to one in use, while a flood of distinct names, each seen once,
// never reaches promoteMin and leaves the labels alone.
const (
	maxOperations  = 200
	maxOpNameBytes = 100 // a longer name is always "other"
	promoteMin     = 16
	halveEvery     = 10_000
	sketchRows     = 4
	sketchWidth    = 4096 // 64 KiB; a cell's noise under a flood of distinct names settles near 2 × halveEvery / sketchWidth ≈ 5
)

// fixedLabels are the operation labels the gateway itself sets, never
// evicted: "invalid" (no operation ran), "unknown" (no name), "other".
var fixedLabels = map[string]bool{"invalid": true, "unknown": true, "other": true}

// opLabels chooses the operation label's values (see above). Its zero
// value is ready; evict, when set, deletes a label's series.
type opLabels struct {
	mu      sync.Mutex
	seed    maphash.Seed
	labels  map[string]uint32 // the client-chosen labels, with their counts
	sketch  [sketchRows][sketchWidth]uint32
	since   int // requests since the counts were last halved
	evicted func(name string)
}

// observe returns op's label, counting one request of op, and runs record
// with it under the lock, so that an evicted label's series cannot be
// recreated by a request that was given it.
func (o *opLabels) observe(op string, record func(label string)) {
	if op == "" {
		op = "unknown"
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	record(o.label(op))
}

func (o *opLabels) label(op string) string {
	if fixedLabels[op] {
		return op
	}
	if o.labels == nil {
		o.labels, o.seed = map[string]uint32{}, maphash.MakeSeed()
	}
	if o.since++; o.since >= halveEvery {
		o.halve()
	}
	if n, ok := o.labels[op]; ok {
		o.labels[op] = n + 1
		return op
	}
	if len(op) > maxOpNameBytes {
		return "other"
	}
	if len(o.labels) < maxOperations {
		o.labels[op] = 1
		return op
	}
	n := o.count(op)
	if n < promoteMin {
		return "other"
	}
	rare, least := o.leastFrequent()
	if n <= 2*least {
		return "other"
	}
	delete(o.labels, rare)
	if o.evicted != nil {
		o.evicted(rare)
	}
	o.labels[op] = n
	return op
}

// count adds one to op's cells in the sketch and returns its estimate
// (the least of its cells: never below its true count since the last
// halving).
func (o *opLabels) count(op string) uint32 {
	h := maphash.String(o.seed, op)
	est := ^uint32(0)
	for r := range o.sketch {
		c := &o.sketch[r][(h>>(16*r))%sketchWidth]
		*c++
		est = min(est, *c)
	}
	return est
}

// leastFrequent returns the label with the smallest count.
func (o *opLabels) leastFrequent() (string, uint32) {
	name, least := "", ^uint32(0)
	for n, c := range o.labels {
		if c < least {
			name, least = n, c
		}
	}
	return name, least
}

// halve halves every count, labels' and sketch's.
func (o *opLabels) halve() {
	o.since = 0
	for n, c := range o.labels {
		o.labels[n] = c / 2
	}
	for r := range o.sketch {
		for i := range o.sketch[r] {
			o.sketch[r][i] /= 2
		}
	}
}
