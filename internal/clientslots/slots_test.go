package clientslots

import (
	"sync"
	"testing"
)

// TestClientSlots: a client gets limit slots and no more; a release gives
// one back, once; other clients and API keys ("") are not counted against
// it; a client holding nothing is forgotten.
func TestClientSlots(t *testing.T) {
	s := New(2)
	r1, ok1 := s.Take("ip:a")
	r2, ok2 := s.Take("ip:a")
	if !ok1 || !ok2 {
		t.Fatal("the first two slots were refused")
	}
	if _, ok := s.Take("ip:a"); ok {
		t.Fatal("a third slot was given at limit 2")
	}
	if _, ok := s.Take("ip:b"); !ok {
		t.Error("another client was refused")
	}
	for range 10 {
		if _, ok := s.Take(""); !ok {
			t.Fatal("an API key was refused")
		}
	}
	r1()
	r1() // again: nothing more is given back
	r3, ok := s.Take("ip:a")
	if !ok {
		t.Fatal("a released slot was not given again")
	}
	if _, ok := s.Take("ip:a"); ok {
		t.Fatal("a second release of one slot gave back two")
	}
	r2()
	r3()
	if n := s.held["ip:a"]; n != 0 {
		t.Errorf("ip:a holds %d slots after releasing all", n)
	}
	if _, ok := s.held[""]; ok {
		t.Error("an API key was counted")
	}
}

// TestClientSlotsNoBound: a limit of 0 or less refuses nothing.
func TestClientSlotsNoBound(t *testing.T) {
	s := New(-1)
	for range 100 {
		if _, ok := s.Take("ip:a"); !ok {
			t.Fatal("refused without a bound")
		}
	}
}

// TestClientSlotsConcurrent: under contention, never more than limit at
// once, and every slot comes back.
func TestClientSlotsConcurrent(t *testing.T) {
	const limit = 4
	s := New(limit)
	var mu sync.Mutex
	var now, peak int
	var wg sync.WaitGroup
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				release, ok := s.Take("ip:a")
				if !ok {
					continue
				}
				mu.Lock()
				now++
				peak = max(peak, now)
				mu.Unlock()
				mu.Lock()
				now--
				mu.Unlock()
				release()
			}
		}()
	}
	wg.Wait()
	if peak > limit {
		t.Errorf("%d slots were held at once; the limit is %d", peak, limit)
	}
	if len(s.held) != 0 {
		t.Errorf("slots left held: %v", s.held)
	}
}
