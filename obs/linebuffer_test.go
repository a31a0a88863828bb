package obs

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// writes records every Write call it gets.
type writes struct {
	mu    sync.Mutex
	calls []string
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, string(p))
	return len(p), nil
}

func (w *writes) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.calls...)
}

// TestLineBufferBatchesWholeLines: lines written from many goroutines come
// out whole, each exactly once, in fewer writes than lines, and never over
// the size unless one line alone is.
func TestLineBufferBatchesWholeLines(t *testing.T) {
	var w writes
	b := NewLineBuffer(&w, 256, time.Hour)
	fmt.Fprintln(b, "line 0-x (written at once: the buffer was idle)")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				fmt.Fprintf(b, "line %d-%d %s\n", g, i, strings.Repeat("x", i%40))
			}
		}()
	}
	wg.Wait()
	fmt.Fprintf(b, "long %s\n", strings.Repeat("y", 300))
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	calls := w.all()
	seen := map[string]int{}
	for _, c := range calls {
		if !strings.HasSuffix(c, "\n") {
			t.Fatalf("a write ends inside a line: %q", c)
		}
		if len(c) > 256 && strings.Count(c, "\n") > 1 {
			t.Fatalf("a write of %d bytes holds several lines", len(c))
		}
		for _, l := range strings.Split(strings.TrimSuffix(c, "\n"), "\n") {
			seen[l]++
		}
	}
	if len(seen) != 802 {
		t.Fatalf("%d distinct lines, want 802", len(seen))
	}
	for l, n := range seen {
		if n != 1 {
			t.Fatalf("line %q written %d times", l, n)
		}
	}
	if len(calls) >= 801/4 {
		t.Fatalf("%d writes for 801 lines: not batched", len(calls))
	}
	// Per goroutine, the lines keep their order.
	var all bytes.Buffer
	for _, c := range calls {
		all.WriteString(c)
	}
	next := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(all.String()), "\n") {
		var g, i int
		if _, err := fmt.Sscanf(l, "line %d-%d", &g, &i); err != nil {
			continue
		}
		key := fmt.Sprint(g)
		if i != next[key] {
			t.Fatalf("goroutine %d: line %d after %d", g, i, next[key]-1)
		}
		next[key]++
	}
}

// TestLineBufferWritesAnIdleLineAtOnce: the first line goes out at once,
// one that follows it waits until the delay has passed, and after Close
// every line goes out at once.
func TestLineBufferWritesAnIdleLineAtOnce(t *testing.T) {
	var w writes
	b := NewLineBuffer(&w, 1<<16, 50*time.Millisecond)
	fmt.Fprintln(b, "first")
	if got := w.all(); len(got) != 1 || got[0] != "first\n" {
		t.Fatalf("after the first line, writes %q", got)
	}
	fmt.Fprintln(b, "second")
	deadline := time.Now().Add(10 * time.Second)
	for len(w.all()) == 1 {
		if time.Now().After(deadline) {
			t.Fatal("the second line was never written")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := w.all(); len(got) != 2 || got[1] != "second\n" {
		t.Fatalf("writes %q", got)
	}
	_ = b.Close()
	fmt.Fprintln(b, "after close")
	if got := w.all(); len(got) != 3 || got[2] != "after close\n" {
		t.Fatalf("after Close, writes %q", got)
	}
}
