//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
)

// subscription is one graphql-transport-ws subscription to a gateway, read
// by a goroutine: each "next" payload's data goes to Events, which is
// closed when the subscription or its socket ends (Err then says why).
type subscription struct {
	Events chan json.RawMessage
	conn   *websocket.Conn
	err    error // valid once Events is closed
}

// subscribe opens a websocket to baseURL's /graphql, acknowledges the
// connection and subscribes to query; it returns once the server has
// acknowledged the connection (events the server publishes after that
// reach it).
func subscribe(ctx context.Context, baseURL, query string, vars map[string]any) (*subscription, error) {
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(baseURL, "http")+"/graphql",
		&websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(1 << 20)
	fail := func(err error) (*subscription, error) {
		conn.Close(websocket.StatusNormalClosure, "")
		return nil, err
	}
	if err := wsjson.Write(ctx, conn, map[string]any{"type": "connection_init"}); err != nil {
		return fail(err)
	}
	var ack struct{ Type string }
	if err := wsjson.Read(ctx, conn, &ack); err != nil || ack.Type != "connection_ack" {
		return fail(fmt.Errorf("connection_init: got %q, %v", ack.Type, err))
	}
	if err := wsjson.Write(ctx, conn, map[string]any{"id": "1", "type": "subscribe",
		"payload": map[string]any{"query": query, "variables": vars}}); err != nil {
		return fail(err)
	}
	s := &subscription{Events: make(chan json.RawMessage, 1024), conn: conn}
	go s.read()
	return s, nil
}

func (s *subscription) read() {
	defer close(s.Events)
	for {
		var m struct {
			Type    string
			Payload struct {
				Data   json.RawMessage
				Errors json.RawMessage
			}
		}
		if err := wsjson.Read(context.Background(), s.conn, &m); err != nil {
			s.err = err
			return
		}
		switch m.Type {
		case "next":
			if len(m.Payload.Errors) > 0 {
				s.err = fmt.Errorf("next with errors: %s", m.Payload.Errors)
				return
			}
			s.Events <- m.Payload.Data
		case "ping":
			_ = wsjson.Write(context.Background(), s.conn, map[string]any{"type": "pong"})
		case "complete", "error":
			s.err = errors.New("subscription ended with " + m.Type)
			return
		}
	}
}

// Close ends the subscription's socket.
func (s *subscription) Close() { s.conn.Close(websocket.StatusNormalClosure, "") }
