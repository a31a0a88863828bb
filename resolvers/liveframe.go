package resolvers

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
)

// Shared frames: one serialization of an event per operation group.
//
// gqlgen's transports encode each response they are handed: a websocket
// `next` is json.Marshal of the response (the payload) and then of the
// message around it; an SSE `next` event is the payload in an
// "event: next\ndata: …\n\n" frame. A group's members all receive the same
// response (one per shape, livefanout.go), so the group encodes each
// response once (encodePayload, the bytes gqlgen's Marshal makes) and each
// member's transport writes a frame built around those bytes:
//
//   - graphql-transport-ws: `{"payload":` + payload + `,"id":` + the
//     client's id (JSON, encoded once per subscription) + `,"type":"next"}`,
//     the bytes gqlgen's message encoding gives;
//   - SSE: "event: next\ndata: " + payload + "\n\n", the same for every
//     member;
//   - the legacy graphql-ws subprotocol: gqlgen encodes the response itself,
//     as before.
//
// gqlgen's transport still runs its loop: the member's ResponseHandler
// leaves the payload in the member's frameSlot and returns
// sharedFrameResponse, whose encoding is a few bytes; the connection
// (wsGuard.WriteJSON, sseWriter.Write) writes the frame in its place, in
// the same goroutine and under the same locks as gqlgen's write, so that
// the message order, the id mapping and the write timeout are unchanged.

// sharedFrameResponse is what a member's ResponseHandler hands gqlgen when
// its frame slot holds the encoded payload; the connection writes that
// payload instead of this response's encoding.
var sharedFrameResponse = &graphql.Response{}

// sseSharedFrame is gqlgen's SSE event for sharedFrameResponse: the bytes
// sseWriter.Write replaces by the shared frame.
var sseSharedFrame = []byte("event: next\ndata: {\"data\":null}\n\n")

// encodePayload returns resp's JSON exactly as gqlgen's transports encode
// it (encoding/json, HTML-escaped): a frame's payload.
func encodePayload(resp *graphql.Response) []byte {
	b, err := json.Marshal(resp)
	if err != nil {
		return nil // the member's transport encodes resp itself (and reports the error)
	}
	return b
}

// frameSlot carries one encoded payload from a member's ResponseHandler to
// its connection's write of the same message.
type frameSlot struct {
	mu      sync.Mutex
	payload []byte
}

// put leaves payload for the next write of the slot's operation.
func (s *frameSlot) put(payload []byte) {
	s.mu.Lock()
	s.payload = payload
	s.mu.Unlock()
}

// take returns the payload left by put (nil when none), once.
func (s *frameSlot) take() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.payload
	s.payload = nil
	return p
}

// wsNextFrame returns the graphql-transport-ws `next` message of payload
// for the client id whose JSON is idJSON: the bytes json.Marshal gives for
// gqlgen's message {Payload, ID, Type} (payload is compact and escaped as
// Marshal leaves it, so Marshal would copy it unchanged).
func wsNextFrame(payload, idJSON []byte) []byte {
	const head, mid, tail = `{"payload":`, `,"id":`, `,"type":"next"}`
	b := make([]byte, 0, len(head)+len(payload)+len(mid)+len(idJSON)+len(tail))
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

// isSSESharedFrame reports whether b is gqlgen's SSE event for
// sharedFrameResponse.
func isSSESharedFrame(b []byte) bool { return bytes.Equal(b, sseSharedFrame) }

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

// memberFrameSlot returns where a subscription of oc on c takes its shared
// payloads: its SSE stream's, its graphql-transport-ws operation's, or nil
// (the legacy graphql-ws subprotocol, or no live connection).
func memberFrameSlot(c *liveConn, oc *graphql.OperationContext) *frameSlot {
	switch {
	case c == nil:
		return nil
	case c.sse != nil:
		return &c.sse.frame
	}
	return frameSlotOf(oc)
}
