package livehttp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
)

// recordingWriter records what a member does with its writer, and
// signals each release.
type recordingWriter struct {
	mu       sync.Mutex
	calls    []string
	released chan struct{}
	sendAt   time.Time    // what nextSend returns
	asked    atomic.Int32 // nextSend calls: the member is about to wait
}

func (w *recordingWriter) writeNext(payload []byte) error {
	w.record(string(payload))
	return nil
}

func (w *recordingWriter) hold() { w.record("hold") }

func (w *recordingWriter) release() error {
	w.record("release")
	w.released <- struct{}{}
	return nil
}

func (w *recordingWriter) nextSend() time.Time {
	w.asked.Add(1)
	return w.sendAt
}

func (w *recordingWriter) record(call string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, call)
}

func (w *recordingWriter) written() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.calls, " ")
}

// TestMemberWritesQueuedDeliveriesTogether: deliveries queued behind the
// one a member takes are written between one hold and its release, in
// order, none lost; one that arrives later is a write of its own; a
// closed queue ends the member after what was queued before it.
func TestMemberWritesQueuedDeliveriesTogether(t *testing.T) {
	w := &recordingWriter{released: make(chan struct{}, 8)}
	m := &fanMember{g: &fanGroup{f: newFanout(nil, nil)}, queue: make(chan delivery, 8), out: w}
	m.once.Do(func() {}) // the group is not started: deliveries are queued by hand
	for i := range 3 {
		m.queue <- delivery{payload: []byte(fmt.Sprint("e", i))}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp := m.next(ctx); resp != nil {
			t.Errorf("next returned %v, want nil at the end", resp)
		}
	}()
	<-w.released // the first three written
	m.queue <- delivery{payload: []byte("e3")}
	m.queue <- delivery{payload: []byte("e4")}
	close(m.queue)
	<-done
	got := strings.Join(w.calls, " ")
	// e3, e4 and the end may be taken together or apart.
	first := "hold e0 e1 e2 release"
	if !strings.HasPrefix(got, first) || strings.Count(got, "hold") != strings.Count(got, "release") ||
		strings.Join(strings.Fields(strings.NewReplacer("hold", "", "release", "").Replace(got)), " ") != "e0 e1 e2 e3 e4" {
		t.Errorf("writer calls %q, want %q, then e3 and e4 held in order", got, first)
	}
}

// TestMemberAwaitsPacedSend: after a write, a member whose connection's
// next send is paced to later does not take the deliveries that arrive
// meanwhile one by one: it waits, and takes them together when its queue
// is half full (the group's nudge) or the pace ends; a closed queue ends
// the wait too.
func TestMemberAwaitsPacedSend(t *testing.T) {
	w := &recordingWriter{released: make(chan struct{}, 8), sendAt: time.Now().Add(time.Hour)}
	f := newFanout(nil, nil)
	g := &fanGroup{f: f}
	m := &fanMember{g: g, queue: make(chan delivery, 4), nudge: make(chan struct{}, 1), out: w, stopDone: func() bool { return true }}
	other := &fanMember{g: g, queue: make(chan delivery, 8), stopDone: func() bool { return true }} // keeps the group from emptying
	g.members = []*fanMember{m, other}
	f.members = 2
	m.once.Do(func() {})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.next(ctx)
	}()
	send := func(name string) { // an event whose payload is {"data":"name"}
		g.deliver(delivery{resp: &graphql.Response{Data: json.RawMessage(strconv.Quote(name))}}, nil, nil, payloads{})
	}
	written := func() string { return strings.NewReplacer(`{"data":"`, "", `"}`, "").Replace(w.written()) }
	send("e0")
	waitFor(t, func() bool { return written() == "e0" && w.asked.Load() == 1 }) // e0 written, the member waiting
	send("e1")
	time.Sleep(50 * time.Millisecond) // time enough to take e1, were it not waiting
	if got := written(); got != "e0" {
		t.Fatalf("writer calls %q while the send is paced an hour away, want only e0", got)
	}
	send("e2") // half of 4: the nudge
	<-w.released
	if got := written(); got != "e0 hold e1 e2 release" {
		t.Errorf("writer calls %q, want e1 and e2 held together after the nudge", got)
	}
	send("e3")
	f.leave(m) // closes the queue: the member ends without waiting an hour
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the member did not end when its queue closed")
	}
	if got := written(); !strings.Contains(got, "e3") {
		t.Errorf("writer calls %q, want e3 written before the end", got)
	}
}

// waitFor waits up to 10 s for cond.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10 s")
		}
		time.Sleep(time.Millisecond)
	}
}
