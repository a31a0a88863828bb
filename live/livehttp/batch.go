package livehttp

import (
	"bufio"
	"net"
	"net/http"
	"sync"
	"time"
)

// maxPendingWrite bounds the bytes a websocket connection may have written
// but not yet sent: a writer waits beyond it, so a client that stops
// reading makes the writer wait (and the write timeout close the
// connection) instead of growing this buffer.
const maxPendingWrite = 32 << 10

// keptWriteBuffer is the largest send buffer a connection keeps for the
// next send; a larger one (after a burst) is left to the collector.
const keptWriteBuffer = 4 << 10

// closeFlushTimeout bounds how long closing a connection waits for what is
// queued (a close frame, an error message) to be sent.
const closeFlushTimeout = time.Second

// batchingHijacker is the ResponseWriter of a websocket upgrade: the
// connection it hijacks is a batchConn, so the websocket library's frames
// (one write and flush each) are gathered and sent together.
type batchingHijacker struct {
	http.ResponseWriter
}

// Hijack hijacks the underlying connection and wraps it in a batchConn.
func (w batchingHijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	// The websocket library writes through brw.Writer (a server's frames
	// do not go through conn): give it one that writes to the batchConn.
	if err := brw.Writer.Flush(); err != nil {
		conn.Close()
		return nil, nil, err
	}
	bc := newBatchConn(conn)
	brw.Writer.Reset(bc)
	return bc, brw, nil
}

// Unwrap returns the underlying ResponseWriter (http.ResponseController).
func (w batchingHijacker) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// batchConn is a net.Conn whose writes are queued and sent by one goroutine
// per connection, each send taking everything queued since the last: when a
// subscriber's events pile up, they leave in one system call instead of one
// each. A write returns once queued; the first error of a send is returned
// by every later write.
type batchConn struct {
	net.Conn
	mu      sync.Mutex
	cond    sync.Cond
	pending []byte // queued, not yet taken by the sender
	spare   []byte // the sender's last buffer, reused
	sending bool   // the sender is writing
	err     error  // the first send error, or net.ErrClosed after Close
}

func newBatchConn(conn net.Conn) *batchConn {
	c := &batchConn{Conn: conn}
	c.cond.L = &c.mu
	go c.send()
	return c
}

// Write queues p, waiting while maxPendingWrite bytes are queued.
func (c *batchConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.err == nil && len(c.pending) > 0 && len(c.pending)+len(p) > maxPendingWrite {
		c.cond.Wait()
	}
	if c.err != nil {
		return 0, c.err
	}
	c.pending = append(c.pending, p...)
	c.cond.Broadcast()
	return len(p), nil
}

// send sends what is queued, until a send fails or the connection closes.
func (c *batchConn) send() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		for c.err == nil && len(c.pending) == 0 {
			c.cond.Wait()
		}
		if c.err != nil {
			return
		}
		out := c.pending
		c.pending, c.sending = c.spare[:0], true
		c.mu.Unlock()
		_, err := c.Conn.Write(out)
		c.mu.Lock()
		c.spare, c.sending = out[:0], false
		if cap(c.spare) > keptWriteBuffer { // a burst's buffer: let it go
			c.spare = nil
		}
		if err != nil && c.err == nil {
			c.err = err
		}
		c.cond.Broadcast()
	}
}

// Close sends what is queued (waiting at most closeFlushTimeout) and
// closes the connection.
func (c *batchConn) Close() error {
	c.mu.Lock()
	if c.err == nil && (c.sending || len(c.pending) > 0) {
		_ = c.Conn.SetWriteDeadline(time.Now().Add(closeFlushTimeout))
		for c.err == nil && (c.sending || len(c.pending) > 0) {
			c.cond.Wait()
		}
	}
	if c.err == nil {
		c.err = net.ErrClosed
	}
	c.cond.Broadcast()
	c.mu.Unlock()
	return c.Conn.Close()
}
