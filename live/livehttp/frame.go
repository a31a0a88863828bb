package livehttp

import (
	"encoding/json"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
)

// Shared frames: one serialization of an event per operation group.
//
// gqlgen's transports encode each response they are handed: a websocket
// `next` is json.Marshal of the response (the payload) and then of the
// message around it; an SSE `next` event is the payload in an
// "event: next\ndata: …\n\n" frame. A group's members all receive the same
// response (one per shape, fanout.go), so the group encodes each
// response once (encodePayload: the bytes gqlgen's Marshal makes), and
// each member's handler writes a frame built around those bytes itself,
// from gqlgen's subscription goroutine, before it takes its next delivery:
//
//   - graphql-transport-ws: `{"payload":` + payload + `,"id":` + the
//     client's id (JSON, encoded once per subscription) + `,"type":"next"}`,
//     the bytes gqlgen's message encoding gives, unless the client
//     completed the operation (the protocol guard), put on the socket as
//     a frame of its own (batchConn.writeText, wsframe.go);
//   - SSE: "event: next\ndata: " + payload + "\n\n", the same for every
//     member, through the stream's writer, as the gateway's own events;
//   - the legacy graphql-ws subprotocol: the handler returns the response
//     and gqlgen encodes it, as before.
//
// A handler that finds deliveries queued behind the one it writes holds
// its writer until the queue is empty (nextWriter.hold): their frames
// leave in one system call.
//
// The handler returns to gqlgen only when the subscription ends, so the
// messages of an operation keep their order: its frames, then gqlgen's
// error or complete.

// encodePayload returns resp's JSON exactly as gqlgen's transports encode
// it (encoding/json, HTML-escaped): a frame's payload.
func encodePayload(resp *graphql.Response) []byte {
	b, err := json.Marshal(resp)
	if err != nil {
		return nil // the member's transport encodes resp itself (and reports the error)
	}
	return b
}

// wsNextFrame appends to b the graphql-transport-ws `next` message of
// payload for the client id whose JSON is idJSON: the bytes json.Marshal
// gives for gqlgen's message {Payload, ID, Type} (payload is compact and
// escaped as Marshal leaves it, so Marshal would copy it unchanged).
func wsNextFrame(b, payload, idJSON []byte) []byte {
	const head, mid, tail = `{"payload":`, `,"id":`, `,"type":"next"}`
	b = append(b, head...)
	b = append(b, payload...)
	b = append(b, mid...)
	b = append(b, idJSON...)
	return append(b, tail...)
}

// sseNextFrame returns the SSE `next` event of payload.
func sseNextFrame(payload []byte) []byte {
	const head, tail = "event: next\ndata: ", "\n\n"
	b := make([]byte, 0, len(head)+len(payload)+len(tail))
	b = append(b, head...)
	b = append(b, payload...)
	return append(b, tail...)
}

// frameWriter is a websocket connection that writes an encoded message as
// it is.
type frameWriter interface{ writeFrame(frame []byte) error }

// writeFrame writes the encoded message frame on c.
func writeFrame(c transport.WebsocketConn, frame []byte) error {
	if fw, ok := c.(frameWriter); ok {
		return fw.writeFrame(frame)
	}
	return c.WriteJSON(json.RawMessage(frame))
}

// payloads holds the encoding of each response of one event (encoded once).
type payloads map[*graphql.Response][]byte

// of returns resp's encoding.
func (p payloads) of(resp *graphql.Response) []byte {
	b, ok := p[resp]
	if !ok {
		b = encodePayload(resp)
		p[resp] = b
	}
	return b
}

// nextWriter writes a `next` message around an encoded payload. Between
// hold and release, its writes may be gathered and sent together (on
// release at the latest). nextSend says when its connection's next send
// may go (pace.go): what is written before then waits for it.
type nextWriter interface {
	writeNext(payload []byte) error
	hold()
	release() error
	nextSend() time.Time
}

// memberWriter returns how a subscription of oc on c writes its shared
// payloads: on its SSE stream, on its graphql-transport-ws operation, or
// nil (the legacy graphql-ws subprotocol, or no live connection: gqlgen
// encodes each response).
func memberWriter(c *liveConn, oc *graphql.OperationContext) nextWriter {
	switch {
	case c == nil:
		return nil
	case c.sse != nil:
		return c.sse
	}
	if g, op := c.guard.Load(), wsOperationOf(oc); g != nil && op != nil && c.batch != nil {
		return &wsNextWriter{g: g, op: op, conn: c.batch}
	}
	return nil
}

// wsNextWriter writes the `next` messages of one graphql-transport-ws
// operation (from its subscription's goroutine only).
type wsNextWriter struct {
	g    *wsGuard
	op   *wsOpIDs
	conn *batchConn // the socket under g, held between hold and release
	buf  []byte     // the last frame, reused: the connection copies it
}

// writeNext writes the frame itself (batchConn.writeText) when it can,
// else through the library.
func (w *wsNextWriter) writeNext(payload []byte) error {
	if w.op.stopped.Load() { // the client completed it
		return nil
	}
	w.buf = wsNextFrame(w.buf[:0], payload, w.op.clientJSON)
	if sent, err := w.conn.writeText(w.buf); sent {
		return err
	}
	return writeFrame(w.g.WebsocketConn, w.buf)
}

func (w *wsNextWriter) hold() { w.conn.hold() }

func (w *wsNextWriter) release() error { return w.conn.release() }

func (w *wsNextWriter) nextSend() time.Time { return w.conn.nextSend() }
