package livehttp

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestBatchConnPacesSends: writes to a quiet connection are sent at once,
// up to pacedBurst of them; the writes that follow wait, and leave
// together when the next send is due (never sooner than an interval
// after the first), or at once when the queue is full or the connection
// closes.
func TestBatchConnPacesSends(t *testing.T) {
	t.Run("held for the interval, then together", func(t *testing.T) {
		const interval = 50 * time.Millisecond
		client, server := loopbackPair(t)
		cc := &countingConn{Conn: server}
		c := newBatchConn(cc, time.Second, interval)
		start := time.Now()
		want := burst(t, c) + "one;two;three;"
		for _, m := range []string{"one;", "two;", "three;"} {
			if _, err := c.Write([]byte(m)); err != nil {
				t.Fatal(err)
			}
		}
		if n := cc.writes.Load(); n != pacedBurst {
			t.Fatalf("%d sends right after the burst and three more writes, want %d (the burst's)", n, pacedBurst)
		}
		got := make([]byte, len(want))
		if _, err := io.ReadFull(client, got); err != nil || string(got) != want {
			t.Fatalf("the peer got %q (%v), want %q", got, err, want)
		}
		if since := time.Since(start); since < interval {
			t.Errorf("the paced writes arrived %v after the first, before the %v interval ended", since, interval)
		}
		if n := cc.writes.Load(); n != pacedBurst+1 {
			t.Errorf("%d sends, want %d (the burst's, then the three paced together)", n, pacedBurst+1)
		}
		c.Close()
	})
	t.Run("a full queue and Close go at once", func(t *testing.T) {
		client, server := loopbackPair(t)
		cc := &countingConn{Conn: server}
		c := newBatchConn(cc, time.Second, time.Hour)
		big := bytes.Repeat([]byte("x"), maxPendingWrite)
		want := burst(t, c) + "ab" + string(big) + "c"
		for _, p := range [][]byte{[]byte("a"), []byte("b"), big} {
			if _, err := c.Write(p); err != nil {
				t.Fatal(err)
			}
		}
		if n := cc.writes.Load(); n != pacedBurst+1 {
			t.Errorf("%d sends, want %d: the burst's, then the queue that reached maxPendingWrite", n, pacedBurst+1)
		}
		if _, err := c.Write([]byte("c")); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(client)
		if err != nil || string(got) != want {
			t.Errorf("the peer got %d bytes (%v), want the %d written, in order", len(got), err, len(want))
		}
	})
}

// burst writes pacedBurst messages to c, a quiet connection (each sent at
// once), and returns them.
func burst(t *testing.T, c *batchConn) string {
	t.Helper()
	var all string
	for i := range pacedBurst {
		m := fmt.Sprintf("burst %d;", i)
		if _, err := c.Write([]byte(m)); err != nil {
			t.Fatal(err)
		}
		all += m
	}
	return all
}

// flushCounter is a ResponseWriter that counts its flushes.
type flushCounter struct {
	*httptest.ResponseRecorder
	flushes atomic.Int32
}

func (w *flushCounter) Flush() { w.flushes.Add(1); w.ResponseRecorder.Flush() }

// TestSSEWriterPacesFlushes: an SSE stream's `next` events are flushed as
// a websocket's are sent: a burst at once, those that follow together
// when the next flush is due; after stop, nothing is flushed.
func TestSSEWriterPacesFlushes(t *testing.T) {
	rec := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
	w := &sseWriter{ResponseWriter: rec, rc: http.NewResponseController(rec), timeout: time.Second, pace: pacer{interval: 30 * time.Millisecond}}
	const events = pacedBurst + 2
	for i := range events {
		if err := w.writeNext([]byte(fmt.Sprintf(`{"data":%d}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	if n := rec.flushes.Load(); n != pacedBurst {
		t.Fatalf("%d flushes right after %d events, want %d (the burst)", n, events, pacedBurst)
	}
	waitFor(t, func() bool { return rec.flushes.Load() == pacedBurst+1 })
	w.stop()
	if err := w.writeNext([]byte(`{"data":4}`)); err == nil {
		t.Error("an event written after stop")
	}
	time.Sleep(60 * time.Millisecond)
	if n := rec.flushes.Load(); n != pacedBurst+1 {
		t.Errorf("%d flushes after stop, want still %d", n, pacedBurst+1)
	}
	w.mu.Lock() // the recorder is not safe for concurrent use
	defer w.mu.Unlock()
	if got := rec.Body.String(); bytes.Count([]byte(got), []byte("event: next")) != events {
		t.Errorf("body %q, want the %d events", got, events)
	}
}

// TestPacerBurstThenInterval: a quiet pacer lets pacedBurst sends go at
// once; the next is due an interval after the first, and waits for it.
func TestPacerBurstThenInterval(t *testing.T) {
	p := pacer{interval: time.Hour}
	defer p.stop()
	flushed := func() { t.Error("the timer called flush an hour early") }
	t0 := time.Now()
	for i := range pacedBurst {
		if !p.ready(flushed) {
			t.Fatalf("send %d of a quiet connection's burst not ready", i+1)
		}
	}
	t1 := time.Now()
	if p.ready(flushed) {
		t.Fatalf("send %d ready at once, want it paced", pacedBurst+1)
	}
	if next := p.next(); next.Before(t0.Add(time.Hour)) || next.After(t1.Add(time.Hour)) {
		t.Errorf("next send due %v after the burst began, want an interval (1h)", next.Sub(t0))
	}
	if off := (pacer{}); !off.ready(flushed) || !off.next().IsZero() {
		t.Error("a pacer of interval 0 paced a send")
	}
}
