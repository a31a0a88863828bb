package heapfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// TestPercentFor: the goal live × (1 + GOGC/100) is the floor while the
// live heap is small, and GOGC is percent once the live heap alone reaches
// the floor.
func TestPercentFor(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		live, floor uint64
		percent     int
		want        int
	}{
		{4 * mb, 64 * mb, 400, 1500},     // 4 MB × 16 = 64 MB
		{8 * mb, 64 * mb, 400, 700},      // 8 MB × 8 = 64 MB
		{64 * mb / 5, 64 * mb, 400, 400}, // 12.8 MB × 5 = 64 MB: the floor and the percent meet
		{20 * mb, 64 * mb, 400, 400},     // past the floor: the percent alone
		{100 * mb, 64 * mb, 400, 400},    // a live heap over the floor
		{0, 64 * mb, 400, maxPercent},    // nothing live yet
		{1, 64 * mb, 400, maxPercent},    // bounded
		{4 * mb, 0, 400, 400},            // no floor
	} {
		got := PercentFor(c.live, c.floor, c.percent)
		if got != c.want {
			t.Errorf("PercentFor(%d, %d, %d) = %d, want %d", c.live, c.floor, c.percent, got, c.want)
		}
		if goal := c.live * uint64(100+got) / 100; c.live > 0 && got < maxPercent && goal < min(c.floor, c.live*uint64(100+c.percent)/100) {
			t.Errorf("live %d: goal %d is under the floor %d", c.live, goal, c.floor)
		}
	}
}

// TestHoldSetsGOGCAfterACollection: with a floor far above this test's
// live heap, the first collection after Hold raises GOGC over percent, and
// stop puts it back at percent.
func TestHoldSetsGOGCAfterACollection(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	stop := Hold(1<<30, 150)
	if got := gogc(); got != 150 {
		t.Fatalf("GOGC %d right after Hold, want 150", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for gogc() == 150 {
		if time.Now().After(deadline) {
			t.Fatal("GOGC still 150 after collections: the floor was never applied")
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the finalizer runs in its own goroutine
	}
	if got := gogc(); got <= 150 {
		t.Fatalf("GOGC %d under a 1 GB floor, want more than 150", got)
	}
	stop()
	if got := gogc(); got != 150 {
		t.Fatalf("GOGC %d after stop, want 150", got)
	}
	runtime.GC()
	time.Sleep(10 * time.Millisecond)
	if got := gogc(); got != 150 {
		t.Fatalf("GOGC %d after stop and a collection, want 150", got)
	}
}

// gogc reads the current GOGC.
func gogc() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}
