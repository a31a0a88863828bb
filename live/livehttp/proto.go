package livehttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/acme/comments-gateway/internal/jsonscan"
)

// The websocket protocol guard. gqlgen's transport speaks
// graphql-transport-ws loosely: an invalid message closes with 1000, a
// second subscribe with an active id is taken (and the first can then never
// be stopped), `complete` follows `error`, and a refused operation costs
// its client nothing. wsGuard sits between gqlgen and the socket, reads
// every client message before gqlgen does, and enforces the protocol
// (enisdenjo/graphql-ws PROTOCOL.md) and the rate limit there:
//
//   - a message that is not JSON, of an unknown or server-only type,
//     without the fields its type needs, or over 64 KiB and not a
//     subscribe closes the socket with 4400;
//   - `subscribe` before `connection_ack` closes with 4401, a second
//     `connection_init` with 4429, no `connection_init` within
//     liveInitTimeout with 4408 (an invalid credential in it: 4403,
//     initFunc);
//   - `subscribe` with the id of an active operation closes with 4409
//     "Subscriber for <id> already exists";
//   - after the client's `complete`, nothing more is sent for that id, and
//     after the server's `error` no `complete` follows;
//   - with a rate limit, a `subscribe` from a client with less than the
//     refused cost left is answered with an `error` message (THROTTLED) for
//     its id, without being decoded, and after maxThrottled of those in a
//     row the socket is closed with 1013; one that gqlgen refuses (parse,
//     validation or limit failure) costs the refused cost, as over HTTP;
//   - a socket the guard closes is dropped closeGrace after its close
//     frame.
//
// gqlgen keys its operations by id; the guard hands it a fresh internal id
// for each subscribe and maps it back on the way out, so that a reused id
// never meets the previous operation of that id. The legacy graphql-ws
// subprotocol gets the rate limit only.

// The graphql-transport-ws close codes the guard sends.
const (
	// CloseBadMessage (4400): an invalid message.
	CloseBadMessage = 4400
	// CloseUnauthorized (4401): subscribe before connection_ack.
	CloseUnauthorized = 4401
	// CloseInitTimeout (4408): no connection_init in time.
	CloseInitTimeout = 4408
	// CloseDuplicateID (4409): subscribe with the id of an active operation.
	CloseDuplicateID = 4409
	// CloseTooManyInits (4429): a second connection_init.
	CloseTooManyInits = 4429
)

// liveInitTimeout is how long a websocket may go without connection_init.
const liveInitTimeout = 10 * time.Second

// closeGrace is how long the guard waits for the client's close frame
// after sending its own; then the connection is dropped. (coder/websocket
// reads, one byte at a time, whatever the client sends until then: a
// client streaming large frames must not make a close cost seconds.)
const closeGrace = 250 * time.Millisecond

// CloseTryAgainLater (1013, RFC 6455) closes a socket that keeps
// subscribing while its client's rate budget is spent (maxThrottled
// refusals in a row): a reconnect meets the HTTP rate limit's 429.
const CloseTryAgainLater = 1013

// maxControlMessage bounds a message other than subscribe (connection_init,
// ping, pong, complete): nothing in them needs more, and they are not
// charged to the rate limit (gqlgen echoes a ping's payload).
const maxControlMessage = 64 << 10

// maxThrottled is how many subscribes in a row the guard answers with
// THROTTLED before it closes the socket.
const maxThrottled = 10

// Message types of graphql-transport-ws and of the legacy graphql-ws.
const (
	msgInit      = "connection_init"
	msgAck       = "connection_ack"
	msgSubscribe = "subscribe"
	msgComplete  = "complete"
	msgError     = "error"
	msgPing      = "ping"
	msgPong      = "pong"
	legacyStart  = "start"
)

const subprotocolTransportWS = "graphql-transport-ws"

// errGuardClosed ends gqlgen's read loop after the guard closed the socket.
var errGuardClosed = errors.New("websocket closed by the protocol guard")

// wsGuard wraps the connection gqlgen's transport reads and writes.
type wsGuard struct {
	wrappedWebsocket
	strict  bool        // graphql-transport-ws (else legacy graphql-ws: rate limit only)
	bucket  Bucket      // the client's rate budget; nil: not limited
	timer   *time.Timer // the connection_init deadline
	pending atomic.Pointer[pendingRefusal]
	// pendingOp is the ids of the graphql-transport-ws subscribe handed to
	// gqlgen last, given to its operation when admitted (markAdmitted).
	pendingOp atomic.Pointer[wsOpIDs]

	mu        sync.Mutex
	throttled int // THROTTLED answers in a row (read loop only)
	inited    bool
	acked     bool
	closed    bool
	next      uint64
	byClient  map[string]string   // client id → internal id, while active
	byOp      map[string]*wsOpIDs // internal id → its client id
}

// wsOpIDs is one operation's ids.
type wsOpIDs struct {
	client  string
	stopped atomic.Bool // the client sent complete: send nothing more (set under wsGuard.mu)
	// clientJSON is client as a JSON string, for the shared frames
	// (frame.go).
	clientJSON []byte
}

// newWSGuard guards conn for the client of ctx's request.
func newWSGuard(ctx context.Context, conn transport.WebsocketConn, rl RateLimit) *wsGuard {
	g := &wsGuard{
		wrappedWebsocket: wrappedWebsocket{conn},
		strict:           conn.Subprotocol() == subprotocolTransportWS,
		byClient:         map[string]string{},
		byOp:             map[string]*wsOpIDs{},
	}
	if rl != nil {
		g.bucket = rl.Bucket(ctx)
	}
	g.timer = time.AfterFunc(liveInitTimeout, func() { _ = g.closeWith(CloseInitTimeout, "Connection initialisation timeout") })
	return g
}

// markAdmitted records, for the subscribe being created on ctx's
// websocket, that its operation passed every check (it is then charged its
// complexity by the rate limit, not the refused cost), and gives oc the
// operation's ids (wsOperationOf).
func markAdmitted(ctx context.Context, oc *graphql.OperationContext) {
	if c := liveConnFrom(ctx); c != nil {
		if g := c.guard.Load(); g != nil {
			g.pending.Load().charged()
			if op := g.pendingOp.Load(); op != nil {
				oc.Stats.SetExtension(wsOperationExtension, op)
			}
		}
	}
}

// wsOperationExtension names, in an operation's Stats, the ids of its
// graphql-transport-ws operation.
const wsOperationExtension = "LiveWebsocketOperation"

// wsOperationOf returns the ids of oc's graphql-transport-ws operation, or
// nil.
func wsOperationOf(oc *graphql.OperationContext) *wsOpIDs {
	op, _ := oc.Stats.GetExtension(wsOperationExtension).(*wsOpIDs)
	return op
}

// clientMessage is a message from the client.
type clientMessage struct {
	Type    string
	ID      *string         // nil when absent or not a string
	Payload json.RawMessage // nil when absent
}

// scanMessage reads a message's members: one scan to check that it is
// JSON (json.Valid), one to find them (package jsonscan), no decoding but
// of the type and id strings. ok is false for anything but a JSON object.
func scanMessage(b []byte) (m clientMessage, ok bool) {
	if !json.Valid(b) {
		return m, false
	}
	return m, eachMember(b, func(key string, v []byte) {
		switch key {
		case "type":
			m.Type = stringValue(v)
		case "id":
			if v[0] == '"' {
				id := stringValue(v)
				m.ID = &id
			}
		case "payload":
			m.Payload = v
		}
	})
}

// eachMember calls fn with each member of the JSON object b (valid JSON),
// in order; it reports false when b is not an object.
func eachMember(b []byte, fn func(key string, value []byte)) bool {
	i := jsonscan.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	for i = jsonscan.SkipSpace(b, i+1); i < len(b) && b[i] == '"'; i = jsonscan.SkipSpace(b, i+1) {
		end := jsonscan.SkipString(b, i)
		key := stringValue(b[i:end])
		i = jsonscan.SkipSpace(b, jsonscan.SkipSpace(b, end)+1) // past the colon
		end = jsonscan.SkipValue(b, i)
		fn(key, b[i:end])
		if i = jsonscan.SkipSpace(b, end); i >= len(b) || b[i] != ',' {
			break
		}
	}
	return true
}

// stringValue decodes a JSON string ("" for any other value).
func stringValue(v []byte) string {
	var s string
	if len(v) > 0 && v[0] == '"' {
		_ = json.Unmarshal(v, &s)
	}
	return s
}

// NextReader returns the next message gqlgen is to handle, after the
// guard's checks; a message the guard answered itself is not returned.
func (g *wsGuard) NextReader() (int, io.Reader, error) {
	for {
		g.settle()
		typ, r, err := g.WebsocketConn.NextReader()
		if err != nil {
			return typ, r, err
		}
		b, err := readMessage(r)
		if err != nil {
			return typ, nil, err
		}
		out, err := g.admit(b)
		switch {
		case err != nil:
			return typ, nil, err
		case out != nil:
			return typ, bytes.NewReader(out), nil
		}
	}
}

// readMessage reads a whole message; from a bytes.Reader (what the
// coder/websocket adapter returns) into one slice of its size.
func readMessage(r io.Reader) ([]byte, error) {
	if br, ok := r.(*bytes.Reader); ok {
		b := make([]byte, br.Len())
		_, err := io.ReadFull(br, b)
		return b, err
	}
	return io.ReadAll(r)
}

// settle charges the refused cost of the previous subscribe if gqlgen
// refused it (refusal.settle).
func (g *wsGuard) settle() {
	g.pending.Swap(nil).settle()
}

// expect notes a subscribe handed to gqlgen: a refusal of the client's
// (nil without a rate limit) until its operation is admitted.
func (g *wsGuard) expect() {
	if g.bucket != nil {
		g.pending.Store(&pendingRefusal{g.bucket.Refusal()})
	}
}

// spent reports whether the client's budget is below the refused cost
// (Bucket.Spent); false without a rate limit.
func (g *wsGuard) spent() bool {
	return g.bucket != nil && g.bucket.Spent()
}

// pendingRefusal is the refusal of the subscribe handed to gqlgen last;
// a nil one (no rate limit) records and takes nothing.
type pendingRefusal struct{ r Refusal }

func (p *pendingRefusal) charged() {
	if p != nil {
		p.r.Charged()
	}
}

func (p *pendingRefusal) settle() {
	if p != nil {
		p.r.Settle()
	}
}

// admit checks one client message. It returns the message to hand to
// gqlgen, nil (answered here), or an error after closing the socket.
func (g *wsGuard) admit(b []byte) ([]byte, error) {
	if g.spent() {
		if done, err := g.refuseThrottled(b); done {
			return nil, err
		}
	} else {
		g.throttled = 0
	}
	m, ok := scanMessage(b)
	if !ok {
		if !g.strict {
			return b, nil // gqlgen answers the legacy protocol's mistakes
		}
		return nil, g.closeWith(CloseBadMessage, "Invalid message received: not a JSON object with a string type")
	}
	if !g.strict {
		switch m.Type {
		case msgInit:
			g.timer.Stop()
		case legacyStart:
			g.expect()
		}
		return b, nil
	}
	if m.Type != msgSubscribe && len(b) > maxControlMessage {
		return nil, g.closeWith(CloseBadMessage, fmt.Sprintf("Invalid message received: a %.20s message over %d bytes", m.Type, maxControlMessage))
	}
	switch m.Type {
	case msgInit:
		return g.admitInit(b, m)
	case msgPing, msgPong:
		return b, nil
	case msgSubscribe:
		return g.admitSubscribe(m)
	case msgComplete:
		return g.admitComplete(m)
	}
	return nil, g.closeWith(CloseBadMessage, fmt.Sprintf("Invalid message received: type %.40q is not a client message of graphql-transport-ws", m.Type))
}

func (g *wsGuard) admitInit(b []byte, m clientMessage) ([]byte, error) {
	g.mu.Lock()
	again := g.inited
	g.inited = true
	g.mu.Unlock()
	switch {
	case again:
		return nil, g.closeWith(CloseTooManyInits, "Too many initialisation requests")
	case !isObjectOrNull(m.Payload):
		return nil, g.closeWith(CloseBadMessage, "Invalid message received: the connection_init payload must be an object")
	}
	g.timer.Stop()
	return b, nil
}

func (g *wsGuard) admitSubscribe(m clientMessage) ([]byte, error) {
	if msg := checkSubscribe(m); msg != "" {
		return nil, g.closeWith(CloseBadMessage, "Invalid message received: "+msg)
	}
	id := *m.ID
	g.mu.Lock()
	acked, dup := g.acked, g.byClient[id] != ""
	var internal string
	var op *wsOpIDs
	if acked && !dup {
		g.next++
		internal = strconv.FormatUint(g.next, 10)
		g.byClient[id] = internal
		idJSON, _ := json.Marshal(id)
		op = &wsOpIDs{client: id, clientJSON: idJSON}
		g.byOp[internal] = op
	}
	g.mu.Unlock()
	switch {
	case !acked:
		return nil, g.closeWith(CloseUnauthorized, "Unauthorized")
	case dup:
		return nil, g.closeWith(CloseDuplicateID, fmt.Sprintf("Subscriber for %.64s already exists", id))
	}
	g.expect()
	g.pendingOp.Store(op)
	return encodeMessage(msgSubscribe, internal, m.Payload), nil
}

// checkSubscribe says what is wrong with a subscribe message's shape, or "".
// (Its shape only: gqlgen decodes it.)
func checkSubscribe(m clientMessage) string {
	if m.ID == nil || *m.ID == "" {
		return "subscribe needs a non-empty string id"
	}
	var query, opName, vars, ext json.RawMessage
	if !eachMember(m.Payload, func(key string, v []byte) {
		switch key {
		case "query":
			query = v
		case "operationName":
			opName = v
		case "variables":
			vars = v
		case "extensions":
			ext = v
		}
	}) {
		return "the subscribe payload must be an object"
	}
	switch {
	case len(query) == 0 || query[0] != '"':
		return "the subscribe payload's query must be a string"
	case len(opName) > 0 && opName[0] != '"' && string(opName) != "null":
		return "the subscribe payload's operationName must be a string or null"
	case !isObjectOrNull(vars) || !isObjectOrNull(ext):
		return "the subscribe payload's variables and extensions must be objects or null"
	}
	return ""
}

// admitComplete stops the client's operation of that id; a complete for an
// id that is not active is ignored.
func (g *wsGuard) admitComplete(m clientMessage) ([]byte, error) {
	if m.ID == nil || *m.ID == "" {
		return nil, g.closeWith(CloseBadMessage, "Invalid message received: complete needs a non-empty string id")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	internal := g.byClient[*m.ID]
	if internal == "" {
		return nil, nil
	}
	delete(g.byClient, *m.ID)
	g.byOp[internal].stopped.Store(true)
	return encodeMessage(msgComplete, internal, nil), nil
}

// refuseThrottled answers a subscribe from a client whose budget is spent
// with an `error` (THROTTLED) for its id, reading only the message's type
// and id (not its payload, when they come first, as clients send them).
// It reports false for a message it leaves to the other checks.
func (g *wsGuard) refuseThrottled(b []byte) (bool, error) {
	typ, id := peekTypeAndID(b)
	if !(typ == msgSubscribe || (!g.strict && typ == legacyStart)) || id == "" {
		return false, nil
	}
	g.mu.Lock()
	ok := !g.strict || (g.acked && g.byClient[id] == "")
	g.mu.Unlock()
	if !ok {
		return false, nil // the usual checks close the socket
	}
	if g.throttled++; g.throttled > maxThrottled {
		return true, g.closeWith(CloseTryAgainLater, "Try again later: your rate budget is spent")
	}
	payload, _ := json.Marshal(gqlerror.List{g.bucket.Throttled()})
	return true, g.WebsocketConn.WriteJSON(rawMessage{Type: msgError, ID: id, Payload: payload})
}

// peekTypeAndID reads a message's top-level type and id ("" for what is
// absent or not a string) without checking or decoding the rest: a large
// payload costs a memchr (package jsonscan), not a JSON scan.
func peekTypeAndID(b []byte) (typ, id string) {
	eachMember(b, func(key string, v []byte) {
		switch key {
		case "type":
			typ = stringValue(v)
		case "id":
			id = stringValue(v)
		}
	})
	return typ, id
}

// rawMessage is a message the guard writes itself.
type rawMessage struct {
	Type    string          `json:"type"`
	ID      string          `json:"id,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// encodeMessage is a client message for gqlgen: typ and id need no
// escaping (the guard's own), payload is valid JSON or nil.
func encodeMessage(typ, id string, payload json.RawMessage) []byte {
	b := make([]byte, 0, len(payload)+64)
	b = append(b, `{"type":"`...)
	b = append(b, typ...)
	b = append(b, `","id":"`...)
	b = append(b, id...)
	b = append(b, '"')
	if payload != nil {
		b = append(b, `,"payload":`...)
		b = append(b, payload...)
	}
	return append(b, '}')
}

// isObjectOrNull reports whether raw is absent, null or a JSON object.
func isObjectOrNull(raw json.RawMessage) bool {
	return len(raw) == 0 || raw[0] == '{' || string(raw) == "null"
}

// WriteJSON sends a message of gqlgen's, with its operation's client id:
// nothing for an operation the client completed or that already ended.
func (g *wsGuard) WriteJSON(v any) error {
	if !g.strict {
		return g.WebsocketConn.WriteJSON(v)
	}
	typ, id := messageFields(v)
	if typ.IsValid() && typ.String() == msgAck {
		g.mu.Lock()
		g.acked = true
		g.mu.Unlock()
	}
	if !id.IsValid() || id.String() == "" {
		return g.WebsocketConn.WriteJSON(v)
	}
	g.mu.Lock()
	op := g.byOp[id.String()]
	end := typ.String() == msgComplete || typ.String() == msgError
	if op != nil && end {
		delete(g.byOp, id.String())
		if !op.stopped.Load() {
			delete(g.byClient, op.client)
		}
	}
	g.mu.Unlock()
	if op == nil || op.stopped.Load() {
		return nil
	}
	id.SetString(op.client)
	return g.WebsocketConn.WriteJSON(v)
}

// messageFields returns the Type and ID fields of gqlgen's message (a
// pointer to a struct with string-kinded Type and ID), settable; invalid
// values when v has no such fields.
func messageFields(v any) (typ, id reflect.Value) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return
	}
	typ, id = rv.Elem().FieldByName("Type"), rv.Elem().FieldByName("ID")
	if typ.IsValid() && typ.Kind() != reflect.String {
		typ = reflect.Value{}
	}
	if id.IsValid() && (id.Kind() != reflect.String || !id.CanSet()) {
		id = reflect.Value{}
	}
	return typ, id
}

// closeWith closes the socket with code and reason, once, and returns
// errGuardClosed for gqlgen's read loop.
func (g *wsGuard) closeWith(code int, reason string) error {
	g.mu.Lock()
	first := !g.closed
	g.closed = true
	g.mu.Unlock()
	if first {
		g.timer.Stop()
		_ = g.WebsocketConn.WriteClose(code, reason)
		_ = g.wrappedWebsocket.SetReadDeadline(time.Now().Add(closeGrace))
	}
	return errGuardClosed
}

// SetReadDeadline passes through to the wrapped connection until the
// guard closes it (then closeGrace holds).
func (g *wsGuard) SetReadDeadline(t time.Time) error {
	g.mu.Lock()
	closed := g.closed
	g.mu.Unlock()
	if closed {
		return nil
	}
	return g.wrappedWebsocket.SetReadDeadline(t)
}

// WriteClose closes the socket (the first close wins).
func (g *wsGuard) WriteClose(code int, reason string) error {
	_ = g.closeWith(code, reason)
	return nil
}

// AdmittedOperations is the last operation check: an operation that
// reaches it passed every other, so the rate limit charges it its
// complexity rather than the refused cost (wsGuard.settle).
type AdmittedOperations struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = AdmittedOperations{}

// ExtensionName names the extension for gqlgen.
func (AdmittedOperations) ExtensionName() string { return "LiveAdmission" }

// Validate accepts any schema.
func (AdmittedOperations) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationContext marks the websocket subscribe being created as
// admitted.
func (AdmittedOperations) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	markAdmitted(ctx, oc)
	return nil
}
