package obs

import (
	"io"
	"sync"
	"time"
)

// LineBuffer batches the log lines written to it into fewer writes to its
// writer, as Nagle's algorithm batches a socket's small segments: a line
// written when nothing was written for its delay goes out at once; a line
// that follows within the delay waits in the buffer until the buffer would
// exceed its size or for at most the delay, and Close writes what is left.
// An idle server's lines appear as they are logged; under load a request's
// log line costs a copy instead of a write system call of its own (one of
// three a page request made). A line is written whole, never split; lines
// keep their order. A process that dies without Close loses at most the
// last delay's lines.
type LineBuffer struct {
	mu     sync.Mutex
	w      io.Writer
	buf    []byte
	size   int
	delay  time.Duration
	last   time.Time // of the last write to w
	armed  bool      // a flush is due within delay
	closed bool
}

// NewLineBuffer returns a LineBuffer of size bytes over w that holds a
// line for at most delay.
func NewLineBuffer(w io.Writer, size int, delay time.Duration) *LineBuffer {
	return &LineBuffer{w: w, size: size, delay: delay, buf: make([]byte, 0, size)}
}

// Write buffers p, a whole line (or lines), or writes it at once when the
// buffer is closed, p alone fills it, or nothing was written for the delay.
func (b *LineBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.buf)+len(p) > b.size {
		if err := b.flushLocked(); err != nil {
			return 0, err
		}
	}
	if now := time.Now(); b.closed || len(p) >= b.size || len(b.buf) == 0 && now.Sub(b.last) >= b.delay {
		b.last = now
		return b.w.Write(p)
	}
	b.buf = append(b.buf, p...)
	if !b.armed {
		b.armed = true
		time.AfterFunc(b.delay, func() { _ = b.Flush() })
	}
	return len(p), nil
}

// Flush writes the buffered lines.
func (b *LineBuffer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flushLocked()
}

func (b *LineBuffer) flushLocked() error {
	b.armed = false
	if len(b.buf) == 0 {
		return nil
	}
	_, err := b.w.Write(b.buf)
	b.buf, b.last = b.buf[:0], time.Now()
	return err
}

// Close writes the buffered lines; later lines are written at once.
func (b *LineBuffer) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	return b.flushLocked()
}
