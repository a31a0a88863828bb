package metrics

import "github.com/prometheus/client_golang/prometheus"

// MicroCache is the metrics of the in-process HTTP micro-cache
// (resolvers.MicroCacheConfig): its lookups by result, so that
// hits / (hits + misses) is its hit rate, its evictions and its size.
// A nil *MicroCache records nothing.
type MicroCache struct {
	lookups   *prometheus.CounterVec
	evictions prometheus.Counter
	bytes     prometheus.Gauge
}

// NewMicroCache registers the micro-cache's collectors on reg.
func NewMicroCache(reg prometheus.Registerer) *MicroCache {
	m := &MicroCache{
		lookups: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "comments_http_micro_cache_lookups_total",
			Help: "Lookups of GET /graphql responses in the in-process micro-cache, by result (hit or miss).",
		}, []string{"result"}),
		evictions: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "comments_http_micro_cache_evictions_total",
			Help: "Micro-cache entries evicted to stay within -micro-cache-bytes (expired entries not included).",
		}),
		bytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "comments_http_micro_cache_bytes",
			Help: "Bytes held by the micro-cache's entries (bodies, keys and headers).",
		}),
	}
	reg.MustRegister(m.lookups, m.evictions, m.bytes)
	return m
}

// Lookup counts one lookup, a hit or a miss.
func (m *MicroCache) Lookup(hit bool) {
	if m == nil {
		return
	}
	result := "miss"
	if hit {
		result = "hit"
	}
	m.lookups.WithLabelValues(result).Inc()
}

// Evicted counts n evicted entries.
func (m *MicroCache) Evicted(n int) {
	if m != nil && n > 0 {
		m.evictions.Add(float64(n))
	}
}

// SetBytes records the cache's current size.
func (m *MicroCache) SetBytes(n int64) {
	if m != nil {
		m.bytes.Set(float64(n))
	}
}
