package resolvers_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/acme/comments-gateway/internal/policy"
	"github.com/acme/comments-gateway/live/livehttp"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
	"github.com/acme/comments-gateway/trusted"
)

// dialWS opens a graphql-transport-ws socket without sending anything.
func (e *liveEnv) dialWS(tb testing.TB) *wsConn {
	tb.Helper()
	return e.dialSubprotocol(tb, "graphql-transport-ws")
}

// dialSubprotocol opens a socket of subprotocol without sending anything.
func (e *liveEnv) dialSubprotocol(tb testing.TB, subprotocol string) *wsConn {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.srv.URL, "http"), &websocket.DialOptions{Subprotocols: []string{subprotocol}})
	if err != nil {
		tb.Fatal(err)
	}
	c.SetReadLimit(4 << 20)
	tb.Cleanup(func() { c.CloseNow() })
	return &wsConn{c: c}
}

// mustClose reads until the socket closes and checks the close code.
func (w *wsConn) mustClose(tb testing.TB, what string, want websocket.StatusCode) {
	tb.Helper()
	for {
		msg, closed := w.read(tb)
		if msg == nil {
			if closed != want {
				tb.Errorf("%s: closed with %d, want %d", what, closed, want)
			}
			return
		}
		if msg["type"] != "next" && msg["type"] != "complete" && msg["type"] != "connection_ack" {
			tb.Errorf("%s: got %v before the close", what, msg)
		}
	}
}

// TestWebsocketCloseCodes: graphql-transport-ws close codes as PROTOCOL.md
// gives them.
func TestWebsocketCloseCodes(t *testing.T) {
	e := mustLiveEnv(t, resolvers.Config{}, livehttp.Config{})
	cases := []struct {
		name string
		send []any // after connection_init and its ack, unless noInit
		// noInit sends send first, without connection_init.
		noInit bool
		want   websocket.StatusCode
	}{
		{name: "not JSON", send: []any{"{nope"}, want: livehttp.CloseBadMessage},
		{name: "a JSON array", send: []any{[]any{1}}, want: livehttp.CloseBadMessage},
		{name: "unknown type", send: []any{map[string]any{"type": "hello"}}, want: livehttp.CloseBadMessage},
		{name: "a server message", send: []any{map[string]any{"type": "next", "id": "1", "payload": map[string]any{}}}, want: livehttp.CloseBadMessage},
		{name: "subscribe without id", send: []any{map[string]any{"type": "subscribe", "payload": map[string]any{"query": "{ __typename }"}}}, want: livehttp.CloseBadMessage},
		{name: "subscribe without payload", send: []any{map[string]any{"type": "subscribe", "id": "1"}}, want: livehttp.CloseBadMessage},
		{name: "subscribe with a query that is not a string", send: []any{map[string]any{"type": "subscribe", "id": "1", "payload": map[string]any{"query": 5}}}, want: livehttp.CloseBadMessage},
		{name: "complete without id", send: []any{map[string]any{"type": "complete"}}, want: livehttp.CloseBadMessage},
		{name: "a 100 KB ping", send: []any{map[string]any{"type": "ping", "payload": map[string]any{"x": strings.Repeat("p", 100<<10)}}}, want: livehttp.CloseBadMessage},
		{name: "invalid first message", send: []any{"x"}, noInit: true, want: livehttp.CloseBadMessage},
		{name: "subscribe before connection_ack", noInit: true, send: []any{map[string]any{"type": "subscribe", "id": "1", "payload": map[string]any{"query": "{ __typename }"}}}, want: livehttp.CloseUnauthorized},
		{name: "a second connection_init", send: []any{map[string]any{"type": "connection_init"}}, want: livehttp.CloseTooManyInits},
		{name: "connection_init with a payload that is not an object", noInit: true, send: []any{map[string]any{"type": "connection_init", "payload": "x"}}, want: livehttp.CloseBadMessage},
		{name: "a duplicate subscription id", send: []any{
			map[string]any{"type": "subscribe", "id": "s", "payload": map[string]any{"query": `subscription { commentAdded(productId: "p1") { id } }`}},
			map[string]any{"type": "subscribe", "id": "s", "payload": map[string]any{"query": `subscription { commentAdded(productId: "p2") { id } }`}},
		}, want: livehttp.CloseDuplicateID},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var w *wsConn
			if c.noInit {
				w = e.dialWS(t)
			} else {
				w = e.mustAck(t)
			}
			for _, m := range c.send {
				if s, ok := m.(string); ok {
					if err := w.c.Write(context.Background(), websocket.MessageText, []byte(s)); err != nil {
						t.Fatal(err)
					}
					continue
				}
				w.send(t, m)
			}
			w.mustClose(t, c.name, c.want)
		})
	}
	t.Run("the reason names the duplicate id", func(t *testing.T) {
		w := e.mustAck(t)
		for range 2 {
			w.subscribe(t, "dup-7", `subscription { commentAdded(productId: "p1") { id } }`)
		}
		var err error
		for err == nil { // messages before the close, if any
			_, _, err = w.c.Read(context.Background())
		}
		var ce websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != livehttp.CloseDuplicateID || ce.Reason != "Subscriber for dup-7 already exists" {
			t.Errorf("got %v, want close 4409 \"Subscriber for dup-7 already exists\"", err)
		}
	})
}

// TestWebsocketOperationIDs: after the client's complete nothing more comes
// for that id, and the id may be used again; after an error no complete
// follows.
func TestWebsocketOperationIDs(t *testing.T) {
	e := mustLiveEnv(t, resolvers.Config{}, livehttp.Config{})
	w := e.mustAck(t)
	w.subscribe(t, "a", `subscription { commentAdded(productId: "p1") { id } }`)
	for e.hub.Subscribers() == 0 {
		time.Sleep(time.Millisecond)
	}
	w.send(t, map[string]any{"type": "complete", "id": "a"})
	for e.hub.Subscribers() != 0 {
		time.Sleep(time.Millisecond)
	}
	e.MustPost(t, q(createMut))
	// The same id again, for a query: its result and complete, nothing of
	// the first "a".
	w.subscribe(t, "a", `{ __typename }`)
	if msg, _ := w.read(t); msg["type"] != "next" || msg["id"] != "a" || !strings.Contains(jsonString(msg), "__typename") {
		t.Fatalf("got %v, want the query's next", msg)
	}
	if msg, _ := w.read(t); msg["type"] != "complete" || msg["id"] != "a" {
		t.Fatalf("got %v, want complete", msg)
	}
	// An invalid operation: error, and no complete after it.
	w.subscribe(t, "bad", `{ nope }`)
	if msg, _ := w.read(t); msg["type"] != "error" || msg["id"] != "bad" || !strings.Contains(jsonString(msg), "GRAPHQL_VALIDATION_FAILED") {
		t.Fatalf("got %v, want error GRAPHQL_VALIDATION_FAILED", msg)
	}
	w.subscribe(t, "c", `{ __typename }`)
	if msg, _ := w.read(t); msg["id"] != "c" {
		t.Fatalf("got %v after the error, want the next query's result", msg)
	}
}

// TestWebsocketRefusalsCostTheRefusedCost: operations gqlgen refuses on a
// socket are charged the refused cost, so the client is throttled as over
// HTTP: with a burst of 30 and a refused cost of 10, the fourth invalid
// operation gets THROTTLED (an error for its id), and the socket stays open.
func TestWebsocketRefusalsCostTheRefusedCost(t *testing.T) {
	e := mustLiveEnv(t, resolvers.Config{RateLimit: policy.RateLimit{Rate: 0.01, Burst: 30, RefusedCost: 10}}, livehttp.Config{})
	w := e.mustAck(t)
	var codes []string
	for i := range 5 {
		w.subscribe(t, "op"+string(rune('0'+i)), `{ nope(`)
		msg, _ := w.read(t)
		if msg["type"] != "error" {
			t.Fatalf("operation %d: got %v, want error", i, msg)
		}
		codes = append(codes, jsonString(msg["payload"]))
	}
	for i, c := range codes {
		want := "GRAPHQL_PARSE_FAILED"
		if i >= 3 {
			want = policy.CodeThrottled
		}
		if !strings.Contains(c, want) {
			t.Errorf("operation %d: %s, want %s", i, c, want)
		}
	}
}

// TestTrustedDocumentsOverLive: with -only-trusted-documents a websocket
// opens, a trusted subscription runs, an untrusted one gets an error
// (TRUSTED_DOCUMENT_REQUIRED); over SSE the untrusted one is refused with
// a coded 400.
func TestTrustedDocumentsOverLive(t *testing.T) {
	const sub = `subscription { commentAdded(productId: "p1") { id } }`
	m, err := trusted.Parse([]byte(`{"sub1": ` + jsonString(sub) + `}`))
	if err != nil {
		t.Fatal(err)
	}
	m.Only = true
	e := mustLiveEnv(t, resolvers.Config{Trusted: m}, livehttp.Config{})
	w := e.mustAck(t)
	w.send(t, map[string]any{"type": "subscribe", "id": "t", "payload": map[string]any{"query": "", "extensions": map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": "sub1"}}}})
	for e.hub.Subscribers() == 0 {
		time.Sleep(time.Millisecond)
	}
	w.subscribe(t, "u", `subscription { commentAdded(productId: "p2") { id } }`)
	if msg, _ := w.read(t); msg["type"] != "error" || msg["id"] != "u" || !strings.Contains(jsonString(msg), trusted.CodeRequired) {
		t.Errorf("untrusted subscription: %v, want error %s", msg, trusted.CodeRequired)
	}
	c, err := e.store.CreateComment(context.Background(), store.NewComment{ProductID: "p1", Language: "en", Rating: 3, Author: "a", Title: "t", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if msg, _ := w.read(t); msg["type"] != "next" || msg["id"] != "t" || !strings.Contains(jsonString(msg), c.ID) {
		t.Errorf("trusted subscription: %v, want next with %s", msg, c.ID)
	}
	if _, status := e.sse(t, `subscription { commentAdded(productId: "p2") { id } }`); status != http.StatusBadRequest {
		t.Errorf("untrusted SSE subscription: HTTP %d, want 400", status)
	}
	s := e.mustSSE(t, sub)
	for e.live.Subscriptions() < 2 {
		time.Sleep(time.Millisecond)
	}
	s.res.Body.Close()
}

// blockingTable holds every Get and BatchGet until release is closed (the
// fault: a slow store, so that operations stay in flight).
type blockingTable struct {
	table.Table
	release chan struct{}
}

func (b blockingTable) wait(ctx context.Context) error {
	select {
	case <-b.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (b blockingTable) Get(ctx context.Context, k table.Key) (table.Item, error) {
	if err := b.wait(ctx); err != nil {
		return nil, err
	}
	return b.Table.Get(ctx, k)
}

func (b blockingTable) BatchGet(ctx context.Context, ks []table.Key) ([]table.Item, error) {
	if err := b.wait(ctx); err != nil {
		return nil, err
	}
	return b.Table.BatchGet(ctx, ks)
}

// TestOperationsInFlightAreCapped: with at most 2 queries in flight per
// connection and 3 per client, the third query on one socket and the
// fourth of the client are refused with IN_FLIGHT_LIMIT_EXCEEDED; once
// the store answers, the client may send more.
func TestOperationsInFlightAreCapped(t *testing.T) {
	release := make(chan struct{})
	e := mustLiveEnvOn(t, resolvers.Config{}, livehttp.Config{MaxInFlightPerConn: 2, MaxInFlightPerClient: 3}, 0,
		func(tbl table.Table) table.Table { return blockingTable{Table: tbl, release: release} })
	const slow = `{ comment(id: "01J00000000000000000000000") { id } }`
	a, b := e.mustAck(t), e.mustAck(t)
	// The operations of a socket start concurrently: any one of them may
	// be the one refused.
	refused := func(w *wsConn, what, want string) {
		t.Helper()
		msg, _ := w.read(t)
		if msg["type"] != "next" || !strings.Contains(jsonString(msg), want) {
			t.Fatalf("%s: %v, want %s", what, msg, want)
		}
		if done, _ := w.read(t); done["id"] != msg["id"] || done["type"] != "complete" {
			t.Errorf("%s: then %v, want complete for %v", what, done, msg["id"])
		}
	}
	for _, id := range []string{"1", "2", "3"} {
		a.subscribe(t, id, slow)
	}
	refused(a, "third on one connection", "on this connection")
	b.subscribe(t, "1", slow)
	b.subscribe(t, "2", slow)
	refused(b, "fourth of the client", "for this client")
	close(release)
	for done := 0; done < 2; { // a's two queries end
		if msg, _ := a.read(t); msg["type"] == "complete" {
			done++
		}
	}
	b.subscribe(t, "3", `{ __typename }`)
	for {
		msg, _ := b.read(t)
		if msg["id"] == "3" {
			if strings.Contains(jsonString(msg), livehttp.CodeInFlight) {
				t.Errorf("after the store answered: %v", msg)
			}
			break
		}
	}
}
