package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
)

// The origin rule on the built binary (package origin): one list,
// -cors-origins, for CORS, websocket upgrades and SSE streams.

const (
	shopOrigin = "https://shop.example"
	evilOrigin = "https://evil.example"
	originSub  = `subscription { commentAdded(productId: "origin-p") { id author } }`
	originPost = `{"query":"mutation { createComment(input: {productId: \"origin-p\", language: \"en\", rating: 5, author: \"Ann\", title: \"T\", body: \"B\"}) { comment { id } } }"}`
)

// TestOriginsOneRule: in production with -cors-origins, an allowed origin
// and a request without Origin subscribe over websocket and SSE and get a
// comment created over HTTP; any other origin gets 403 FORBIDDEN_ORIGIN
// naming it and the flag, for a websocket upgrade, an SSE request and a
// CORS preflight alike, and never upgrades. Every line the server logged
// meanwhile is JSON, library and net/http lines included (Server.Stop
// checks every JSON log of the suite so).
func TestOriginsOneRule(t *testing.T) {
	s := MustServe(t, nil, "serve", "-open-mutations", "-cors-origins", shopOrigin+",https://*.shop.example")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, o := range []string{shopOrigin, "https://eu.shop.example", ""} {
		ws := mustWebsocket(ctx, t, s, o)
		mustReceive(ctx, t, s, "websocket from "+o, func() (string, error) { return wsNext(ctx, ws) })
		ws.Close(websocket.StatusNormalClosure, "")
		next, stop := mustSSE(ctx, t, s, o)
		mustReceive(ctx, t, s, "SSE from "+o, next)
		stop()
	}
	for _, o := range []string{evilOrigin, "http://shop.example", "https://shop.example.evil.example", "null"} {
		_, resp, err := websocket.Dial(ctx, wsURL(s), &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {o}}, Subprotocols: []string{"graphql-transport-ws"}})
		if err == nil {
			t.Fatalf("websocket from %s upgraded", o)
		}
		mustForbiddenOrigin(t, "websocket", o, resp)
		resp, err = sseRequest(ctx, s, o)
		if err != nil {
			t.Fatal(err)
		}
		mustForbiddenOrigin(t, "SSE", o, resp)
		resp.Body.Close()
		r := s.MustRequest(t, "OPTIONS", "/graphql", "", "Origin", o, "Access-Control-Request-Method", "POST")
		if r.Status != 403 || r.Code() != "FORBIDDEN_ORIGIN" || r.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("preflight from %s: %d %s %v", o, r.Status, r.Body, r.Header)
		}
		// A plain request passes without CORS headers (the browser withholds the reply).
		if r := s.MustRequest(t, "POST", "/graphql", `{"query":"{ __typename }"}`, "Content-Type", "application/json", "Origin", o); r.Status != 200 || r.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("POST from %s: %d %v", o, r.Status, r.Header)
		}
	}
	r := s.MustRequest(t, "OPTIONS", "/graphql", "", "Origin", shopOrigin, "Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "baggage,content-type,traceparent,tracestate") // sorted, as browsers send it
	if r.Status >= 300 || r.Header.Get("Access-Control-Allow-Origin") != shopOrigin || !strings.Contains(r.Header.Get("Access-Control-Allow-Headers"), "traceparent") {
		t.Errorf("preflight from %s: %d %v", shopOrigin, r.Status, r.Header)
	}
	// A malformed upgrade (no Sec-WebSocket-Key): one coded 400, one status.
	if r := s.MustRequest(t, "GET", "/graphql", "", "Upgrade", "websocket", "Connection", "Upgrade", "Origin", shopOrigin); r.Status != 400 || r.Code() != "BAD_REQUEST" {
		t.Errorf("malformed upgrade: %d %s", r.Status, r.Body)
	}
	s.Stop(t)
	log := s.stderr.String()
	if strings.Contains(log, "superfluous") {
		t.Errorf("a refusal wrote a second status:\n%s", tail(log, 4000))
	}
	if !strings.Contains(log, "unable to upgrade") { // gqlgen's log.Printf, through the one logger
		t.Errorf("the malformed upgrade left no log record:\n%s", tail(log, 4000))
	}
	mustAllJSON(t, log)
}

// TestDevModeAllowsLocalOrigins: dev mode allows any port of localhost and
// 127.0.0.1 for CORS and websockets, says so at start-up with the demo
// page's URL, and refuses other origins.
func TestDevModeAllowsLocalOrigins(t *testing.T) {
	s := MustServe(t, nil) // no command word: dev mode
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if !waitFor(func() bool {
		out := s.stdout.String()
		return strings.Contains(out, s.URL+"/demo") && strings.Contains(out, "http://localhost:*, http://127.0.0.1:*")
	}) {
		t.Errorf("start-up lines lack /demo's URL or the allowed origins:\n%s", s.stdout.String())
	}
	ws := mustWebsocket(ctx, t, s, "http://localhost:5173")
	ws.Close(websocket.StatusNormalClosure, "")
	r := s.MustRequest(t, "OPTIONS", "/graphql", "", "Origin", "http://127.0.0.1:3000", "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type")
	if r.Header.Get("Access-Control-Allow-Origin") != "http://127.0.0.1:3000" {
		t.Errorf("dev preflight from 127.0.0.1:3000: %d %v", r.Status, r.Header)
	}
	_, resp, err := websocket.Dial(ctx, wsURL(s), &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {shopOrigin}}})
	if err == nil {
		t.Fatal("dev mode: websocket from a foreign origin upgraded")
	}
	mustForbiddenOrigin(t, "dev websocket", shopOrigin, resp)
}

func waitFor(ok func() bool) bool {
	for deadline := time.Now().Add(e2eListenTimeout); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

func wsURL(s *Server) string { return "ws" + strings.TrimPrefix(s.URL, "http") + "/graphql" }

// mustWebsocket opens a graphql-transport-ws connection from origin ("":
// no Origin header) and subscribes to originSub.
func mustWebsocket(ctx context.Context, t *testing.T, s *Server, origin string) *websocket.Conn {
	t.Helper()
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	c, resp, err := websocket.Dial(ctx, wsURL(s), &websocket.DialOptions{HTTPHeader: h, Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		t.Fatalf("websocket from %q: %v (%v)", origin, err, resp)
	}
	t.Cleanup(func() { c.CloseNow() })
	if err := wsjson.Write(ctx, c, map[string]any{"type": "connection_init"}); err != nil {
		t.Fatal(err)
	}
	var ack struct{ Type string }
	if err := wsjson.Read(ctx, c, &ack); err != nil || ack.Type != "connection_ack" {
		t.Fatalf("connection_init from %q: %v %+v", origin, err, ack)
	}
	if err := wsjson.Write(ctx, c, map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{"query": originSub}}); err != nil {
		t.Fatal(err)
	}
	return c
}

// wsNext returns the payload of the next `next` message.
func wsNext(ctx context.Context, c *websocket.Conn) (string, error) {
	for {
		var m struct {
			Type    string
			Payload json.RawMessage
		}
		if err := wsjson.Read(ctx, c, &m); err != nil {
			return "", err
		}
		switch m.Type {
		case "next":
			return string(m.Payload), nil
		case "error", "complete":
			return "", fmt.Errorf("%s: %s", m.Type, m.Payload)
		}
	}
}

func sseRequest(ctx context.Context, s *Server, origin string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", s.URL+"/graphql", strings.NewReader(mustJSON(map[string]string{"query": originSub})))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	return http.DefaultClient.Do(req)
}

// mustSSE opens an SSE subscription to originSub from origin and returns
// what reads its next `next` event's data, and what closes it.
func mustSSE(ctx context.Context, t *testing.T, s *Server, origin string) (next func() (string, error), stop func()) {
	t.Helper()
	resp, err := sseRequest(ctx, s, origin)
	if err != nil {
		t.Fatal(err)
	}
	stop = func() { resp.Body.Close() }
	t.Cleanup(stop)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 2000))
		t.Fatalf("SSE from %q: %d %v %s", origin, resp.StatusCode, resp.Header, b)
	}
	sc := bufio.NewScanner(resp.Body)
	return func() (string, error) {
		event := ""
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && event == "next":
				return strings.TrimPrefix(line, "data: "), nil
			}
		}
		return "", fmt.Errorf("stream ended: %v", sc.Err())
	}, stop
}

// mustReceive creates comments over HTTP until next returns one (the
// subscription is live a moment after it was sent).
func mustReceive(ctx context.Context, t *testing.T, s *Server, what string, next func() (string, error)) {
	t.Helper()
	got := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		p, err := next()
		if err != nil {
			errc <- err
			return
		}
		got <- p
	}()
	tick := time.NewTicker(300 * time.Millisecond)
	defer tick.Stop()
	for {
		if r := s.MustRequest(t, "POST", "/graphql", originPost, "Content-Type", "application/json"); r.Status != 200 || strings.Contains(string(r.Body), "errors") {
			t.Fatalf("createComment: %d %s", r.Status, r.Body)
		}
		select {
		case p := <-got:
			if !strings.Contains(p, `"author":"Ann"`) {
				t.Errorf("%s: event %s", what, p)
			}
			return
		case err := <-errc:
			t.Fatalf("%s: %v", what, err)
		case <-ctx.Done():
			t.Fatalf("%s: no event", what)
		case <-tick.C:
		}
	}
}

// mustForbiddenOrigin checks a refusal: 403, FORBIDDEN_ORIGIN, a message
// naming the origin and -cors-origins.
func mustForbiddenOrigin(t *testing.T, what, origin string, resp *http.Response) {
	t.Helper()
	if resp == nil {
		t.Fatalf("%s from %s: no response", what, origin)
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4000))
	var body struct {
		Errors []struct {
			Message    string
			Extensions struct{ Code string }
		}
	}
	if resp.StatusCode != 403 || json.Unmarshal(b, &body) != nil || len(body.Errors) != 1 ||
		body.Errors[0].Extensions.Code != "FORBIDDEN_ORIGIN" || !strings.Contains(body.Errors[0].Message, origin) ||
		!strings.Contains(body.Errors[0].Message, "-cors-origins") {
		t.Errorf("%s from %s: %d %s", what, origin, resp.StatusCode, b)
	}
}

// mustAllJSON fails on any line of a production server's log that is not
// one JSON object (a library printing on its own, net/http's error log).
func mustAllJSON(t *testing.T, log string) {
	t.Helper()
	if n, line := nonJSONLine(log); n > 0 {
		t.Errorf("log line %d is not JSON: %q", n, line)
	}
	if strings.Count(log, "\n") < 5 {
		t.Errorf("too few log lines:\n%s", log)
	}
}

// nonJSONLine returns the first line of log that is not one JSON object,
// and its number (0: every line is).
func nonJSONLine(log string) (int, string) {
	n := 0
	for line := range strings.Lines(log) {
		n++
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil {
			return n, line
		}
	}
	return 0, ""
}

// TestSchemaAndGraphiQLForTools: with introspection on (dev mode) the SDL
// is served at /graphql/schema.graphql, equal to the checked-in
// schema/schema.graphql, and a browser opening /graphql gets GraphiQL; in
// production (introspection and GraphiQL off) neither: 404, and the coded
// refusal of a GET without a query.
func TestSchemaAndGraphiQLForTools(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "schema", "schema.graphql"))
	if err != nil {
		t.Fatal(err)
	}
	const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	dev := MustServe(t, nil)
	if r := dev.MustRequest(t, "GET", "/graphql/schema.graphql", ""); r.Status != 200 || !bytes.Equal(r.Body, want) || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("dev: /graphql/schema.graphql: %d %v, %d bytes (checked in: %d)", r.Status, r.Header, len(r.Body), len(want))
	}
	if r := dev.MustRequest(t, "GET", "/graphql", "", "Accept", browser); r.Status != 200 || !strings.Contains(string(r.Body), "/graphiql/graphiql.js") {
		t.Errorf("dev: a browser opening /graphql: %d %.300s", r.Status, r.Body)
	}
	if r := dev.MustRequest(t, "GET", "/graphql?query=%7B__typename%7D", "", "Accept", browser); r.Status != 200 || !strings.Contains(string(r.Body), `"__typename":"Query"`) {
		t.Errorf("dev: a browser GET with a query: %d %.300s", r.Status, r.Body)
	}
	prod := MustServe(t, nil, "serve", "-open-mutations")
	if r := prod.MustRequest(t, "GET", "/graphql/schema.graphql", ""); r.Status != 404 {
		t.Errorf("production: /graphql/schema.graphql: %d", r.Status)
	}
	if r := prod.MustRequest(t, "GET", "/graphql", "", "Accept", browser); r.Status < 400 || r.Code() == "" || strings.Contains(string(r.Body), "graphiql") {
		t.Errorf("production: a browser opening /graphql: %d %.300s", r.Status, r.Body)
	}
}
