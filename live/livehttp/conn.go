package livehttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/internal/gqlhttp"
)

// liveConn is one open websocket connection or SSE stream.
type liveConn struct {
	l      *Live
	client string
	cancel context.CancelFunc
	leave  func() // gives back the connection's slot among its client's (add)
	subs   atomic.Int32
	ops    int                     // queries and mutations in flight, guarded by l.mu
	guard  atomic.Pointer[wsGuard] // websocket: its protocol guard (proto.go), set by liveWebsocket.Accept
	batch  *batchConn              // websocket: its socket, set before guard
	sse    *sseWriter              // SSE: set before the connection is registered
}

type liveConnKey struct{}

// IsLive reports whether ctx is that of a request or an operation on a
// live connection.
func IsLive(ctx context.Context) bool { return liveConnFrom(ctx) != nil }

// liveConnFrom returns the live connection a request context belongs to.
func liveConnFrom(ctx context.Context) *liveConn {
	c, _ := ctx.Value(liveConnKey{}).(*liveConn)
	return c
}

// Middleware registers each websocket or SSE request as a live connection,
// refusing it with a coded JSON error: 429 LIMIT_EXCEEDED when its client
// has MaxConnsPerClient open, 503 UNAVAILABLE during shutdown. ctx is the request's context, cancelled by the handler.
func (l *Live) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if l == nil || !IsLiveRequest(r) {
			next.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		c := &liveConn{l: l, client: l.deps.ClientOf(r), cancel: cancel}
		if (transport.SSE{}).Supports(r) {
			rc := http.NewResponseController(w)
			// The stream outlives the server's ReadTimeout, its body not.
			r.Body = &bodyThenStream{ReadCloser: r.Body, rc: rc}
			c.sse = &sseWriter{ResponseWriter: w, rc: rc, timeout: l.cfg.WriteTimeout, pace: pacer{interval: l.cfg.WriteInterval}}
			defer c.sse.stop() // before the handler returns: no paced flush after it
			w = c.sse
		}
		if err := l.add(c); err != nil {
			if errors.Is(err, errLiveClosing) {
				gqlhttp.WriteError(w, http.StatusServiceUnavailable, gqlhttp.CodeUnavailable, err.Error(), "Retry-After", "1")
			} else {
				gqlhttp.WriteError(w, http.StatusTooManyRequests, CodeLimitExceeded, err.Error())
			}
			return
		}
		defer l.remove(c)
		next.ServeHTTP(w, r.WithContext(context.WithValue(ctx, liveConnKey{}, c)))
	})
}

func (l *Live) add(c *liveConn) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closing {
		return errLiveClosing
	}
	leave, ok := l.clients.Take(c.client)
	if !ok {
		return fmt.Errorf("too many live connections: at most %d per client", l.cfg.MaxConnsPerClient)
	}
	c.leave = leave
	l.conns[c] = struct{}{}
	return nil
}

// startOperation takes a slot for a query or mutation on c, or says why
// there is none; release gives it back (once).
func (c *liveConn) startOperation() (release func(), err *gqlerror.Error) {
	l := c.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.ops >= l.cfg.MaxInFlightPerConn {
		return nil, gqlhttp.Coded(CodeInFlight, fmt.Sprintf("too many operations in flight on this connection: at most %d; wait for a result before sending more", l.cfg.MaxInFlightPerConn))
	}
	leave, ok := l.running.Take(c.client)
	if !ok {
		return nil, gqlhttp.Coded(CodeInFlight, fmt.Sprintf("too many operations in flight for this client: at most %d over its live connections; wait for a result before sending more", l.cfg.MaxInFlightPerClient))
	}
	c.ops++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			c.ops--
			l.mu.Unlock()
			leave()
		})
	}, nil
}

func (l *Live) remove(c *liveConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.conns, c)
	c.leave()
	if l.closing && len(l.conns) == 0 {
		close(l.drained)
	}
}

// shutdown ends the connection so that its client reconnects. A websocket
// gets only the close frame: cancelling its subscriptions first would send
// each a `complete`, and a client would not resubscribe after reconnecting.
// The transport ends when the client answers the close (or after
// closeGrace).
func (c *liveConn) shutdown() {
	if g := c.guard.Load(); g != nil {
		_ = g.WriteClose(CloseServiceRestart, "server restart")
		return
	}
	if c.sse != nil {
		c.sse.stop()
	}
	c.cancel()
}

// endSubscription ends one subscription of the connection with err (a
// slow consumer, a spent budget): on a websocket an `error` message for
// it, on SSE a last `next` event carrying the error (the transport then
// sends `complete`).
func (c *liveConn) endSubscription(ctx context.Context, err *gqlerror.Error) {
	switch {
	case c == nil:
	case c.guard.Load() != nil:
		transport.AddSubscriptionError(ctx, err)
	case c.sse != nil:
		b, _ := json.Marshal(map[string]any{"errors": []*gqlerror.Error{err}})
		c.sse.writeEvent(fmt.Sprintf("event: next\ndata: %s\n\n", b))
	}
}

// initFunc authenticates a websocket's connection_init: a credential in the
// payload (Authorization or X-API-Key, any case) replaces the upgrade
// request's headers. An invalid credential, or none when RequireAuth, closes
// the connection with 4403.
func (l *Live) initFunc(a *auth.Authenticator) transport.WebsocketInitFunc {
	return func(ctx context.Context, payload transport.InitPayload) (context.Context, *transport.InitPayload, error) {
		h := http.Header{}
		for k, v := range payload {
			if s, ok := v.(string); ok {
				switch http.CanonicalHeaderKey(k) {
				case "Authorization", "X-Api-Key":
					h.Set(k, s)
				}
			}
		}
		if len(h) > 0 {
			r, _ := http.NewRequestWithContext(ctx, http.MethodGet, "/graphql", nil)
			r.Header = h
			p, err := a.Authenticate(r)
			ctx = auth.WithPrincipal(ctx, p, err)
		}
		p, err := auth.FromContext(ctx)
		switch {
		case err != nil:
			return transport.WithWebsocketCloseCode(ctx, CloseForbidden), nil, errors.New("the credential is not valid")
		case p == nil && l.cfg.RequireAuth:
			return transport.WithWebsocketCloseCode(ctx, CloseForbidden), nil,
				errors.New("subscriptions need a credential: connection_init payload {\"Authorization\": \"Bearer <API key or token>\"}")
		}
		return ctx, nil, nil
	}
}

// liveWebsocket accepts websockets with gqlgen's coder/websocket adapter,
// on a batchConn whose sends are bounded by WriteTimeout, wrapped so that
// the protocol and the rate limit are enforced on each message (wsGuard),
// and the connection is known to its liveConn.
type liveWebsocket struct{ l *Live }

func (lw liveWebsocket) Accept(w http.ResponseWriter, r *http.Request, opts transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	hj := &batchingHijacker{ResponseWriter: w, timeout: lw.l.cfg.WriteTimeout, interval: lw.l.cfg.WriteInterval}
	conn, err := acceptWebsocket(hj, r, opts)
	if err != nil {
		return nil, err
	}
	g := newWSGuard(r.Context(), conn, lw.l.deps.Rate)
	if c := liveConnFrom(r.Context()); c != nil {
		c.batch = hj.conn
		c.guard.Store(g)
	}
	return g, nil
}

// wrappedWebsocket is a wrapper of a connection that passes the optional
// read limit and read deadline through to it.
type wrappedWebsocket struct {
	transport.WebsocketConn
}

// SetReadLimit passes through to the wrapped connection.
func (c wrappedWebsocket) SetReadLimit(n int64) {
	if rl, ok := c.WebsocketConn.(transport.WebsocketReadLimiter); ok {
		rl.SetReadLimit(n)
	}
}

// SetReadDeadline passes through to the wrapped connection.
func (c wrappedWebsocket) SetReadDeadline(t time.Time) error {
	if d, ok := c.WebsocketConn.(transport.WebsocketReadDeadliner); ok {
		return d.SetReadDeadline(t)
	}
	return nil
}

// sseWriter is an SSE stream's ResponseWriter: each write is bounded by
// timeout, writes are serialised (so the gateway can add an event), and
// after stop nothing more is written (the stream ends without complete).
// Between hold and release, the shared `next` events are flushed together
// on release; their flushes are paced as a websocket's sends are
// (pace.go).
type sseWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	mu      sync.Mutex
	stopped bool
	holds   int // hold calls not yet released
	pace    pacer
}

var errStreamStopped = errors.New("stream stopped")

func (w *sseWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return 0, errStreamStopped
	}
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	return w.ResponseWriter.Write(b)
}

// Flush sends what was written.
func (w *sseWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		_ = w.rc.Flush()
	}
}

// Unwrap returns the underlying ResponseWriter (http.ResponseController).
func (w *sseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *sseWriter) writeEvent(ev string) {
	if _, err := w.Write([]byte(ev)); err == nil {
		w.Flush()
	}
}

// writeNext sends a `next` event around payload, an encoded response
// (frame.go): at once, or on release while held.
func (w *sseWriter) writeNext(payload []byte) error {
	if _, err := w.Write(sseNextFrame(payload)); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushPaced()
	return nil
}

// flushPaced flushes what was written unless a hold or the pacer keeps
// it; w.mu is held.
func (w *sseWriter) flushPaced() {
	if w.holds == 0 && !w.stopped && w.pace.ready(w.paced) {
		_ = w.rc.Flush()
	}
}

// nextSend returns when the stream's next flush may go (pacer.next).
func (w *sseWriter) nextSend() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pace.next()
}

// paced is the pacer's timer: it flushes what was written during the
// interval.
func (w *sseWriter) paced() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pace.fired() {
		w.flushPaced()
	}
}

// hold keeps the `next` events written until release unflushed.
func (w *sseWriter) hold() {
	w.mu.Lock()
	w.holds++
	w.mu.Unlock()
}

// release ends a hold; the last one flushes what was written.
func (w *sseWriter) release() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.holds--
	w.flushPaced()
	return nil
}

// stop ends the stream's writes: nothing is written or flushed after it
// returns (the server flushes what is buffered when the handler returns).
func (w *sseWriter) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	w.pace.stop()
}

// bodyThenStream is an SSE request's body: read under the server's
// ReadTimeout like any POST's (a stalled body gets 408 from readBody), and
// once read to its end, the connection's read deadline is cleared, so that
// the stream that follows is not cut by it.
type bodyThenStream struct {
	io.ReadCloser
	rc *http.ResponseController
}

func (b *bodyThenStream) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}
