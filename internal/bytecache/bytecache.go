package bytecache

import (
	"context"
	"sync"
)

// EntryOverhead is what an entry costs besides its key and value: its list
// node, its map slot and their headers. Every entry's weight includes it.
const EntryOverhead = 128

// TextBytes is what a string or byte slice of n bytes keeps allocated: its
// length rounded up to the allocator's size class or page, with room to
// spare. Weigh functions use it for the texts and bodies they hold.
func TextBytes(n int) int64 { return int64(n + n/4 + 64) }

// Observer is told what a cache does; package metrics implements it. Its
// methods are called with the cache's lock held, so they must not call
// the cache.
type Observer interface {
	// Lookup counts one Get, a hit or a miss.
	Lookup(hit bool)
	// Evicted counts n entries evicted to stay within MaxBytes or
	// MaxEntries.
	Evicted(n int)
	// Oversize counts one entry not kept because it weighs more than
	// MaxEntryBytes.
	Oversize()
	// Size reports the cache's entries and their bytes after a change.
	Size(entries int, bytes int64)
}

// Config configures a Cache of values of type V.
type Config[V any] struct {
	// MaxBytes bounds the sum of the entries' weights (required, > 0).
	MaxBytes int64
	// MaxEntryBytes is the heaviest entry kept (MaxBytes/8 when 0).
	MaxEntryBytes int64
	// MaxEntries, when positive, also bounds the number of entries.
	MaxEntries int
	// Weigh estimates the bytes value keeps reachable beyond the key and
	// EntryOverhead, which the cache adds. It must not err on the low side:
	// the cache's bound is only as good as it.
	Weigh func(key string, value V) int64
	// Stale, when set, says that an entry must not be served any more (it
	// expired): Get drops it and reports a miss.
	Stale func(value V) bool
	// Observer, when set, is told of lookups, evictions and the size.
	Observer Observer
}

// Cache is a least-recently-used cache bounded in bytes; safe for
// concurrent use. The zero Cache is not usable: call New.
type Cache[V any] struct {
	cfg Config[V]

	mu      sync.Mutex
	bytes   int64
	byKey   map[string]*entry[V]
	newest  *entry[V] // most recently used; its prev is the oldest (a ring)
	entries int
}

// entry is one key and value, a node of the ring of entries.
type entry[V any] struct {
	key        string
	value      V
	weight     int64
	prev, next *entry[V]
}

// New returns an empty cache. It panics when cfg.MaxBytes is not positive
// or cfg.Weigh is nil (a programming error).
func New[V any](cfg Config[V]) *Cache[V] {
	if cfg.MaxBytes <= 0 || cfg.Weigh == nil {
		panic("bytecache: MaxBytes must be positive and Weigh set")
	}
	if cfg.MaxEntryBytes <= 0 {
		cfg.MaxEntryBytes = cfg.MaxBytes / 8
	}
	return &Cache[V]{cfg: cfg, byKey: map[string]*entry[V]{}}
}

// Get returns key's value and marks it most recently used.
func (c *Cache[V]) Get(_ context.Context, key string) (value V, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.byKey[key]
	if e != nil && c.cfg.Stale != nil && c.cfg.Stale(e.value) {
		c.remove(e)
		c.observeSize()
		e = nil
	}
	if o := c.cfg.Observer; o != nil {
		o.Lookup(e != nil)
	}
	if e == nil {
		return value, false
	}
	c.unlink(e)
	c.pushNewest(e)
	return e.value, true
}

// Add stores value under key (replacing any value it had), then evicts
// the least recently used entries until the cache is within its bounds.
// A value whose entry would weigh more than MaxEntryBytes is not stored,
// and any older value of key is dropped.
func (c *Cache[V]) Add(_ context.Context, key string, value V) {
	w := int64(len(key)) + EntryOverhead + c.cfg.Weigh(key, value)
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.byKey[key]; old != nil {
		c.remove(old)
	}
	if w > c.cfg.MaxEntryBytes {
		if o := c.cfg.Observer; o != nil {
			o.Oversize()
		}
		c.observeSize()
		return
	}
	e := &entry[V]{key: key, value: value, weight: w}
	c.byKey[key] = e
	c.pushNewest(e)
	c.bytes += w
	c.entries++
	evicted := 0
	for c.bytes > c.cfg.MaxBytes || (c.cfg.MaxEntries > 0 && c.entries > c.cfg.MaxEntries) {
		c.remove(c.newest.prev)
		evicted++
	}
	if o := c.cfg.Observer; o != nil && evicted > 0 {
		o.Evicted(evicted)
	}
	c.observeSize()
}

// Len is the number of entries.
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries
}

// Bytes is the sum of the entries' weights.
func (c *Cache[V]) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// remove drops e; c.mu is held.
func (c *Cache[V]) remove(e *entry[V]) {
	c.unlink(e)
	delete(c.byKey, e.key)
	c.bytes -= e.weight
	c.entries--
}

// pushNewest puts e first in the ring; c.mu is held.
func (c *Cache[V]) pushNewest(e *entry[V]) {
	if c.newest == nil {
		e.prev, e.next = e, e
	} else {
		e.next, e.prev = c.newest, c.newest.prev
		e.prev.next, e.next.prev = e, e
	}
	c.newest = e
}

// unlink takes e out of the ring; c.mu is held.
func (c *Cache[V]) unlink(e *entry[V]) {
	if e.next == e {
		c.newest = nil
	} else {
		e.prev.next, e.next.prev = e.next, e.prev
		if c.newest == e {
			c.newest = e.next
		}
	}
	e.prev, e.next = nil, nil
}

func (c *Cache[V]) observeSize() {
	if o := c.cfg.Observer; o != nil {
		o.Size(c.entries, c.bytes)
	}
}
