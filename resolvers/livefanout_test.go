package resolvers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/live/livehttp"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// mustAck opens a graphql-transport-ws connection and reads its ack.
func (e *liveEnv) mustAck(tb testing.TB) *wsConn {
	tb.Helper()
	w := e.mustWS(tb, nil)
	if msg, _ := w.read(tb); msg["type"] != "connection_ack" {
		tb.Fatalf("got %v, want connection_ack", msg)
	}
	return w
}

// nextPayload reads w's next message, which must be a `next`, and returns
// its payload's JSON.
func (w *wsConn) nextPayload(tb testing.TB) string {
	tb.Helper()
	msg, closed := w.read(tb)
	if msg["type"] != "next" {
		tb.Fatalf("got %v (close %d), want next", msg, closed)
	}
	return jsonString(msg["payload"])
}

// mustCreate creates a comment on product pid titled title.
func (e *liveEnv) mustCreate(tb testing.TB, pid, title string) *store.Comment {
	tb.Helper()
	c, err := e.store.CreateComment(context.Background(), store.NewComment{ProductID: pid, Language: "en", Rating: 3, Author: "a", Title: title, Body: "b"})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// TestFanoutOneExecutionPerOperation: subscribers of the same operation, on
// websockets and SSE, receive the same payload, made by one execution per
// event: the store is read once for all of them (independent count: the
// table's BatchGet calls), and a subscriber of another selection gets its
// own.
func TestFanoutOneExecutionPerOperation(t *testing.T) {
	var spy *spyTable
	e := mustLiveEnvOn(t, resolvers.Config{}, livehttp.Config{}, 0, func(t table.Table) table.Table { spy = newSpy(t); return spy })
	const shared = `subscription { commentAdded(productId: "p1") { title product { stats { total } } } }`
	var ws []*wsConn
	for range 3 {
		w := e.mustAck(t)
		w.subscribe(t, "s", shared)
		ws = append(ws, w)
	}
	other := e.mustAck(t)
	other.subscribe(t, "o", `subscription { commentAdded(productId: "p1") { title } }`)
	sse := e.mustSSE(t, shared)
	for e.live.Subscriptions() != 5 { // subscribing is asynchronous
		time.Sleep(time.Millisecond)
	}
	spy.Reset()
	e.mustCreate(t, "p2", "alone") // a write no one subscribed to: the write's own reads
	alone := spy.Calls("BatchGet")
	spy.Reset()
	e.mustCreate(t, "p1", "shared")
	var payloads []string
	for _, w := range ws {
		payloads = append(payloads, w.nextPayload(t))
	}
	_, data := sse.event()
	var ev map[string]any
	if err := json.Unmarshal([]byte(data), &ev); err != nil {
		t.Fatalf("SSE event %q: %v", data, err)
	}
	payloads = append(payloads, jsonString(ev))
	const want = `"data":{"commentAdded":{"product":{"stats":{"total":1}},"title":"shared"}}` // keys sorted by jsonString
	for i, p := range payloads {
		if !strings.Contains(p, want) {
			t.Errorf("subscriber %d got %s, want %s", i, p, want)
		}
	}
	if got := other.nextPayload(t); !strings.Contains(got, `"commentAdded":{"title":"shared"}`) {
		t.Errorf("the other selection's subscriber got %s", got)
	}
	if got := spy.Calls("BatchGet") - alone; got != 1 {
		t.Errorf("the four subscribers of one operation made %d store batch reads for one event, want 1 (%s)", got, spy.CallsString())
	}
	// Each event is executed afresh: no read is cached from the last one.
	e.mustCreate(t, "p1", "second")
	if got := ws[0].nextPayload(t); !strings.Contains(got, `"total":2`) {
		t.Errorf("second event: %s, want the new total 2", got)
	}
}

// TestFanoutSlowMemberAlone: in a group, the subscriber that stalls is
// ended with SLOW_CONSUMER while the others get every event; a subscriber
// that leaves does not stop the others' events, whoever it was.
func TestFanoutSlowMemberAlone(t *testing.T) {
	e := mustLiveEnvBuffer(t, 2)
	const query = `subscription { commentAdded(productId: "p1") { title } }`
	b, _ := json.Marshal(map[string]any{"query": query})
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	stalled := &stallingWriter{header: http.Header{}, stallAt: 2, release: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.handler.ServeHTTP(stalled, req)
	}()
	for e.live.Subscriptions() != 1 { // the stalled subscriber is the group's first
		time.Sleep(time.Millisecond)
	}
	a, b2 := e.mustAck(t), e.mustAck(t)
	a.subscribe(t, "a", query)
	b2.subscribe(t, "b", query)
	for e.live.Subscriptions() != 3 {
		time.Sleep(time.Millisecond)
	}
	// One event at a time, read by a and b before the next: they never
	// hold more than one, while the stalled one holds t0 in its write, t1
	// and t2 in its queue, and overflows at t3.
	for i := range 6 {
		e.mustCreate(t, "p1", fmt.Sprint("t", i))
		for _, w := range []*wsConn{a, b2} {
			if got, want := w.nextPayload(t), fmt.Sprintf(`"title":"t%d"`, i); !strings.Contains(got, want) {
				t.Fatalf("got %s, want %s", got, want)
			}
		}
	}
	close(stalled.release)
	<-done
	if body := stalled.buf.String(); !strings.Contains(body, `"code":"SLOW_CONSUMER"`) || !strings.HasSuffix(body, "event: complete\n\n") {
		t.Errorf("stalled stream:\n%s\nwant a SLOW_CONSUMER error event, then complete", body)
	}
	// a leaves (it has executed the group's events since the stalled one
	// was dropped); b still gets the next event.
	a.c.CloseNow()
	for e.live.Conns() != 1 {
		time.Sleep(time.Millisecond)
	}
	e.mustCreate(t, "p1", "after")
	if got := b2.nextPayload(t); !strings.Contains(got, `"title":"after"`) {
		t.Errorf("after a left, b got %s", got)
	}
}
