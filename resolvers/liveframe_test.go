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
)

// frameOf returns a websocket message's type, id and payload, the payload
// as sent.
func frameOf(tb testing.TB, b []byte) (typ, id string, payload json.RawMessage) {
	tb.Helper()
	var m struct {
		Type    string
		ID      string
		Payload json.RawMessage
	}
	if err := json.Unmarshal(b, &m); err != nil {
		tb.Fatal(err)
	}
	return m.Type, m.ID, m.Payload
}

// mustLegacyWS opens a socket of the legacy graphql-ws subprotocol, whose
// messages gqlgen still encodes per subscriber, and subscribes id to query.
func (e *liveEnv) mustLegacyWS(tb testing.TB, id, query string) *wsConn {
	tb.Helper()
	w := e.dialSubprotocol(tb, "graphql-ws")
	w.send(tb, map[string]any{"type": "connection_init"})
	if typ, _, _ := frameOf(tb, w.legacyRead(tb)); typ != "connection_ack" {
		tb.Fatalf("legacy graphql-ws: got %s, want connection_ack", typ)
	}
	w.send(tb, map[string]any{"type": "start", "id": id, "payload": map[string]any{"query": query}})
	return w
}

// legacyRead returns the next legacy graphql-ws message that is not a
// keep-alive.
func (w *wsConn) legacyRead(tb testing.TB) []byte {
	tb.Helper()
	for {
		b, closed := w.readRaw(tb)
		if closed != 0 {
			tb.Fatalf("legacy graphql-ws: closed with %d", closed)
		}
		if typ, _, _ := frameOf(tb, b); typ != "ka" {
			return b
		}
	}
}

// TestFanoutSharedFrames: the members of one group get each event from one
// encoding, byte for byte what gqlgen's per-subscriber encoding gives (the
// legacy graphql-ws member is still encoded by gqlgen: its payload is the
// reference): every graphql-transport-ws member its own id (two on one
// socket, one needing JSON escapes), the SSE member the same payload; a
// member whose stream stalls holds up no one, and gets the same bytes once
// it moves again.
func TestFanoutSharedFrames(t *testing.T) {
	e := mustLiveEnv(t, resolvers.Config{}, livehttp.Config{})
	const query = `subscription { commentAdded(productId: "p1") { id title body createdAt } }`
	b, _ := json.Marshal(map[string]any{"query": query})
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	stalled := &stallingWriter{header: http.Header{}, stallAt: 2, release: make(chan struct{})} // its first event's write stalls
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.handler.ServeHTTP(stalled, req)
	}()
	for e.live.Subscriptions() != 1 { // the stalled subscriber is the group's first
		time.Sleep(time.Millisecond)
	}
	odd := `a<b>&"c"`
	two, one := e.mustAck(t), e.mustAck(t)
	two.subscribe(t, odd, query)
	two.subscribe(t, "2", query)
	one.subscribe(t, "x", query)
	legacy := e.mustLegacyWS(t, "L", query)
	sse := e.mustSSE(t, query)
	for e.live.Subscriptions() != 6 {
		time.Sleep(time.Millisecond)
	}
	var want []json.RawMessage
	for i := range 3 {
		e.mustCreate(t, "p1", fmt.Sprintf(`t%d <&> "quoted" é`, i))
		typ, id, ref := frameOf(t, legacy.legacyRead(t))
		if typ != "data" || id != "L" || !strings.Contains(string(ref), fmt.Sprintf(`t%d \u003c\u0026\u003e`, i)) {
			t.Fatalf("legacy member: %s %s %s, want data L with the escaped title t%d", typ, id, ref, i)
		}
		want = append(want, ref)
		got := map[string][]byte{}
		for _, w := range []*wsConn{two, two, one} {
			frame, closed := w.readRaw(t)
			if closed != 0 {
				t.Fatalf("closed with %d", closed)
			}
			_, id, _ := frameOf(t, frame)
			got[id] = frame
		}
		for _, id := range []string{odd, "2", "x"} {
			// What gqlgen's transport makes of the response: its message
			// {Payload, ID, Type} encoded by encoding/json.
			reference, _ := json.Marshal(struct {
				Payload json.RawMessage `json:"payload,omitempty"`
				ID      string          `json:"id,omitempty"`
				Type    string          `json:"type"`
			}{ref, id, "next"})
			if !bytes.Equal(got[id], reference) {
				t.Errorf("event %d, id %q:\n got %s\nwant %s", i, id, got[id], reference)
			}
		}
		if name, data := sse.event(); name != "next" || data != string(ref) {
			t.Errorf("event %d over SSE: %s %s, want next %s", i, name, data, ref)
		}
	}
	close(stalled.release)
	legacy.c.CloseNow()
	two.c.CloseNow()
	one.c.CloseNow()
	sse.res.Body.Close()
	e.live.Shutdown(context.Background()) //nolint:errcheck // ends the stalled stream
	<-done
	body := stalled.buf.String()
	for i, ref := range want {
		if frame := "event: next\ndata: " + string(ref) + "\n\n"; !strings.Contains(body, frame) {
			t.Errorf("stalled stream, event %d: want %q in\n%s", i, frame, body)
		}
	}
}
