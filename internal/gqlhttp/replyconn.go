package gqlhttp

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"syscall"
)

// One write call a reply. net/http buffers a connection's writes in 4 KB:
// a reply larger than that (a page of 20 comments is about 9 KB) leaves
// in two write calls, the buffer with the headers, then the rest of the
// body, each a system call and, on a loopback or a LAN, a segment of its
// own. A server whose listener is a ReplyListener, with ReplyConnContext
// as its ConnContext, lets the edge hold a connection's writes while it
// writes a whole reply body (writeWhole) and send them in one call.
// Nothing else changes: a connection's other writes (streams, websockets
// after the upgrade, files) pass straight through.

// maxHeld bounds the reply whose writes are held: a larger one is written
// as net/http writes it (the copy would cost more than a call saves).
const maxHeld = 256 << 10

// ReplyListener returns ln with its connections able to hold their writes
// for a reply (see ReplyConnContext).
func ReplyListener(ln net.Listener) net.Listener { return replyListener{ln} }

// ReplyConnContext is an http.Server's ConnContext for a ReplyListener:
// it gives each request its connection, so that a reply the edge writes
// whole leaves in one write call.
func ReplyConnContext(ctx context.Context, c net.Conn) context.Context {
	if rc, ok := c.(*replyConn); ok {
		return context.WithValue(ctx, replyConnKey{}, rc)
	}
	return ctx
}

type replyConnKey struct{}

type replyListener struct{ net.Listener }

func (l replyListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return newReplyConn(c), nil
}

// newReplyConn wraps c.
func newReplyConn(c net.Conn) *replyConn {
	return &replyConn{Conn: c}
}

// replyConn is a connection whose writes can be held (hold) and then sent
// in one call (release). An error of that call is every later write's.
type replyConn struct {
	net.Conn
	mu   sync.Mutex
	held *[]byte // nil unless holding
	err  error
}

var heldBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// writeWhole writes body, a whole reply body, to w: when ctx's connection
// can hold its writes (ReplyConnContext) and body is at most maxHeld, the
// body leaves with its headers in one write call. Write the headers (the
// status, Content-Length) first; never use it for a stream's parts.
//
// net/http's 4 KB buffer sends what fills it as it fills and keeps the
// rest until the handler returns: the connection holds what the buffer
// sends, the buffer is flushed into the held bytes (through w's wrappers,
// by http.ResponseController), and both leave together. (Without the
// flush a body of 4 to 8 KB, a typical page, left in two calls: the held
// part, then the rest when net/http finished the request.) Only a reply
// whose length its headers declare is flushed: one without would turn
// chunked. Nor is a body being encoded (Content-Encoding set): the
// compressor outside writes it when the handler returns, and a flush
// would end its stream's block early, one more call.
func writeWhole(ctx context.Context, w http.ResponseWriter, body []byte) {
	c, _ := ctx.Value(replyConnKey{}).(*replyConn)
	if c == nil || len(body) > maxHeld {
		_, _ = w.Write(body)
		return
	}
	c.hold()
	defer c.release()
	h := w.Header()
	if _, err := w.Write(body); err == nil && h.Get("Content-Length") != "" && h.Get("Content-Encoding") == "" {
		_ = http.NewResponseController(w).Flush()
	}
}

// hold starts holding the connection's writes.
func (c *replyConn) hold() {
	c.mu.Lock()
	if c.held == nil {
		c.held = heldBuffers.Get().(*[]byte)
	}
	c.mu.Unlock()
}

// release sends what was held, in one write call.
func (c *replyConn) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.held
	if b == nil {
		return
	}
	c.held = nil
	if len(*b) > 0 && c.err == nil {
		_, c.err = c.Conn.Write(*b)
	}
	*b = (*b)[:0]
	if cap(*b) <= maxHeld {
		heldBuffers.Put(b)
	}
}

// Write holds p while the connection holds its writes, else writes it.
func (c *replyConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.err != nil:
		return 0, c.err
	case c.held != nil:
		*c.held = append(*c.held, p...)
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// ReadFrom is the connection's own (sendfile for a file) when it has one
// and nothing is held, so that net/http's file replies keep it.
func (c *replyConn) ReadFrom(r io.Reader) (int64, error) {
	c.mu.Lock()
	rf, ok := c.Conn.(io.ReaderFrom)
	plain := ok && c.held == nil && c.err == nil
	c.mu.Unlock()
	if plain {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c}, r)
}

// CloseWrite half-closes the connection, as net/http does before closing
// one whose request it refused.
func (c *replyConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// SyscallConn is the connection's own, when it has one: a hijacked
// connection (a websocket's) may write to its socket directly, as nothing
// is held after a hijack.
func (c *replyConn) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := c.Conn.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, errors.ErrUnsupported
}
