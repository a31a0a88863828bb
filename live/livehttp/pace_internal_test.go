package livehttp

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestBatchConnPacesSends: a write to a quiet connection is sent at once;
// writes within the interval of that send wait, and leave together when
// the interval ends (never sooner), or at once when the queue is full or
// the connection closes.
func TestBatchConnPacesSends(t *testing.T) {
	t.Run("held for the interval, then together", func(t *testing.T) {
		const interval = 50 * time.Millisecond
		client, server := loopbackPair(t)
		cc := &countingConn{Conn: server}
		c := newBatchConn(cc, time.Second, interval)
		start := time.Now()
		for _, m := range []string{"one;", "two;", "three;"} {
			if _, err := c.Write([]byte(m)); err != nil {
				t.Fatal(err)
			}
		}
		if n := cc.writes.Load(); n != 1 {
			t.Fatalf("%d sends right after three writes, want 1 (the first)", n)
		}
		want := "one;two;three;"
		got := make([]byte, len(want))
		if _, err := io.ReadFull(client, got); err != nil || string(got) != want {
			t.Fatalf("the peer got %q (%v), want %q", got, err, want)
		}
		if since := time.Since(start); since < interval {
			t.Errorf("the paced writes arrived %v after the first, before the %v interval ended", since, interval)
		}
		if n := cc.writes.Load(); n != 2 {
			t.Errorf("%d sends, want 2 (the first, then the two paced together)", n)
		}
		c.Close()
	})
	t.Run("a full queue and Close go at once", func(t *testing.T) {
		client, server := loopbackPair(t)
		cc := &countingConn{Conn: server}
		c := newBatchConn(cc, time.Second, time.Hour)
		big := bytes.Repeat([]byte("x"), maxPendingWrite)
		for _, p := range [][]byte{[]byte("a"), []byte("b"), big, []byte("c")} {
			if _, err := c.Write(p); err != nil {
				t.Fatal(err)
			}
		}
		if n := cc.writes.Load(); n != 2 {
			t.Errorf("%d sends, want 2: the first, then the queue that reached maxPendingWrite", n)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		want := "ab" + string(big) + "c"
		got, err := io.ReadAll(client)
		if err != nil || string(got) != want {
			t.Errorf("the peer got %d bytes (%v), want the %d written, in order", len(got), err, len(want))
		}
	})
}

// flushCounter is a ResponseWriter that counts its flushes.
type flushCounter struct {
	*httptest.ResponseRecorder
	flushes atomic.Int32
}

func (w *flushCounter) Flush() { w.flushes.Add(1); w.ResponseRecorder.Flush() }

// TestSSEWriterPacesFlushes: an SSE stream's `next` events are flushed as
// a websocket's are sent: the first at once, those within the interval
// together when it ends; after stop, nothing is flushed.
func TestSSEWriterPacesFlushes(t *testing.T) {
	rec := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
	w := &sseWriter{ResponseWriter: rec, rc: http.NewResponseController(rec), timeout: time.Second, pace: pacer{interval: 30 * time.Millisecond}}
	for _, p := range []string{`{"data":1}`, `{"data":2}`, `{"data":3}`} {
		if err := w.writeNext([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	if n := rec.flushes.Load(); n != 1 {
		t.Fatalf("%d flushes right after three events, want 1 (the first)", n)
	}
	waitFor(t, func() bool { return rec.flushes.Load() == 2 })
	w.stop()
	if err := w.writeNext([]byte(`{"data":4}`)); err == nil {
		t.Error("an event written after stop")
	}
	time.Sleep(60 * time.Millisecond)
	if n := rec.flushes.Load(); n != 2 {
		t.Errorf("%d flushes after stop, want still 2", n)
	}
	w.mu.Lock() // the recorder is not safe for concurrent use
	defer w.mu.Unlock()
	if got := rec.Body.String(); bytes.Count([]byte(got), []byte("event: next")) != 3 {
		t.Errorf("body %q, want the three events", got)
	}
}
