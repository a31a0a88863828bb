package livehttp

import (
	"bufio"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"
)

// maxPendingWrite bounds the bytes a websocket connection may have queued
// but not yet sent: a writer waits beyond it while another sends, or sends
// itself, so a client that stops reading makes the writers wait (and the
// write timeout close the connection) instead of growing this buffer.
const maxPendingWrite = 32 << 10

// keptWriteBuffer is the largest send buffer a connection keeps for the
// next send; a larger one (after a burst) is left to the collector.
const keptWriteBuffer = 4 << 10

// closeFlushTimeout bounds how long closing a connection waits for what is
// queued (a close frame, an error message) to be sent.
const closeFlushTimeout = time.Second

// batchingHijacker is the ResponseWriter of a websocket upgrade: the
// connection it hijacks is a batchConn (conn, once hijacked) whose sends
// are bounded by timeout, so the websocket library's frames (one write
// and flush each) can be gathered and sent together.
type batchingHijacker struct {
	http.ResponseWriter
	timeout  time.Duration
	interval time.Duration // paces the sends (pacer)
	conn     *batchConn
}

// Hijack hijacks the underlying connection and wraps it in a batchConn.
func (w *batchingHijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
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
	bc := newBatchConn(conn, w.timeout, w.interval)
	brw.Writer.Reset(bc)
	w.conn = bc
	return bc, brw, nil
}

// Unwrap returns the underlying ResponseWriter (http.ResponseController).
func (w *batchingHijacker) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// batchConn is a net.Conn whose writes are gathered: a write that finds
// the connection idle sends at once, from the writer's goroutine, what the
// socket takes without waiting (writeNow); what it does not take is sent
// by a sender goroutine started for it, which waits for the socket, and
// writes made meanwhile are queued for that sender (a writer waits only
// when maxPendingWrite bytes are queued, as before). Between hold and
// release, writes are queued (up to maxPendingWrite), and release sends
// them in one call: a subscriber that writes several queued events does so
// in one system call, with no added wait. No goroutine and no timer per
// write while the client keeps up. Sends are paced (pace.go): one that
// finds no token waits for the next, and what is queued meanwhile leaves
// with it; a full queue (maxPendingWrite) and Close send at once.
//
// Each send that waits for the socket has a deadline at least timeout away
// (set again only when the one set is nearer: at most timeout + timeout/4
// away), and a send that fails, a stalled client's after that long, closes
// the connection. The first error of a send is returned by every later
// write.
type batchConn struct {
	net.Conn
	timeout  time.Duration // a send's least deadline; 0: none
	mu       sync.Mutex
	cond     sync.Cond
	pending  []byte      // queued, not yet taken by a sender
	spare    []byte      // the last send's buffer, reused
	sending  bool        // a writer is sending
	holds    int         // hold calls not yet released
	deadline time.Time   // the write deadline set on Conn, guarded by mu
	err      error       // the first send error, or net.ErrClosed after Close
	lib      frameStream // the library's frames so far (wsframe.go)
	raw      *rawWriter  // the socket's writes that never wait; nil: none
	pace     pacer
}

func newBatchConn(conn net.Conn, timeout, interval time.Duration) *batchConn {
	c := &batchConn{Conn: conn, timeout: timeout, pace: pacer{interval: interval}}
	c.cond.L = &c.mu
	if sc, ok := conn.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			c.raw = newRawWriter(raw)
		}
	}
	return c
}

// Write queues p and, unless another writer is sending or the connection
// is held, sends what is queued. While another sends, it waits when
// maxPendingWrite bytes are queued.
func (c *batchConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.mustWait(len(p)) {
		c.cond.Wait()
	}
	if c.err != nil {
		return 0, c.err
	}
	c.pending = append(c.pending, p...)
	c.lib.advance(p)
	if c.sendOrQueue(); c.err != nil {
		return 0, c.err
	}
	return len(p), nil
}

// writeText writes msg, an encoded message, as one text frame of its own
// (wsframe.go), queued or sent as Write does. sent is false, nothing
// written, when the library is amid a frame or has closed: the library
// must write msg.
func (c *batchConn) writeText(msg []byte) (sent bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.lib.between() || c.lib.closed {
		return false, nil
	}
	for c.mustWait(len(msg)) {
		c.cond.Wait()
		if !c.lib.between() || c.lib.closed {
			return false, nil
		}
	}
	if c.err != nil {
		return true, c.err
	}
	c.pending = appendTextFrame(c.pending, msg)
	c.sendOrQueue()
	return true, c.err
}

// mustWait reports whether a write of n bytes waits for the sender: one
// is sending, and n more would queue over maxPendingWrite; c.mu is held.
func (c *batchConn) mustWait(n int) bool {
	return c.err == nil && c.sending && len(c.pending) > 0 && len(c.pending)+n > maxPendingWrite
}

// sendOrQueue sends what is queued unless another writer is sending or
// the connection is held; c.mu is held.
func (c *batchConn) sendOrQueue() {
	if c.sending || (c.holds > 0 && len(c.pending) < maxPendingWrite) {
		return
	}
	c.flush()
}

// hold queues the writes that follow until release.
func (c *batchConn) hold() {
	c.mu.Lock()
	c.holds++
	c.mu.Unlock()
}

// release ends a hold; the last one sends what is queued. It returns the
// connection's error, if any.
func (c *batchConn) release() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.holds--; c.holds == 0 && !c.sending {
		c.flush()
	}
	return c.err
}

// flush sends what is queued (no writer is sending) when the pacer lets
// it or the queue is full, and otherwise leaves it to the pacer's timer;
// c.mu is held.
func (c *batchConn) flush() {
	if len(c.pending) < maxPendingWrite && !c.pace.ready(c.paced) {
		return
	}
	c.flushNow()
}

// nextSend returns when the connection's next send may go (pacer.next).
func (c *batchConn) nextSend() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pace.next()
}

// paced is the pacer's timer: it sends what was queued during the
// interval, unless a hold or a sender will.
func (c *batchConn) paced() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pace.fired() && c.holds == 0 && !c.sending {
		c.flush()
	}
}

// flushNow sends what is queued (no writer is sending): what the socket
// takes at once, and the rest from a sender goroutine; c.mu is held.
// Without writeNow, it sends and waits itself.
func (c *batchConn) flushNow() {
	if c.raw == nil {
		c.sendAll()
		return
	}
	if !c.writeNow() {
		return
	}
	c.sending = true
	go func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.sendAll()
	}()
}

// writeNow writes what of the queue the socket takes without waiting, and
// reports whether some is left; c.mu is held.
func (c *batchConn) writeNow() (left bool) {
	if c.err != nil || len(c.pending) == 0 {
		return false
	}
	n, err := c.raw.writeNow(c.pending)
	if err != nil {
		c.fail(err)
		return false
	}
	c.pending = append(c.pending[:0], c.pending[n:]...)
	if len(c.pending) > 0 {
		return true
	}
	if cap(c.pending) > keptWriteBuffer { // a burst's buffer: let it go
		c.pending = nil
	}
	return false
}

// fail records err, the first send error, and closes the connection (a
// stalled or broken client: its reader ends too); c.mu is held.
func (c *batchConn) fail(err error) {
	if c.err == nil {
		c.err = err
		_ = c.Conn.Close()
	}
	c.cond.Broadcast()
}

// sendAll sends what is queued, in as few calls as it takes and waiting
// for the socket, until nothing is or a send fails; c.mu is held, and
// released during each send.
func (c *batchConn) sendAll() {
	defer func() {
		c.sending = false
		c.cond.Broadcast()
	}()
	for c.err == nil && len(c.pending) > 0 {
		out := c.pending
		c.pending, c.sending = c.spare[:0], true
		deadline := c.nextDeadline()
		c.mu.Unlock()
		err := c.send(out, deadline)
		c.mu.Lock()
		c.spare, c.sending = out[:0], false
		if cap(c.spare) > keptWriteBuffer { // a burst's buffer: let it go
			c.spare = nil
		}
		if err != nil {
			c.fail(err)
		}
		c.cond.Broadcast()
	}
}

// nextDeadline returns the write deadline to set before a send, or the
// zero time when the one set is at least timeout away; c.mu is held.
func (c *batchConn) nextDeadline() time.Time {
	if c.timeout <= 0 {
		return time.Time{}
	}
	now := time.Now()
	if c.deadline.Sub(now) >= c.timeout {
		return time.Time{}
	}
	c.deadline = now.Add(c.timeout + c.timeout/4)
	return c.deadline
}

// send writes out, after setting the write deadline when one is given.
func (c *batchConn) send(out []byte, deadline time.Time) error {
	if !deadline.IsZero() {
		if err := c.Conn.SetWriteDeadline(deadline); err != nil {
			return err
		}
	}
	_, err := c.Conn.Write(out)
	return err
}

// Close sends what is queued (waiting at most closeFlushTimeout: then the
// connection is closed under the sender) and closes the connection.
func (c *batchConn) Close() error {
	c.mu.Lock()
	c.pace.stop()
	if c.err == nil && (c.sending || len(c.pending) > 0) {
		t := time.AfterFunc(closeFlushTimeout, func() { _ = c.Conn.Close() })
		if !c.sending {
			c.flushNow()
		}
		for c.err == nil && c.sending {
			c.cond.Wait()
		}
		t.Stop()
	}
	if c.err == nil {
		c.err = net.ErrClosed
	}
	c.cond.Broadcast()
	c.mu.Unlock()
	return c.Conn.Close()
}
