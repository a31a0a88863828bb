package gqlhttp

import (
	"context"
	"sync"
	"time"

	"github.com/acme/comments-gateway/internal/bytecache"
)

// MicroCacheConfig configures the optional in-process cache of whole GET
// responses (off when TTL is 0). It keeps only public, error-free query
// responses with a max-age, each for the smaller of TTL and its max-age,
// keyed by the request's URL query (document or persisted-query hash,
// variables, operation name) and Accept header; requests with credentials or
// X-Explain bypass it. Entries beyond MaxBytes are evicted, least recently
// used first (package bytecache). Identical requests that miss together
// are run once. What it does is told to the observer NewCache is given.
type MicroCacheConfig struct {
	// TTL is how long an entry is served (0: no micro-cache).
	TTL time.Duration
	// MaxBytes bounds the entries' bytes, encoded copies included
	// (DefaultMicroCacheBytes when 0).
	MaxBytes int64
	// Compress is the compression the chain applies outside the cache; a
	// hit is served from the encoded copy kept for its Accept-Encoding
	// (microencode.go). Nil: no compression, no copies.
	Compress Middleware
}

// DefaultMicroCacheBytes bounds the micro-cache when MaxBytes is 0.
const DefaultMicroCacheBytes = 64 << 20

// microEntryOverhead is what an entry costs besides its key, body and
// header values (the struct and the body's slice), counted in its size.
const microEntryOverhead = 128

// microEntry is one cached response.
type microEntry struct {
	key          string
	body         []byte
	encoding     string // an encoded copy's Content-Encoding; "" for a reply
	contentType  string
	cacheControl string
	etag         string
	expires      time.Time
}

// size is the entry's weight in the cache besides its key.
func (e *microEntry) size() int64 {
	return bytecache.TextBytes(len(e.body)) + int64(len(e.encoding)+len(e.contentType)+len(e.cacheControl)+len(e.etag)+microEntryOverhead)
}

// microCache is the micro-cache: a byte-bounded LRU of responses
// (package bytecache) whose entries expire, and the flights of the misses
// being run; safe for concurrent use.
type microCache struct {
	ttl      time.Duration
	now      func() time.Time
	compress Middleware         // the chain's compression; nil: none
	lookups  bytecache.Observer // hits and misses, counted here (see countJoined); nil: none
	store    *bytecache.Cache[*microEntry]

	mu       sync.Mutex
	inflight map[string]*flight // misses being run, by key
}

// flight is a missed request being run while identical requests wait for
// its response instead of running it too (no stampede when a hot entry
// expires).
type flight struct {
	done  chan struct{}
	entry *microEntry // set before done is closed; nil: not cacheable
}

// newMicroCache returns the micro-cache cfg describes, or nil when it is
// off; what it does is told to obs (nil: nothing).
func newMicroCache(cfg MicroCacheConfig, obs bytecache.Observer) *microCache {
	if cfg.TTL <= 0 {
		return nil
	}
	maxBytes := cfg.MaxBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMicroCacheBytes
	}
	c := &microCache{ttl: cfg.TTL, now: time.Now, compress: cfg.Compress, lookups: obs, inflight: map[string]*flight{}}
	bc := bytecache.Config[*microEntry]{
		MaxBytes: maxBytes,
		Weigh:    func(_ string, e *microEntry) int64 { return e.size() },
		Stale:    func(e *microEntry) bool { return !c.now().Before(e.expires) },
	}
	if obs != nil {
		bc.Observer = uncountedLookups{obs}
	}
	c.store = bytecache.New(bc)
	return c
}

// uncountedLookups passes on what a cache observes but its lookups: the
// micro-cache counts those itself.
type uncountedLookups struct{ bytecache.Observer }

// Lookup counts nothing.
func (uncountedLookups) Lookup(bool) {}

// getOrJoin looks key up: a live entry is a hit (e); on a miss, when an
// identical request is being run, the caller waits for its flight (wait)
// and counts its own outcome (see countJoined); otherwise the caller leads
// a new flight (lead), runs the request and must end the flight with land.
func (c *microCache) getOrJoin(key string) (e *microEntry, wait, lead *flight) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.store.Get(context.Background(), key); ok {
		c.lookup(true)
		return e, nil, nil
	}
	if f, ok := c.inflight[key]; ok {
		return nil, f, nil
	}
	f := &flight{done: make(chan struct{})}
	c.inflight[key] = f
	c.lookup(false)
	return nil, nil, f
}

// countJoined counts the lookup of a request that waited for a flight: a
// hit when the flight's response was served to it, a miss when it had to
// run itself.
func (c *microCache) countJoined(served bool) { c.lookup(served) }

// lookup counts one lookup, a hit or a miss.
func (c *microCache) lookup(hit bool) {
	if c.lookups != nil {
		c.lookups.Lookup(hit)
	}
}

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
	e.expires = c.now().Add(min(c.ttl, time.Duration(maxAge)*time.Second))
	c.store.Add(context.Background(), e.key, e)
}
