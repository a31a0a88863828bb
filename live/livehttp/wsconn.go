package livehttp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/coder/websocket"
)

// coderConn adapts a coder/websocket connection to gqlgen's websocket
// transport, as gqlgen's own adapter (transport.CoderWebsocketImplementation)
// does, and besides writes an encoded message as it is (writeFrame: the
// shared frames of frame.go, which gqlgen's adapter would encode
// again).
type coderConn struct {
	conn *websocket.Conn

	mu        sync.Mutex
	readTimer *time.Timer   // the read deadline: closes the connection
	closing   chan struct{} // set when the close handshake started
}

var (
	_ transport.WebsocketConn          = (*coderConn)(nil)
	_ transport.WebsocketReadLimiter   = (*coderConn)(nil)
	_ transport.WebsocketReadDeadliner = (*coderConn)(nil)
)

// acceptWebsocket accepts a websocket with gqlgen's subprotocols and
// headers, without the library's own origin check (same-origin only):
// Config.Origins' handler (package origin), outermost around the
// transports, has refused every upgrade from an origin outside the list,
// and lets the allowed cross-origin ones through.
func acceptWebsocket(w http.ResponseWriter, r *http.Request, opts transport.WebsocketAcceptOptions) (*coderConn, error) {
	for k, vs := range opts.ResponseHeader {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true, Subprotocols: slices.Clone(opts.Subprotocols)})
	if err != nil {
		return nil, err
	}
	return &coderConn{conn: conn}, nil
}

// NextReader returns the next message; transport.ErrWebsocketClosed after
// the client's normal close.
func (c *coderConn) NextReader() (int, io.Reader, error) {
	typ, data, err := c.conn.Read(context.Background())
	if err != nil {
		switch websocket.CloseStatus(err) {
		case websocket.StatusNormalClosure, websocket.StatusNoStatusRcvd:
			return int(typ), nil, transport.ErrWebsocketClosed
		}
		return int(typ), nil, err
	}
	return int(typ), bytes.NewReader(data), nil
}

// WriteJSON sends v encoded as JSON.
func (c *coderConn) WriteJSON(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.writeFrame(data)
}

// writeFrame sends frame, an encoded message, as it is.
func (c *coderConn) writeFrame(frame []byte) error {
	return c.conn.Write(context.Background(), websocket.MessageText, frame)
}

// WriteClose starts the close handshake with code and message, once, in
// the background: the library waits up to 5 s for the client's close
// frame, and the transport must not wait for it.
func (c *coderConn) WriteClose(code int, message string) error {
	c.stopReadTimer()
	c.mu.Lock()
	if c.closing != nil {
		c.mu.Unlock()
		return nil
	}
	done := make(chan struct{})
	c.closing = done
	c.mu.Unlock()
	go func() {
		defer close(done)
		_ = c.conn.Close(websocket.StatusCode(code), message)
	}()
	return nil
}

// Close drops the connection, unless the close handshake owns it.
func (c *coderConn) Close() error {
	c.stopReadTimer()
	c.mu.Lock()
	closing := c.closing != nil
	c.mu.Unlock()
	if closing {
		return nil
	}
	return c.conn.CloseNow()
}

// Subprotocol returns the negotiated subprotocol.
func (c *coderConn) Subprotocol() string { return c.conn.Subprotocol() }

// SetReadLimit bounds the size of a message read.
func (c *coderConn) SetReadLimit(n int64) { c.conn.SetReadLimit(n) }

// SetReadDeadline drops the connection at t unless another deadline
// replaces it first (the zero time: none).
func (c *coderConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	if c.readTimer != nil {
		c.readTimer.Stop()
		c.readTimer = nil
	}
	d := time.Until(t)
	if !t.IsZero() && d > 0 {
		c.readTimer = time.AfterFunc(d, func() { _ = c.conn.CloseNow() })
	}
	c.mu.Unlock()
	if !t.IsZero() && d <= 0 {
		return c.conn.CloseNow()
	}
	return nil
}

func (c *coderConn) stopReadTimer() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.readTimer != nil {
		c.readTimer.Stop()
		c.readTimer = nil
	}
}
