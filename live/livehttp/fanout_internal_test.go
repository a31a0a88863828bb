package livehttp

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// recordingWriter records what a member does with its writer, and
// signals each release.
type recordingWriter struct {
	calls    []string
	released chan struct{}
}

func (w *recordingWriter) writeNext(payload []byte) error {
	w.calls = append(w.calls, string(payload))
	return nil
}

func (w *recordingWriter) hold() { w.calls = append(w.calls, "hold") }

func (w *recordingWriter) release() error {
	w.calls = append(w.calls, "release")
	w.released <- struct{}{}
	return nil
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
