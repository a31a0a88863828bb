package metrics

import "github.com/prometheus/client_golang/prometheus"

// caches are the metrics of the in-process caches (package bytecache),
// one series per cache, labelled by its name: its lookups by result, so
// that hits / (hits + misses) is its hit rate, its evictions, the entries
// it refused as too large, and its size in entries and bytes.
type caches struct {
	lookups   *prometheus.CounterVec
	evictions *prometheus.CounterVec
	oversize  *prometheus.CounterVec
	entries   *prometheus.GaugeVec
	bytes     *prometheus.GaugeVec
}

func newCaches() caches {
	gaugeVec := func(name, help string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, []string{"cache"})
	}
	return caches{
		lookups: counterVec("comments_cache_lookups_total",
			"Lookups in an in-process cache, by cache and result (hit or miss).", "cache", "result"),
		evictions: counterVec("comments_cache_evictions_total",
			"Entries evicted from an in-process cache to stay within its byte budget (expired entries not included).", "cache"),
		oversize: counterVec("comments_cache_oversize_total",
			"Entries an in-process cache did not keep because they were too large (used once, then freed).", "cache"),
		entries: gaugeVec("comments_cache_entries", "Entries held by an in-process cache."),
		bytes: gaugeVec("comments_cache_bytes",
			"Bytes held by an in-process cache: the estimated memory its entries keep reachable, keys included."),
	}
}

func (c caches) collectors() []prometheus.Collector {
	return []prometheus.Collector{c.lookups, c.evictions, c.oversize, c.entries, c.bytes}
}

// Cache is the metrics of one in-process cache; it is the cache's
// bytecache.Observer. A nil *Cache records nothing.
type Cache struct {
	hits, misses, evictions, oversize prometheus.Counter
	entries, bytes                    prometheus.Gauge
}

// Cache returns the metrics of the cache called name (its label value);
// nil when c is nil.
func (c *Collectors) Cache(name string) *Cache {
	if c == nil {
		return nil
	}
	m := c.caches
	return &Cache{
		hits: m.lookups.WithLabelValues(name, "hit"), misses: m.lookups.WithLabelValues(name, "miss"),
		evictions: m.evictions.WithLabelValues(name), oversize: m.oversize.WithLabelValues(name),
		entries: m.entries.WithLabelValues(name), bytes: m.bytes.WithLabelValues(name),
	}
}

// Lookup counts one lookup, a hit or a miss.
func (m *Cache) Lookup(hit bool) {
	switch {
	case m == nil:
	case hit:
		m.hits.Inc()
	default:
		m.misses.Inc()
	}
}

// Evicted counts n evicted entries.
func (m *Cache) Evicted(n int) {
	if m != nil && n > 0 {
		m.evictions.Add(float64(n))
	}
}

// Oversize counts one entry not kept for its size.
func (m *Cache) Oversize() {
	if m != nil {
		m.oversize.Inc()
	}
}

// Size records the cache's entries and bytes.
func (m *Cache) Size(entries int, bytes int64) {
	if m != nil {
		m.entries.Set(float64(entries))
		m.bytes.Set(float64(bytes))
	}
}
