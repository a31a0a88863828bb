package bytecache_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/99designs/gqlgen/graphql"

	"github.com/acme/comments-gateway/internal/bytecache"
)

var _ graphql.Cache[string] = (*bytecache.Cache[string])(nil)

// observer records what a cache tells it.
type observer struct {
	hits, misses, evicted, oversize, entries int
	bytes                                    int64
}

func (o *observer) Lookup(hit bool) {
	if hit {
		o.hits++
	} else {
		o.misses++
	}
}
func (o *observer) Evicted(n int)                 { o.evicted += n }
func (o *observer) Oversize()                     { o.oversize++ }
func (o *observer) Size(entries int, bytes int64) { o.entries, o.bytes = entries, bytes }

// textWeight weighs a string value by its length.
func textWeight(_ string, v string) int64 { return int64(len(v)) }

// weight is what an entry of key and a value of n bytes weighs.
func weight(key string, n int) int64 { return int64(len(key)+n) + bytecache.EntryOverhead }

func keys(c *bytecache.Cache[string], ks ...string) (present []string) {
	for _, k := range ks {
		if _, ok := c.Get(context.Background(), k); ok {
			present = append(present, k)
		}
	}
	return present
}

func TestEvictsLeastRecentlyUsedByBytes(t *testing.T) {
	ctx := context.Background()
	o := &observer{}
	// Room for three entries of 1,000 bytes, not four.
	c := bytecache.New(bytecache.Config[string]{MaxBytes: 3*weight("k0", 1000) + 10, MaxEntryBytes: 2000, Weigh: textWeight, Observer: o})
	v := strings.Repeat("v", 1000)
	for _, k := range []string{"k0", "k1", "k2"} {
		c.Add(ctx, k, v)
	}
	c.Get(ctx, "k0") // k1 is now the least recently used
	c.Add(ctx, "k3", v)
	if got := fmt.Sprint(keys(c, "k0", "k1", "k2", "k3")); got != "[k0 k2 k3]" {
		t.Errorf("after adding a fourth entry: %s, want [k0 k2 k3]", got)
	}
	if c.Len() != 3 || c.Bytes() != 3*weight("k0", 1000) || o.evicted != 1 || o.entries != 3 || o.bytes != c.Bytes() {
		t.Errorf("len %d, bytes %d, observer %+v", c.Len(), c.Bytes(), *o)
	}
	// One large entry evicts as many as it needs.
	c.Add(ctx, "big", strings.Repeat("b", 1800))
	if got := fmt.Sprint(keys(c, "k0", "k2", "k3", "big")); got != "[k3 big]" {
		t.Errorf("after a large entry: %s, want [k3 big]", got)
	}
	if o.evicted != 3 {
		t.Errorf("evicted %d, want 3", o.evicted)
	}
}

func TestOversizeEntryIsNotKept(t *testing.T) {
	ctx := context.Background()
	o := &observer{}
	c := bytecache.New(bytecache.Config[string]{MaxBytes: 8000, Weigh: textWeight, Observer: o}) // entries up to 1,000 bytes
	c.Add(ctx, "small", "s")
	c.Add(ctx, "doc", "short")
	c.Add(ctx, "doc", strings.Repeat("x", 1000)) // replaces the value: too large, so dropped
	if got := fmt.Sprint(keys(c, "small", "doc")); got != "[small]" {
		t.Errorf("after an oversize value: %s, want [small]", got)
	}
	if o.oversize != 1 || o.evicted != 0 || c.Len() != 1 || c.Bytes() != weight("small", 1) || o.bytes != c.Bytes() {
		t.Errorf("len %d, bytes %d, observer %+v", c.Len(), c.Bytes(), *o)
	}
	// The key counts: a long key alone may make an entry oversize.
	c.Add(ctx, strings.Repeat("k", 900), "")
	if c.Len() != 1 || o.oversize != 2 {
		t.Errorf("a 900-byte key with MaxEntryBytes 1000: len %d, oversize %d", c.Len(), o.oversize)
	}
}

func TestMaxEntriesAndStale(t *testing.T) {
	ctx := context.Background()
	o := &observer{}
	c := bytecache.New(bytecache.Config[string]{MaxBytes: 1 << 20, MaxEntries: 2, Weigh: textWeight, Observer: o,
		Stale: func(v string) bool { return v == "expired" }})
	c.Add(ctx, "a", "1")
	c.Add(ctx, "b", "expired")
	c.Add(ctx, "c", "3")
	if got := fmt.Sprint(keys(c, "a", "b", "c")); got != "[c]" {
		t.Errorf("two entries at most, b stale: %s, want [c]", got)
	}
	if _, ok := c.Get(ctx, "b"); ok || c.Len() != 1 {
		t.Errorf("a stale entry was served (or kept): len %d", c.Len())
	}
	if o.hits != 1 || o.misses != 3 || o.evicted != 1 {
		t.Errorf("observer %+v, want 1 hit, 3 misses, 1 evicted", *o)
	}
}

// TestConcurrentUse runs under -race: Get and Add from many goroutines keep
// the cache within its bound.
func TestConcurrentUse(t *testing.T) {
	ctx := context.Background()
	c := bytecache.New(bytecache.Config[string]{MaxBytes: 50_000, Weigh: textWeight})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				k := fmt.Sprint((g*7 + i) % 300)
				if _, ok := c.Get(ctx, k); !ok {
					c.Add(ctx, k, strings.Repeat("v", i%500))
				}
			}
		})
	}
	wg.Wait()
	if c.Bytes() > 50_000 {
		t.Errorf("%d bytes, bound 50,000", c.Bytes())
	}
}

func TestNewRefusesNoBound(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New with MaxBytes 0 did not panic")
		}
	}()
	bytecache.New(bytecache.Config[string]{Weigh: textWeight})
}
