package resolvers

import (
	"container/list"
	"sync"
	"time"

	"github.com/acme/comments-gateway/metrics"
)

// MicroCacheConfig configures the optional in-process cache of whole GET
// responses (off when TTL is 0). It keeps only public, error-free query
// responses with a max-age, each for the smaller of TTL and its max-age,
// keyed by the request's URL query (document or persisted-query hash,
// variables, operation name) and Accept header; requests with credentials or
// X-Explain bypass it. Entries beyond MaxBytes are evicted, least recently
// used first. Identical requests that miss together are run once.
type MicroCacheConfig struct {
	// TTL is how long an entry is served (0: no micro-cache).
	TTL time.Duration
	// MaxBytes bounds the entries' bytes (DefaultMicroCacheBytes when 0).
	MaxBytes int64
	// Metrics, when set, counts hits, misses and evictions.
	Metrics *metrics.MicroCache
}

// DefaultMicroCacheBytes bounds the micro-cache when MaxBytes is 0.
const DefaultMicroCacheBytes = 64 << 20

// microEntryOverhead is what an entry costs besides its key, body and
// header values (list element, map slot, struct), counted in its size.
const microEntryOverhead = 256

// microEntry is one cached response.
type microEntry struct {
	key          string
	body         []byte
	contentType  string
	cacheControl string
	etag         string
	expires      time.Time
}

func (e *microEntry) size() int64 {
	return int64(len(e.key) + len(e.body) + len(e.contentType) + len(e.cacheControl) + len(e.etag) + microEntryOverhead)
}

// microCache is a byte-bounded LRU of responses with a TTL; safe for
// concurrent use. (A hand-written list + map: the well-kept Go LRUs bound
// entries by count, not bytes, or admit entries probabilistically.)
type microCache struct {
	ttl      time.Duration
	maxBytes int64
	metrics  *metrics.MicroCache
	now      func() time.Time

	mu       sync.Mutex
	bytes    int64
	order    *list.List // of *microEntry, most recently used first
	byKey    map[string]*list.Element
	inflight map[string]*flight // misses being run, by key
}

// flight is a missed request being run while identical requests wait for
// its response instead of running it too (no stampede when a hot entry
// expires).
type flight struct {
	done  chan struct{}
	entry *microEntry // set before done is closed; nil: not cacheable
}

// newMicroCache returns the micro-cache cfg describes, or nil when it is off.
func newMicroCache(cfg MicroCacheConfig) *microCache {
	if cfg.TTL <= 0 {
		return nil
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMicroCacheBytes
	}
	return &microCache{ttl: cfg.TTL, maxBytes: cfg.MaxBytes, metrics: cfg.Metrics, now: time.Now,
		order: list.New(), byKey: map[string]*list.Element{}, inflight: map[string]*flight{}}
}

// get returns the live entry of key, counting a hit or a miss.
func (c *microCache) get(key string) (*microEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if ok && !c.now().Before(el.Value.(*microEntry).expires) {
		c.remove(el)
		ok = false
	}
	c.metrics.Lookup(ok)
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*microEntry), true
}

// getOrJoin looks key up: a live entry is a hit (e); on a miss, when an
// identical request is being run, the caller waits for its flight (wait)
// and counts its own outcome (see countJoined); otherwise the caller leads
// a new flight (lead), runs the request and must end the flight with land.
func (c *microCache) getOrJoin(key string) (e *microEntry, wait, lead *flight) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		if e := el.Value.(*microEntry); c.now().Before(e.expires) {
			c.order.MoveToFront(el)
			c.metrics.Lookup(true)
			return e, nil, nil
		}
		c.remove(el)
	}
	if f, ok := c.inflight[key]; ok {
		return nil, f, nil
	}
	f := &flight{done: make(chan struct{})}
	c.inflight[key] = f
	c.metrics.Lookup(false)
	return nil, nil, f
}

// countJoined counts the lookup of a request that waited for a flight: a
// hit when the flight's response was served to it, a miss when it had to
// run itself.
func (c *microCache) countJoined(served bool) { c.metrics.Lookup(served) }

// land ends the flight f of key: e (nil when the response was not
// cacheable) is stored for maxAge seconds at most and handed to the
// requests that waited.
func (c *microCache) land(key string, f *flight, e *microEntry, maxAge int) {
	if e != nil {
		c.put(e, maxAge)
	}
	c.mu.Lock()
	delete(c.inflight, key)
	c.mu.Unlock()
	f.entry = e
	close(f.done)
}

// put stores e for the smaller of the TTL and maxAge seconds, evicting the
// least recently used entries past the byte bound. An entry larger than an
// eighth of the bound is not kept (it would flush the hot pages).
func (c *microCache) put(e *microEntry, maxAge int) {
	if e.size() > c.maxBytes/8 {
		return
	}
	ttl := min(c.ttl, time.Duration(maxAge)*time.Second)
	c.mu.Lock()
	defer c.mu.Unlock()
	e.expires = c.now().Add(ttl)
	if el, ok := c.byKey[e.key]; ok {
		c.remove(el)
	}
	c.byKey[e.key] = c.order.PushFront(e)
	c.bytes += e.size()
	evicted := 0
	for c.bytes > c.maxBytes {
		c.remove(c.order.Back())
		evicted++
	}
	c.metrics.Evicted(evicted)
	c.metrics.SetBytes(c.bytes)
}

// remove drops el; c.mu is held.
func (c *microCache) remove(el *list.Element) {
	e := c.order.Remove(el).(*microEntry)
	delete(c.byKey, e.key)
	c.bytes -= e.size()
	c.metrics.SetBytes(c.bytes)
}
