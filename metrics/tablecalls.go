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
	if m := s.m.Load(); m != nil {
		if c, ok := (*m)[key]; ok {
			return c
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.m.Load()
	if old != nil {
		if c, ok := (*old)[key]; ok {
			return c
		}
	}
	m := maps.Clone(derefOrNil(old))
	if m == nil {
		m = map[[2]string]prometheus.Counter{}
	}
	c := s.vec.WithLabelValues(op, index)
	m[key] = c
	s.m.Store(&m)
	return c
}

// derefOrNil is *m, or nil for a nil m.
func derefOrNil(m *map[[2]string]prometheus.Counter) map[[2]string]prometheus.Counter {
	if m == nil {
		return nil
	}
	return *m
}
