package livehttp

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestBatchConnPacesSends: writes to a quiet connection are sent at once,
// up to pacedBurst of them; the writes that follow wait, and leave
// together when the next send is due (never sooner than an interval
// after the first), or at once when the queue is full or the connection
// closes. (Counts are asserted with an interval of an hour only: a
// machine that pauses a test for a short interval would make them
// wrong.)
func TestBatchConnPacesSends(t *testing.T) {
	t.Run("held while the interval runs", func(t *testing.T) {
		client, server := loopbackPair(t)
		cc := &countingConn{Conn: server}
		c := newBatchConn(cc, time.Second, time.Hour)
		want := burst(t, c) + "one;two;three;"
		for _, m := range []string{"one;", "two;", "three;"} {
			if _, err := c.Write([]byte(m)); err != nil {
				t.Fatal(err)
			}
		}
		if n := cc.writes.Load(); n != pacedBurst {
			t.Fatalf("%d sends right after the burst and three more writes, want %d (the burst's)", n, pacedBurst)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if n := cc.writes.Load(); n != pacedBurst+1 {
			t.Errorf("%d sends, want %d (the burst's, then the three held, together at Close)", n, pacedBurst+1)
		}
		if got, err := io.ReadAll(client); err != nil || string(got) != want {
			t.Errorf("the peer got %q (%v), want %q", got, err, want)
		}
	})
	t.Run("sent when due, never sooner", func(t *testing.T) {
		const interval = 50 * time.Millisecond
		client, server := loopbackPair(t)
		c := newBatchConn(server, time.Second, interval)
		defer c.Close()
		start := time.Now()
		want := burst(t, c) + "one;two;three;"
		for _, m := range []string{"one;", "two;", "three;"} {
			if _, err := c.Write([]byte(m)); err != nil {
				t.Fatal(err)
			}
		}
		_ = client.SetReadDeadline(time.Now().Add(10 * time.Second))
		got := make([]byte, len(want))
		if _, err := io.ReadFull(client, got); err != nil || string(got) != want {
			t.Fatalf("the peer got %q (%v), want %q without a Close", got, err, want)
		}
		if since := time.Since(start); since < interval {
			t.Errorf("the writes after the burst arrived %v after the first, before the %v interval ended", since, interval)
		}
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
	const events = pacedBurst + 2
	newWriter := func(interval time.Duration) (*sseWriter, *flushCounter) {
		rec := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
		return &sseWriter{ResponseWriter: rec, rc: http.NewResponseController(rec), timeout: time.Second, pace: pacer{interval: interval}}, rec
	}
	writeAll := func(t *testing.T, w *sseWriter) {
		for i := range events {
			if err := w.writeNext([]byte(fmt.Sprintf(`{"data":%d}`, i))); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Run("held while the interval runs", func(t *testing.T) {
		w, rec := newWriter(time.Hour)
		writeAll(t, w)
		if n := rec.flushes.Load(); n != pacedBurst {
			t.Fatalf("%d flushes right after %d events, want %d (the burst)", n, events, pacedBurst)
		}
		w.stop()
		if err := w.writeNext([]byte(`{"data":"late"}`)); err == nil {
			t.Error("an event written after stop")
		}
		if got := rec.Body.String(); strings.Count(got, "event: next") != events {
			t.Errorf("body %q, want the %d events (the server flushes the rest when the handler returns)", got, events)
		}
	})
	t.Run("flushed when due, nothing after stop", func(t *testing.T) {
		w, rec := newWriter(30 * time.Millisecond)
		writeAll(t, w)
		waitFor(t, func() bool { return rec.flushes.Load() > pacedBurst })
		w.stop()
		n := rec.flushes.Load()
		time.Sleep(60 * time.Millisecond)
		if m := rec.flushes.Load(); m != n {
			t.Errorf("%d flushes after stop, want none", m-n)
		}
	})
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
