package gqlhttp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/internal/bytecache"
)

// fakeClock is a settable clock for the micro-cache's expiry (no sleeping).
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func mustMicro(t *testing.T, ttl time.Duration, maxBytes int64) (*microCache, *fakeClock) {
	t.Helper()
	c := newMicroCache(MicroCacheConfig{TTL: ttl, MaxBytes: maxBytes}, nil)
	clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	c.now = clk.now
	return c, clk
}

func entry(key string, bodyLen int) *microEntry {
	return &microEntry{key: key, body: []byte(strings.Repeat("x", bodyLen))}
}

// get looks key up in c's store (no flight, no lookup counted).
func (c *microCache) get(key string) (*microEntry, bool) {
	return c.store.Get(context.Background(), key)
}

// weight is what e weighs in the micro-cache's store.
func weight(e *microEntry) int64 {
	return int64(len(e.key)) + bytecache.EntryOverhead + e.size()
}

func TestMicroCacheOffWithoutTTL(t *testing.T) {
	if c := newMicroCache(MicroCacheConfig{MaxBytes: 1 << 20}, nil); c != nil {
		t.Errorf("a micro-cache without a TTL: %+v", c)
	}
}

func TestMicroCacheExpiresAfterTTLOrMaxAge(t *testing.T) {
	c, clk := mustMicro(t, 500*time.Millisecond, 1<<20)
	c.put(entry("a", 10), 60) // the TTL is shorter than max-age
	c.put(entry("b", 10), 0)  // max-age 0 (the handler never stores these)
	clk.t = clk.t.Add(499 * time.Millisecond)
	if _, ok := c.get("a"); !ok {
		t.Errorf("a expired before its TTL")
	}
	if _, ok := c.get("b"); ok {
		t.Errorf("b outlived its max-age 0")
	}
	clk.t = clk.t.Add(time.Millisecond)
	if _, ok := c.get("a"); ok {
		t.Errorf("a outlived its TTL")
	}
	if c.store.Bytes() != 0 || c.store.Len() != 0 {
		t.Errorf("expired entries still counted: %d bytes, %d keys", c.store.Bytes(), c.store.Len())
	}

	c, clk = mustMicro(t, time.Hour, 1<<20)
	c.put(entry("short", 10), 2) // max-age 2 s is shorter than the TTL
	clk.t = clk.t.Add(2 * time.Second)
	if _, ok := c.get("short"); ok {
		t.Errorf("an entry outlived its max-age")
	}
}

func TestMicroCacheEvictsLeastRecentlyUsed(t *testing.T) {
	one := weight(entry("k0", 1000))
	c, _ := mustMicro(t, time.Hour, 8*one) // eight entries fit exactly
	for i := range 8 {
		c.put(entry("k"+string(rune('0'+i)), 1000), 60)
	}
	if c.store.Bytes() != 8*one {
		t.Fatalf("%d bytes, want %d", c.store.Bytes(), 8*one)
	}
	c.get("k0") // k0 is now the most recently used; k1 the least
	c.put(entry("k8", 1000), 60)
	if _, ok := c.get("k1"); ok {
		t.Errorf("k1, the least recently used, was kept")
	}
	for _, k := range []string{"k0", "k2", "k7", "k8"} {
		if _, ok := c.get(k); !ok {
			t.Errorf("%s was evicted", k)
		}
	}
	if c.store.Bytes() > 8*one {
		t.Errorf("%d bytes over the bound %d", c.store.Bytes(), 8*one)
	}
	// Replacing a key does not count it twice.
	c.put(entry("k8", 1000), 60)
	if c.store.Bytes() != 8*one || c.store.Len() != 8 {
		t.Errorf("after replacing k8: %d bytes, %d entries", c.store.Bytes(), c.store.Len())
	}
	// An entry over an eighth of the bound is not kept.
	c.put(entry("huge", int(one)), 60)
	if _, ok := c.get("huge"); ok {
		t.Errorf("an entry of more than an eighth of the bound was kept")
	}
}

func TestMicroCacheCollapsesIdenticalMisses(t *testing.T) {
	c, _ := mustMicro(t, time.Hour, 1<<20)
	e, wait, lead := c.getOrJoin("page")
	if e != nil || wait != nil || lead == nil {
		t.Fatalf("first miss: %v %v %v, want to lead", e, wait, lead)
	}
	var waits []*flight
	for range 3 {
		e, wait, l := c.getOrJoin("page")
		if e != nil || l != nil || wait != lead {
			t.Fatalf("identical miss during the flight: %v %v %v, want to wait for it", e, wait, l)
		}
		waits = append(waits, wait)
	}
	if _, _, other := c.getOrJoin("other page"); other == nil || other == lead {
		t.Fatalf("another key joined the flight")
	}
	c.land("page", lead, entry("page", 10), 60)
	for _, w := range waits {
		<-w.done
		if w.entry == nil || w.entry.key != "page" {
			t.Errorf("a waiter got %+v", w.entry)
		}
	}
	if e, _, _ := c.getOrJoin("page"); e == nil {
		t.Errorf("the flight's entry was not stored")
	}
	// A flight whose response is not cacheable releases its waiters with
	// nothing; the next miss leads again.
	_, _, l := c.getOrJoin("uncacheable")
	_, w, _ := c.getOrJoin("uncacheable")
	c.land("uncacheable", l, nil, 0)
	<-w.done
	if w.entry != nil {
		t.Errorf("waiter of an uncacheable flight got %+v", w.entry)
	}
	if _, _, again := c.getOrJoin("uncacheable"); again == nil {
		t.Errorf("after an uncacheable flight, the next miss does not lead")
	}
}
