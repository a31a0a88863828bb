package resolvers_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/internal/gqltest"
	"github.com/acme/comments-gateway/live"
	"github.com/acme/comments-gateway/live/livehttp"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
	"github.com/acme/comments-gateway/store/table"
)

// liveEnv is a handler with subscriptions over a bbolt store that publishes
// to a hub.
type liveEnv struct {
	*accessEnv
	live    *livehttp.Live
	hub     *live.Hub
	handler http.Handler
}

func mustLiveEnv(tb testing.TB, cfg resolvers.Config, lc livehttp.Config) *liveEnv {
	tb.Helper()
	return mustLiveEnvWith(tb, cfg, lc, 0)
}

// mustLiveEnvBuffer is a liveEnv whose hub holds buffer events per subscriber.
func mustLiveEnvBuffer(tb testing.TB, buffer int) *liveEnv {
	tb.Helper()
	return mustLiveEnvWith(tb, resolvers.Config{}, livehttp.Config{}, buffer)
}

func mustLiveEnvWith(tb testing.TB, cfg resolvers.Config, lc livehttp.Config, buffer int) *liveEnv {
	tb.Helper()
	return mustLiveEnvOn(tb, cfg, lc, buffer, func(t table.Table) table.Table { return t })
}

// mustLiveEnvOn is a liveEnv on a fresh bbolt table wrapped by wrap.
func mustLiveEnvOn(tb testing.TB, cfg resolvers.Config, lc livehttp.Config, buffer int, wrap func(table.Table) table.Table) *liveEnv {
	tb.Helper()
	tbl := wrap(bolttest.Open(tb))
	e := &liveEnv{accessEnv: &accessEnv{logs: &bytes.Buffer{}}}
	e.hub = live.NewHub(live.Config{Buffer: buffer, Stats: func(ctx context.Context, ids []store.StatsID) ([]*store.Stats, error) {
		return e.store.GetStats(ctx, ids)
	}})
	tb.Cleanup(e.hub.Close)
	e.store = store.New(tbl, store.WithPublisher(e.hub))
	lc.Hub = e.hub
	e.live = livehttp.New(lc)
	cfg.Store, cfg.Live = e.store, e.live
	cfg.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
	e.handler = resolvers.NewHandler(cfg)
	e.srv = httptest.NewServer(e.handler)
	tb.Cleanup(e.srv.Close)
	e.c = gqltest.New(e.srv.URL)
	return e
}

// sseStream is an open graphql-sse stream (distinct connections mode).
type sseStream struct {
	res *http.Response
	sc  *bufio.Scanner
}

// mustSSE subscribes over SSE; the HTTP status must be 200.
func (e *liveEnv) mustSSE(tb testing.TB, query string, hdr ...string) *sseStream {
	tb.Helper()
	s, status := e.sse(tb, query, hdr...)
	if status != http.StatusOK {
		tb.Fatalf("SSE subscribe: HTTP %d", status)
	}
	return s
}

func (e *liveEnv) sse(tb testing.TB, query string, hdr ...string) (*sseStream, int) {
	tb.Helper()
	b, _ := json.Marshal(map[string]any{"query": query})
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { res.Body.Close() })
	return &sseStream{res: res, sc: bufio.NewScanner(res.Body)}, res.StatusCode
}

// event returns the next SSE event's name and data ("", "" at the end of
// the stream), skipping comments (keep-alives).
func (s *sseStream) event() (name, data string) {
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case line == "" && name != "":
			return name, data
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = strings.TrimPrefix(line, "data: ")
		}
	}
	return "", ""
}

// TestSSESubscriptions: a comment created over HTTP reaches an SSE
// subscriber; a bad filter is an error event then complete; a live stream
// is not cut by the request timeout.
func TestSSESubscriptions(t *testing.T) {
	e := mustLiveEnv(t, resolvers.Config{RequestTimeout: 200 * time.Millisecond}, livehttp.Config{})
	bad := e.mustSSE(t, `subscription { commentAdded(productId: "p1", language: "en/5") { id } }`)
	if name, data := bad.event(); name != "next" || !strings.Contains(data, `"code":"BAD_USER_INPUT"`) {
		t.Errorf("bad filter: event %q %s, want next with BAD_USER_INPUT", name, data)
	}
	if name, _ := bad.event(); name != "complete" {
		t.Errorf("bad filter: then %q, want complete", name)
	}
	s := e.mustSSE(t, `subscription { commentChanged(productId: "p1", ratings: [4]) { kind cursor comment { id rating } } }`)
	for e.hub.Subscribers() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // longer than RequestTimeout
	id, _ := createdID(t, e.MustPost(t, q(createMut)))
	name, data := s.event()
	var got struct {
		Data struct {
			CommentChanged struct {
				Kind, Cursor string
				Comment      struct{ ID string }
			}
		}
	}
	if err := json.Unmarshal([]byte(data), &got); name != "next" || err != nil {
		t.Fatalf("event %q %s", name, data)
	}
	if c := got.Data.CommentChanged; c.Kind != "ADDED" || c.Comment.ID != id || c.Cursor == "" {
		t.Errorf("got %+v, want ADDED %s with a cursor", c, id)
	}
	// Shutdown ends the stream without complete, so that clients retry.
	if err := e.live.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if name, _ := s.event(); name != "" {
		t.Errorf("after shutdown: event %q, want the end of the stream", name)
	}
}

// wsConn is a graphql-transport-ws client connection.
type wsConn struct {
	c *websocket.Conn
}

func (e *liveEnv) mustWS(tb testing.TB, initPayload any) *wsConn {
	tb.Helper()
	w := e.dialWS(tb)
	w.send(tb, map[string]any{"type": "connection_init", "payload": initPayload})
	return w
}

func (w *wsConn) send(tb testing.TB, msg any) {
	tb.Helper()
	b, _ := json.Marshal(msg)
	if err := w.c.Write(context.Background(), websocket.MessageText, b); err != nil {
		tb.Fatal(err)
	}
}

// read returns the next message that is not a ping/pong, or the close
// status when the connection closes.
func (w *wsConn) read(tb testing.TB) (msg map[string]any, closed websocket.StatusCode) {
	tb.Helper()
	b, closed := w.readRaw(tb)
	if closed != 0 {
		return nil, closed
	}
	if err := json.Unmarshal(b, &msg); err != nil {
		tb.Fatal(err)
	}
	return msg, 0
}

// readRaw returns the next message that is not a ping/pong as sent, or
// the close status when the connection closes.
func (w *wsConn) readRaw(tb testing.TB) ([]byte, websocket.StatusCode) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		_, b, err := w.c.Read(ctx)
		if err != nil {
			if s := websocket.CloseStatus(err); s != -1 {
				return nil, s
			}
			tb.Fatal(err)
		}
		var msg struct{ Type string }
		if err := json.Unmarshal(b, &msg); err != nil {
			tb.Fatal(err)
		}
		if msg.Type != "ping" && msg.Type != "pong" {
			return b, 0
		}
	}
}

func (w *wsConn) subscribe(tb testing.TB, id, query string) {
	w.send(tb, map[string]any{"type": "subscribe", "id": id, "payload": map[string]any{"query": query}})
}

// TestWebsocketSubscriptions: graphql-transport-ws with the credential in
// connection_init when subscriptions need one; the per-connection limit;
// shutdown closes with 1012.
func TestWebsocketSubscriptions(t *testing.T) {
	ks, err := auth.ParseKeyHashes(auth.HashKey(testAPIKey))
	if err != nil {
		t.Fatal(err)
	}
	e := mustLiveEnv(t, resolvers.Config{Auth: &auth.Authenticator{Keys: ks}},
		livehttp.Config{RequireAuth: true, MaxSubscriptionsPerConn: 1})
	for _, payload := range []any{nil, map[string]any{"X-API-Key": "wrong"}} {
		w := e.mustWS(t, payload)
		if msg, closed := w.read(t); closed != livehttp.CloseForbidden {
			t.Errorf("init %v: got %v, close %d; want close %d", payload, msg, closed, livehttp.CloseForbidden)
		}
	}
	w := e.mustWS(t, map[string]any{"Authorization": "Bearer " + testAPIKey})
	if msg, _ := w.read(t); msg["type"] != "connection_ack" {
		t.Fatalf("got %v, want connection_ack", msg)
	}
	w.subscribe(t, "1", `subscription { commentAdded(productId: "p1") { id } }`)
	for e.hub.Subscribers() == 0 { // subscriptions start concurrently: let 1 take the slot
		time.Sleep(time.Millisecond)
	}
	w.subscribe(t, "2", `subscription { statsChanged(productId: "p1") { total } }`)
	if msg, _ := w.read(t); msg["id"] != "2" || !strings.Contains(jsonString(msg), livehttp.CodeLimitExceeded) {
		t.Errorf("second subscription: %v, want LIMIT_EXCEEDED", msg)
	}
	if msg, _ := w.read(t); msg["id"] != "2" || msg["type"] != "complete" {
		t.Errorf("second subscription: then %v, want complete", msg)
	}
	id, _ := createdID(t, e.MustPost(t, q(createMut), "X-API-Key", testAPIKey))
	if msg, _ := w.read(t); msg["type"] != "next" || !strings.Contains(jsonString(msg), id) {
		t.Errorf("got %v, want next with comment %s", msg, id)
	}
	if err := e.live.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if msg, closed := w.read(t); closed != livehttp.CloseServiceRestart {
		t.Errorf("after shutdown: %v, close %d; want close 1012", msg, closed)
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestConnectionsPerClient: a client's connections beyond the limit are
// refused with 429.
func TestConnectionsPerClient(t *testing.T) {
	e := mustLiveEnv(t, resolvers.Config{}, livehttp.Config{MaxConnsPerClient: 1})
	e.mustSSE(t, `subscription { commentAdded(productId: "p1") { id } }`)
	if _, status := e.sse(t, `subscription { commentAdded(productId: "p1") { id } }`); status != http.StatusTooManyRequests {
		t.Errorf("second connection: HTTP %d, want 429", status)
	}
	_, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(e.srv.URL, "http"), &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err == nil || !strings.Contains(err.Error(), "429") {
		t.Errorf("websocket beyond the limit: %v, want 429", err)
	}
}

// stallingWriter is an SSE client that stops reading: its writes block
// until released (the fault: a slow consumer).
type stallingWriter struct {
	header  http.Header
	mu      sync.Mutex
	buf     bytes.Buffer
	writes  int
	stallAt int
	release chan struct{}
}

func (w *stallingWriter) Header() http.Header { return w.header }
func (w *stallingWriter) WriteHeader(int)     {}
func (w *stallingWriter) Flush()              {}
func (w *stallingWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	w.writes++
	stall := w.writes == w.stallAt
	w.mu.Unlock()
	if stall {
		<-w.release
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(b)
}

// TestSSESlowConsumer: a stalled SSE client whose buffer (1 event)
// overflows gets the events it had, then a last event with SLOW_CONSUMER,
// then complete; the hub drops it.
func TestSSESlowConsumer(t *testing.T) {
	e := mustLiveEnvBuffer(t, 1)
	b, _ := json.Marshal(map[string]any{"query": `subscription { commentAdded(productId: "p1") { title } }`})
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	w := &stallingWriter{header: http.Header{}, stallAt: 2, release: make(chan struct{})} // write 1: the ":" opening comment
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.handler.ServeHTTP(w, req)
	}()
	for e.hub.Subscribers() == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx := context.Background()
	// The first event blocks in the write, the second fills the buffer, the
	// third overflows it (the fourth is not delivered either).
	for i := range 4 {
		if _, err := e.store.CreateComment(ctx, store.NewComment{ProductID: "p1", Language: "en", Rating: 3, Author: "a", Title: fmt.Sprint("t", i), Body: "b"}); err != nil {
			t.Fatal(err)
		}
	}
	for e.hub.Subscribers() != 0 {
		time.Sleep(time.Millisecond)
	}
	close(w.release)
	<-done
	body := w.buf.String()
	if !strings.Contains(body, `"code":"SLOW_CONSUMER"`) || !strings.HasSuffix(body, "event: complete\n\n") {
		t.Errorf("stream:\n%s\nwant a SLOW_CONSUMER error event, then complete", body)
	}
	if strings.Contains(body, `"t3"`) {
		t.Errorf("the comment that overflowed the buffer was delivered:\n%s", body)
	}
}

// TestQueriesOverWebsocket: each operation on a websocket gets its own
// dataloaders, so a query after a change sees the change (one cache per
// connection would serve the old comment).
func TestQueriesOverWebsocket(t *testing.T) {
	e := mustLiveEnv(t, resolvers.Config{}, livehttp.Config{})
	id, _ := createdID(t, e.MustPost(t, q(createMut)))
	w := e.mustWS(t, nil)
	if msg, _ := w.read(t); msg["type"] != "connection_ack" {
		t.Fatalf("got %v, want connection_ack", msg)
	}
	title := func(n string) string {
		w.subscribe(t, n, fmt.Sprintf(`{ comment(id: %q) { title } }`, id))
		msg, _ := w.read(t)
		if done, _ := w.read(t); done["type"] != "complete" {
			t.Fatalf("query %s: then %v, want complete", n, done)
		}
		return jsonString(msg["payload"])
	}
	if got := title("1"); !strings.Contains(got, `"title":"T"`) {
		t.Fatalf("first query: %s", got)
	}
	e.MustPost(t, q(fmt.Sprintf(`mutation { updateComment(input: {id: %q, title: "changed"}) { comment { id } } }`, id)))
	if got := title("2"); !strings.Contains(got, `"title":"changed"`) {
		t.Errorf("query after the update: %s, want the new title", got)
	}
}
