//go:build unix

package livehttp

import (
	"errors"
	"syscall"
)

// rawWriter writes to a socket without waiting for it: what of a buffer
// it takes at once. One per connection, used under its lock, so that a
// write allocates nothing (its function is made once).
type rawWriter struct {
	raw syscall.RawConn
	fn  func(fd uintptr) bool
	p   []byte // being written
	n   int    // written of p
	err error  // of the write of p
}

func newRawWriter(raw syscall.RawConn) *rawWriter {
	w := &rawWriter{raw: raw}
	w.fn = func(fd uintptr) bool {
		for {
			w.n, w.err = syscall.Write(int(fd), w.p)
			if !errors.Is(w.err, syscall.EINTR) {
				break
			}
		}
		if errors.Is(w.err, syscall.EAGAIN) {
			w.n, w.err = 0, nil
		}
		w.n = max(w.n, 0)
		return true // one attempt: never wait for the socket
	}
	return w
}

// writeNow writes what of p the socket takes at once: n bytes, and an
// error only when the connection failed.
func (w *rawWriter) writeNow(p []byte) (n int, err error) {
	w.p, w.n, w.err = p, 0, nil
	if err := w.raw.Write(w.fn); err != nil {
		w.err = err
	}
	n, err = w.n, w.err
	w.p = nil
	return n, err
}
