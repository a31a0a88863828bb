package metrics

import (
	"maps"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// tableSeries keeps the series of one table counter (op and index
// labels) once made: a page request makes two or three Table calls, and
// CounterVec.WithLabelValues validates, hashes and looks up its labels on
// each (1% of a served page's CPU). The labels come from the store's code
// (table.Call's Op and the indexes), a handful of values, so the series
// are few and never deleted. A series is made when first counted, as
// before: a counter never added to is not exported.
type tableSeries struct {
	vec *prometheus.CounterVec
	mu  sync.Mutex                                       // serializes misses
	m   atomic.Pointer[map[[2]string]prometheus.Counter] // copied on write; lookups take no lock
}

// counter returns the series of op and index.
func (s *tableSeries) counter(op, index string) prometheus.Counter {
	key := [2]string{op, index}
	if c, ok := s.lookup(key); ok {
		return c
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.lookup(key); ok { // made while this call waited
		return c
	}
	m := map[[2]string]prometheus.Counter{key: s.vec.WithLabelValues(op, index)}
	if old := s.m.Load(); old != nil {
		maps.Copy(m, *old)
	}
	s.m.Store(&m)
	return m[key]
}

// lookup returns the series of key, if made.
func (s *tableSeries) lookup(key [2]string) (prometheus.Counter, bool) {
	m := s.m.Load()
	if m == nil {
		return nil, false
	}
	c, ok := (*m)[key]
	return c, ok
}
